// The text of -h (options.hpp), from the flag tables (flags.hpp).

#include <string>

#include "config/flags.hpp"
#include "config/options.hpp"

namespace gpuhash::server::config {
namespace {

using namespace detail;

std::string default_text(int code, const server_options& defaults) {
  char octal[16];
  switch (code) {
    case 'p': return std::to_string(defaults.network.listen.tcp_port);
    case 'U': return "0, off";
    case 'a':
      std::snprintf(octal, sizeof octal, "%o", defaults.network.listen.unix_socket_mode);
      return octal;
    case 'l': return defaults.network.listen.addresses;
    case 'm': return std::to_string(defaults.engine.store.memory_limit / megabyte);
    case 'c': return std::to_string(defaults.network.max_connections);
    case 'f': return number_text(defaults.engine.store.growth_factor);
    case 'n': return std::to_string(defaults.engine.store.chunk_size_min);
    case 't': return std::to_string(defaults.network.threads);
    case 'R': return std::to_string(defaults.network.requests_per_event);
    case 'b': return std::to_string(defaults.network.listen.backlog);
    case 'B': return "auto";
    case 'D': return ":";
    case 'I':
      return defaults.engine.store.item_size_max % megabyte == 0
                 ? std::to_string(defaults.engine.store.item_size_max / megabyte) + "m"
                 : std::to_string(defaults.engine.store.item_size_max) + " bytes";
    case index_code: return "auto: GPU or CPU by the load";
    case batch_max_code: return std::to_string(defaults.engine.batch_max) + "; 1..1048576";
    case batch_wait_code: return std::to_string(defaults.engine.batch_wait_us) + "; 0..1000000";
    case spin_code: return std::to_string(defaults.network.spin_us) + "; 0..100000";
    case runner_code: return "auto: thread for a GPU";
    case shards_code: return "0: -t, <= -m / 8 MB; 0..64";
    default: return {};
  }
}

void append_flag_help(std::string& text, const flag_spec& flag, const server_options& defaults) {
  std::string left = flag.code < 256 ? std::string("-") + static_cast<char>(flag.code) : "  ";
  if (flag.long_name != nullptr) {
    left += (flag.code < 256 ? ", --" : "  --") + std::string(flag.long_name);
  }
  if (flag.takes == argument::required) {
    left += (flag.long_name != nullptr ? "=" : " ") + std::string(flag.value_name);
  }
  left.resize(std::max<std::size_t>(left.size() + 1, 32), ' ');
  text += left + flag.help;
  if (const std::string value = default_text(flag.code, defaults); !value.empty()) {
    text += " (default: " + value + ")";
  }
  text += flag.why_ignored != nullptr ? " [ignored]\n" : "\n";
}

}  // namespace

std::string help_text() {
  const server_options defaults;
  std::string text =
      "Usage: gpuhash-server [options]\n"
      "A memcached-compatible cache whose index lives on the GPU. It knows every flag of\n"
      "memcached 1.6: those marked [ignored] tune memcached's own machinery, have no effect\n"
      "here and are listed at startup with -v; those marked [refused] stop it with a message.\n"
      "Long names may be shortened to any unique prefix.\n\n"
      "memcached's options:\n";
  for (const flag_spec& flag : flags) {
    if (flag.help != nullptr && flag.code < 256) append_flag_help(text, flag, defaults);
  }
  text +=
      "\n-o options that apply:\n"
      "  read_buf_mem_limit=<mb>     memory of all connections' buffers together, 0: no limit\n"
      "                              (default: -m / 4, at least 8 and four times -I)\n"
      "  slab_chunk_max=<bytes>      the largest slab class's chunk; larger items are counted\n"
      "                              in chunks (default: 524288; a divisor of -I and of 1 MB)\n"
      "  no_chunked_items            slab_chunk_max=1048576 (unless -I is above 1m)\n"
      "  lru_maintainer              memcached's segmented LRU: HOT, WARM, COLD (default)\n"
      "  no_lru_maintainer           one LRU per class instead (as no_modern)\n"
      "  hot_lru_pct=<1-79>          HOT's share of its class's bytes, percent (default: 20)\n"
      "  warm_lru_pct=<1-79>         WARM's share (default: 40; at most 80 with HOT's)\n"
      "  hot_max_factor=<x>          items idle past x times COLD's tail age leave HOT\n"
      "                              (default: 0.2)\n"
      "  warm_max_factor=<x>         the same for WARM (default: 2.0)\n"
      "  temporary_ttl=<seconds>     items expiring within it go to a TEMP LRU, never evicted\n"
      "                              (needs lru_maintainer; default: off)\n"
      "  ssl_chain_cert=<file>       certificate chain, PEM (needs -Z)\n"
      "  ssl_key=<file>              private key, unless in ssl_chain_cert\n"
      "  ssl_keyformat=<1|2>         private key format: 1 PEM (default), 2 DER\n"
      "  ssl_verify_mode=<0-3>       client certificates: 0 not asked (default), 1 asked,\n"
      "                              2 required, 3 required once\n"
      "  ssl_ca_cert=<file>          CAs whose client certificates are accepted, PEM\n"
      "  ssl_ciphers=<list>          OpenSSL cipher list (TLS 1.2 and below)\n"
      "  ssl_min_version=<0-3>       oldest TLS accepted: 0 1.0, 1 1.1, 2 1.2 (default), 3 1.3\n"
      "  ssl_wbuf_size=<kb>          bytes encrypted per write (default: 16)\n"
      "  ssl_session_cache           server-side TLS session cache, for resumption\n"
      "  ssl_kernel_tls              kernel TLS offload where the kernel and OpenSSL have it\n"
      "  drop_privileges             [refused]: no seccomp sandbox is implemented\n"
      "\n-o options accepted and [ignored] (tuning of memcached's own machinery):\n";
  std::string line = " ";
  for (const suboption_group& group : suboptions) {
    if (group.reason == honoured) continue;
    for (const std::string_view name : split(group.names, ' ')) {
      if (line.size() + name.size() + 2 > 100) {
        text += line + "\n";
        line = " ";
      }
      line += " " + std::string(name) + ",";
    }
  }
  line.pop_back();
  text += line + "\n\ngpuhash-server's options:\n";
  for (const flag_spec& flag : flags) {
    if (flag.code >= 256) append_flag_help(text, flag, defaults);
  }
  return text;
}

}  // namespace gpuhash::server::config

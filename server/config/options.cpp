// gpuhash-server's command line, read by GNU getopt_long's rules, which memcached 1.6.18 uses:
// short flags cluster ("-vvd"); a short flag's value is glued ("-p11211") or the next word, even
// one starting with '-'; a long flag's value follows '=' or is the next word; a long name may be
// cut to any unique prefix ("--memory-l"); "--" ends the flags; words that are not flags are
// skipped. Where memcached reads numbers with atoi (so "-p abc" is port 0), values are checked
// strictly here. A small parser rather than getopt_long itself: that one keeps global state and
// reorders argv.

#include "config/options.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

#include "config/flags.hpp"

namespace gpuhash::server::config {
namespace {

using namespace detail;
using action = parse_outcome::action;

/// --batch-runner's choices, in the order of its words: auto, thread, workers.
constexpr engine::batch_runner runners[] = {engine::batch_runner::automatic,
                                            engine::batch_runner::batch_thread,
                                            engine::batch_runner::submitting_thread};

/// A command-line mistake; what() becomes parse_outcome::message.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::int64_t parse_integer(std::string_view text, std::int64_t low, std::int64_t high,
                           const std::string& flag, int base = 10) {
  const char* last = text.data() + text.size();
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), last, value, base);
  if (end == last && error == std::errc{} && low <= value && value <= high) return value;
  if (end == last && !text.empty() && error != std::errc::invalid_argument) {
    throw usage_error(flag + ": " + std::string(text) + " is out of range (" + std::to_string(low) +
                      ".." + std::to_string(high) + ")");
  }
  throw usage_error(flag + ": " + quoted(text) + (base == 8 ? " is not an octal" : " is not a") +
                    " number");
}

double parse_real(std::string_view text, const std::string& flag) {
  const char* last = text.data() + text.size();
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), last, value);
  if (error != std::errc{} || end != last || !std::isfinite(value)) {
    throw usage_error(flag + ": " + quoted(text) + " is not a number");
  }
  return value;
}

/// -I's value: bytes, or a count of k, m or g (memcached takes k and m only).
std::int64_t parse_item_size(std::string_view text, const std::string& flag) {
  std::int64_t unit = 1;
  std::string_view digits = text;
  constexpr std::string_view suffixes = "kKmMgG";
  if (const std::size_t at = text.empty() ? suffixes.npos : suffixes.find(text.back());
      at != suffixes.npos) {
    unit = kilobyte << (10 * (at / 2));
    digits.remove_suffix(1);
  }
  const char* last = digits.data() + digits.size();
  std::int64_t count = 0;
  const auto [end, error] = std::from_chars(digits.data(), last, count);
  if (end != last || digits.empty() || error == std::errc::invalid_argument) {
    throw usage_error(flag + ": " + quoted(text) + " is not a number");
  }
  // The first test keeps count * unit from overflowing.
  if (digits.front() != '-' && (error != std::errc{} || count > gigabyte / unit)) {
    throw usage_error(flag + ": " + std::string(text) + " is more than 1g");
  }
  if (digits.front() == '-' || count * unit < kilobyte) {
    throw usage_error(flag + ": " + std::string(text) + " is less than 1k");
  }
  return count * unit;
}

/// The position of `value` in `choices` (for --index, the order of index::placement's enumerators).
std::size_t one_of(std::string_view value, std::initializer_list<std::string_view> choices,
                   const std::string& flag) {
  if (const auto at = std::ranges::find(choices, value); at != choices.end()) {
    return static_cast<std::size_t>(at - choices.begin());
  }
  std::string listed;
  for (const std::string_view choice : choices) {
    listed += (listed.empty() ? "" : ", ") + std::string(choice);
  }
  throw usage_error(flag + ": " + quoted(value) + " is not one of " + listed);
}

std::string_view required_text(std::string_view value, const std::string& flag) {
  if (value.empty()) throw usage_error(flag + ": the value is empty");
  return value;
}

class command_line_parser {
 public:
  command_line_parser(server_options& options, int argc, const char* const* argv)
      : options_(options), argc_(argc), argv_(argv) {}

  /// Reads every word; stops early at -h, -i or -V, as memcached does.
  action parse() {
    while (next_word_ < argc_) {
      const std::string_view word = argv_[next_word_++];
      action what = action::run;
      if (word == "--") {
        while (next_word_ < argc_) skip_stray_word(argv_[next_word_++]);
      } else if (word.starts_with("--")) {
        what = parse_long(word);
      } else if (word.size() > 1 && word.front() == '-') {
        what = parse_short_cluster(word);
      } else {
        skip_stray_word(word);
      }
      if (what != action::run) return what;
    }
    return action::run;
  }

  /// memcached's checks after its getopt loop, on the flags taken together.
  void check_combinations() {
    if (napi_ids_ > options_.network.threads) {
      throw usage_error("-N/--napi-ids: " + std::to_string(napi_ids_) +
                        " NAPI IDs are more than the " + std::to_string(options_.network.threads) +
                        " threads of -t");
    }
    const store::store_config& store = options_.engine.store;
    const std::size_t memory_limit_mb = store.memory_limit / megabyte;
    if (store.item_size_max > store.memory_limit / 2) {
      throw usage_error("-I/--max-item-size: " + std::to_string(store.item_size_max) +
                        " bytes is more than half of -m (" + std::to_string(memory_limit_mb) +
                        " megabytes)");
    }
    check_slab_chunk_max();
    const tuning_settings& tuning = options_.tuning;
    if (tuning.hot_lru_pct + tuning.warm_lru_pct > 80) {
      throw usage_error("-o/--extended: hot_lru_pct + warm_lru_pct cannot be more than 80");
    }
    if (tuning.temporary_ttl && !tuning.lru_maintainer) {
      throw usage_error("-o/--extended: temporary_ttl requires lru_maintainer");
    }
    set_lru(tuning);
    if (options_.udp_port != 0) {
      throw usage_error("-U/--udp-port " + std::to_string(options_.udp_port) +
                        ": UDP is not served; leave -U at 0 (memcached 1.6's default)");
    }
    const net::listen_settings& listen = options_.network.listen;
    if (listen.tcp_port == 0 && listen.unix_socket.empty()) {
      throw usage_error(
          "-p/--port 0: TCP is off, and with no -s/--unix-socket (and no UDP) the server would "
          "listen nowhere; give a port (-1: one the kernel picks) or a unix socket");
    }
    check_tls();
    // --shards, or by default one a thread as far as -m gives each 8 MB
    options_.engine.shards =
        shards_ != 0 ? shards_
                     : std::clamp<std::size_t>(memory_limit_mb / 8, 1,
                                               std::max<std::size_t>(1, options_.network.threads));
    // --index=auto: a shard's index holds at most all of its part of -m in
    // items of the smallest class (memcached's 48-byte header and -n)
    options_.index_auto.shard_entries =
        store.memory_limit / options_.engine.shards / (48 + store.chunk_size_min);
    options_.index_auto.log_moves = options_.network.verbosity > 0;
    // A connection holding a largest request (its buffer up to twice -I)
    // must still find room for a largest reply: four times -I at least.
    const std::size_t least = 4 * store.item_size_max;
    if (!connection_memory_limit_given_) {
      options_.network.memory_limit =
          std::max<std::size_t>({store.memory_limit / 4, 8 * megabyte, least});
    } else if (options_.network.memory_limit != 0 && options_.network.memory_limit < least) {
      throw usage_error("-o/--extended read_buf_mem_limit: " +
                        std::to_string(options_.network.memory_limit / megabyte) +
                        " megabytes cannot hold a largest request and its reply (four times -I, " +
                        std::to_string(least) + " bytes); raise it or lower -I");
    }
  }

 private:
  /// memcached's checks of -I against slab_chunk_max (the largest class's
  /// chunk), which the store then takes, with slab_reassign.
  void check_slab_chunk_max() {
    tuning_settings& tuning = options_.tuning;
    store::store_config& store = options_.engine.store;
    constexpr std::int64_t slab_page = megabyte;
    // an -I above 1 MB chunks items at half a page unless slab_chunk_max was given
    if (store.item_size_max > megabyte && !tuning.slab_chunk_max_given)
      tuning.slab_chunk_max = slab_page / 2;
    const std::int64_t chunk_max = tuning.slab_chunk_max;
    const auto item_size_max = static_cast<std::int64_t>(store.item_size_max);
    if (chunk_max > item_size_max) {
      throw usage_error("-I/--max-item-size: " + std::to_string(item_size_max) +
                        " bytes is less than slab_chunk_max (" + std::to_string(chunk_max) +
                        " bytes); raise -I or lower -o slab_chunk_max");
    }
    if (item_size_max % chunk_max != 0) {
      throw usage_error("-I/--max-item-size: " + std::to_string(item_size_max) +
                        " bytes is not a multiple of slab_chunk_max (" + std::to_string(chunk_max) +
                        " bytes)");
    }
    // a chunk holds a 48-byte header, and memcached's pages are 1 MB
    if (chunk_max <= 48 || slab_page % chunk_max != 0) {
      throw usage_error("-o/--extended slab_chunk_max: " + std::to_string(chunk_max) +
                        " bytes must be more than 48 and divide the 1 MB slab page");
    }
    store.slab_chunk_max = static_cast<std::size_t>(chunk_max);
    store.slab_reassign = tuning.slab_reassign;
  }

  /// memcached's segmented LRU and its shares and ages, as -o set them (no_modern turns
  /// it off as no_lru_maintainer does), and its TEMP segment, for the store.
  void set_lru(const tuning_settings& tuning) {
    store::lru_settings& lru = options_.engine.store.lru;
    lru.maintainer = tuning.lru_maintainer;
    lru.segmented = tuning.lru_maintainer;
    lru.hot_lru_pct = static_cast<std::size_t>(tuning.hot_lru_pct);
    lru.warm_lru_pct = static_cast<std::size_t>(tuning.warm_lru_pct);
    lru.hot_max_factor = tuning.hot_max_factor;
    lru.warm_max_factor = tuning.warm_max_factor;
    lru.temp_lru = tuning.temporary_ttl.has_value();
    if (lru.temp_lru) lru.temporary_ttl = static_cast<std::uint32_t>(*tuning.temporary_ttl);
  }

  std::optional<std::string_view> take_next_word() {
    if (next_word_ >= argc_) return std::nullopt;
    return std::string_view(argv_[next_word_++]);
  }

  action parse_long(std::string_view word) {
    const std::string_view body = word.substr(2);
    const std::size_t equals = body.find('=');
    const flag_spec& flag = find_long(body.substr(0, equals), word);
    const std::string written = "option '--" + std::string(flag.long_name) + "'";
    std::optional<std::string_view> value;
    if (equals != std::string_view::npos) {
      if (flag.takes == argument::none) throw usage_error(written + " doesn't allow an argument");
      value = body.substr(equals + 1);
    } else if (flag.takes == argument::required) {
      value = take_next_word();
      if (!value) throw usage_error(written + " requires an argument");
    }
    return apply(flag, value.value_or(""));
  }

  action parse_short_cluster(std::string_view word) {
    for (std::size_t at = 1; at < word.size(); ++at) {
      const auto flag = std::ranges::find(flags, word[at], &flag_spec::code);
      const std::string letter = std::string("-- '") + word[at] + "'";
      if (flag == flags.end()) throw usage_error("invalid option " + letter);
      if (flag->takes == argument::required) {
        const auto value = at + 1 < word.size() ? word.substr(at + 1) : take_next_word();
        if (!value) throw usage_error("option requires an argument " + letter);
        return apply(*flag, *value);
      }
      if (const action what = apply(*flag, ""); what != action::run) return what;
    }
    return action::run;
  }

  /// An exact long name, or the one flag whose long names start with `name` (GNU rules).
  static const flag_spec& find_long(std::string_view name, std::string_view word) {
    const flag_spec* match = nullptr;
    bool ambiguous = false;
    std::string candidates;
    for (const flag_spec& flag : flags) {
      const std::string_view long_name = flag.long_name != nullptr ? flag.long_name : "";
      if (long_name == name) return flag;
      if (long_name.empty() || !long_name.starts_with(name)) continue;
      ambiguous = ambiguous || (match != nullptr && match->code != flag.code);
      if (match == nullptr) match = &flag;
      candidates += " '--" + std::string(long_name) + "'";
    }
    const std::string written = "option '" + std::string(word) + "'";
    if (ambiguous) throw usage_error(written + " is ambiguous; possibilities:" + candidates);
    if (match == nullptr) throw usage_error("unrecognized " + written);
    return *match;
  }

  /// The flags without effect whose values `stats settings` shows, checked
  /// as memcached checks them.
  void record_shown_flag(int code, std::string_view value, const std::string& name) {
    tuning_settings& tuning = options_.tuning;
    if (code == 'D') {
      tuning.stat_key_prefix = required_text(value, name)[0];
    } else if (code == 'N') {
      napi_ids_ = static_cast<std::size_t>(parse_integer(value, 1, int_max, name));
      tuning.napi_ids = value;
    } else {  // -e
      tuning.memory_file = required_text(value, name);
    }
  }

  /// -B: the text protocol is the one served, so ascii and auto (which
  /// would also take the binary protocol) serve the same; binary is refused.
  void set_binding_protocol(std::string_view value, const std::string& flag) {
    if (one_of(value, {"auto", "ascii", "binary"}, flag) == 2) {
      throw usage_error(flag +
                        " binary: gpuhash-server serves memcached's text protocol only (classic "
                        "and meta commands); use -B ascii or -B auto");
    }
    options_.tuning.binding_protocol = value == "ascii" ? "ascii" : "auto-negotiate";
  }

  void ignore(std::string line) {
    if (std::ranges::find(options_.ignored, line) == options_.ignored.end()) {
      options_.ignored.push_back(std::move(line));
    }
  }

  void skip_stray_word(std::string_view word) {
    ignore(quoted(word) + ": not a flag; skipped, as memcached skips it");
  }

  /// Repeated -l flags add up (the first replaces the default); repeats are dropped.
  void add_listen_address(std::string_view address, const std::string& flag) {
    required_text(address, flag);
    if (!listen_given_) options_.network.listen.addresses.clear();
    listen_given_ = true;
    if (is_listed(options_.network.listen.addresses, ',', address)) return;
    options_.network.listen.addresses +=
        (options_.network.listen.addresses.empty() ? "" : ",") + std::string(address);
  }

  action apply(const flag_spec& flag, std::string_view value) {
    const std::string name = flag_name(flag);
    const auto number = [&](auto& field, std::int64_t low, std::int64_t high) {
      field = static_cast<std::remove_reference_t<decltype(field)>>(
          parse_integer(value, low, high, name));
    };
    switch (flag.code) {
      case 'p': number(options_.network.listen.tcp_port, -1, 65535); break;
      case 'U': number(options_.udp_port, -1, 65535); break;
      case 's': options_.network.listen.unix_socket = required_text(value, name); break;
      case 'a':
        options_.network.listen.unix_socket_mode =
            static_cast<std::uint32_t>(parse_integer(value, 0, 0777, name, 8));
        break;
      case 'A': options_.engine.shutdown_enabled = true; break;
      case 'l': add_listen_address(value, name); break;
      case 'u': options_.run_as_user = required_text(value, name); break;
      case 'm':
        options_.engine.store.memory_limit =
            static_cast<std::size_t>(parse_integer(value, 1, int_max, name)) * megabyte;
        break;
      case 'M': options_.engine.store.evict = false; break;
      case 'c': number(options_.network.max_connections, 1, int_max); break;
      case 'v': ++options_.network.verbosity; break;  // memcached ignores --verbose's value too
      case 'h': return action::print_help;
      case 'i':  // memcached prints its license; gpuhash-server has no separate text for it
      case 'V': return action::print_version;
      case 'f':
        options_.engine.store.growth_factor = parse_real(value, name);
        if (options_.engine.store.growth_factor <= 1.0)
          throw usage_error(name + ": must be more than 1");
        break;
      case 'n': number(options_.engine.store.chunk_size_min, 1, int_max); break;
      case 't': number(options_.network.threads, 1, int_max); break;
      case 'C': options_.engine.store.cas_enabled = false; break;
      case 'I':
        // the store's largest item, and so the largest value a request may carry
        options_.engine.store.item_size_max =
            static_cast<std::size_t>(parse_item_size(value, name));
        options_.network.limits.item_size_max = options_.engine.store.item_size_max;
        break;
      case 'S':
        throw usage_error(name +
                          ": SASL authentication belongs to memcached's binary protocol, which "
                          "gpuhash-server does not speak; use -Y <authfile> (text protocol "
                          "authentication) or TLS client certificates (-Z -o ssl_verify_mode=2)");
      case 'Y': options_.network.auth_file = required_text(value, name); break;
      case 'Z': options_.network.tls.enabled = true; break;
      case 'F': options_.engine.flush_enabled = false; break;
      case 'X': options_.engine.dumping_enabled = false; break;
      case 'o':
        for (const std::string_view entry : split(value, ',')) apply_suboption(entry);
        break;
      case 'b': number(options_.network.listen.backlog, 0, int_max); break;
      case 'B': set_binding_protocol(value, name); break;
      case 'R': number(options_.network.requests_per_event, 1, int_max); break;
      case 'D':
      case 'N':
      case 'e': record_shown_flag(flag.code, value, name); break;
      case index_code:
        options_.index = static_cast<index::placement>(one_of(value, {"auto", "gpu", "cpu"}, name));
        break;
      case batch_max_code: number(options_.engine.batch_max, 1, 1048576); break;
      case batch_wait_code: number(options_.engine.batch_wait_us, 0, 1000000); break;
      case spin_code:  // the workers' poll, and the batch threads'
        number(options_.network.spin_us, 0, 100000);
        options_.engine.spin_us = options_.network.spin_us;
        break;
      case shards_code: number(shards_, 0, 64); break;
      case runner_code:
        options_.engine.runner = runners[one_of(value, {"auto", "thread", "workers"}, name)];
        break;
      default: break;  // the switches that are only ignored
    }
    if (flag.why_ignored != nullptr) {
      const std::string shown = flag.takes == argument::required ? " " + std::string(value) : "";
      ignore("-" + std::string(1, static_cast<char>(flag.code)) + shown + ": " + flag.why_ignored);
    }
    return action::run;
  }

  void apply_suboption(std::string_view entry) {
    const std::size_t equals = entry.find('=');
    const std::string_view name = entry.substr(0, equals);
    const auto group = std::ranges::find_if(suboptions, [&](const suboption_group& known) {
      return is_listed(known.names, ' ', name);
    });
    if (group == suboptions.end()) {
      throw usage_error("-o/--extended: illegal suboption " + quoted(entry));
    }
    const std::string flag = "-o/--extended " + std::string(name);
    const std::optional<std::string_view> value =
        equals == std::string_view::npos ? std::nullopt : std::optional(entry.substr(equals + 1));
    const sub_value takes = group->takes;
    if (takes != sub_value::none && takes != sub_value::optional_integer &&
        value.value_or("").empty()) {
      throw usage_error(flag + ": a value is required");
    }
    std::int64_t number = 0;
    if (value && (takes == sub_value::integer || takes == sub_value::optional_integer)) {
      number = parse_integer(*value, static_cast<std::int64_t>(group->low),
                             static_cast<std::int64_t>(group->high), flag);
    }
    double real = 0;
    if (takes == sub_value::real) {
      if (real = parse_real(*value, flag); real <= group->low || real > group->high) {
        throw usage_error(flag + ": " + std::string(*value) + " is out of range (more than " +
                          number_text(group->low) + ", at most " + number_text(group->high) + ")");
      }
    }
    if (takes == sub_value::hash_name) one_of(*value, {"jenkins", "murmur3", "xxh3"}, flag);
    if (group->reason == honoured) {
      honour_suboption(name, value.value_or(""), number, real, flag);
    } else {
      record_tuning(options_.tuning, name, number, real, value.value_or(""));
      ignore("-o " + std::string(entry) + ": " + group->reason);
    }
  }

  /// The -o options that gpuhash-server applies (suboption_group::reason is `honoured`).
  void honour_suboption(std::string_view name, std::string_view value, std::int64_t number,
                        double real, const std::string& flag) {
    net::tls_settings& tls = options_.network.tls;
    if (name == "slab_chunk_max" || name == "no_chunked_items") {
      record_tuning(options_.tuning, name, number, 0,
                    value);  // the store takes it (check_slab_chunk_max)
    } else if (is_listed("lru_maintainer no_lru_maintainer hot_lru_pct warm_lru_pct hot_max_factor "
                         "warm_max_factor temporary_ttl",
                         ' ', name)) {
      record_tuning(options_.tuning, name, number, real, value);  // the store takes it (set_lru)
    } else if (name == "read_buf_mem_limit") {
      options_.network.memory_limit = static_cast<std::size_t>(number) * megabyte;
      connection_memory_limit_given_ = true;
    } else if (name == "drop_privileges") {
      throw usage_error(flag +
                        ": memcached's seccomp sandbox is not implemented; gpuhash-server "
                        "cannot drop those privileges (run it under a sandbox of your own)");
    } else if (name == "ssl_chain_cert") {
      tls.chain_cert = value;
    } else if (name == "ssl_key") {
      tls.key = value;
    } else if (name == "ssl_ca_cert") {
      tls.ca_cert = value;
    } else if (name == "ssl_ciphers") {
      tls.ciphers = value;
    } else if (name == "ssl_verify_mode") {
      tls.verify_mode = static_cast<int>(number);
    } else if (name == "ssl_min_version") {
      tls.min_version = static_cast<int>(number);
    } else if (name == "ssl_keyformat") {
      tls.keyformat = static_cast<int>(number);
    } else if (name == "ssl_wbuf_size") {
      tls.write_size = static_cast<std::uint32_t>(number) * kilobyte;
    } else if (name == "ssl_session_cache") {
      tls.session_cache = true;
    } else if (name == "ssl_kernel_tls") {
      tls.kernel_tls = true;
    }
    if (name.starts_with("ssl_")) tls_option_given_ = std::string(name);
  }

  /// TLS settings that cannot work together stop the server, as in memcached, rather than
  /// leave a connection unencrypted that was meant to be encrypted.
  void check_tls() {
    const net::tls_settings& tls = options_.network.tls;
    bool plaintext_listener = false;
    for (const std::string_view address : split(options_.network.listen.addresses, ',')) {
      plaintext_listener = plaintext_listener || address.starts_with("notls:");
    }
    if (!tls.enabled) {
      if (!tls_option_given_.empty()) {
        throw usage_error("-o/--extended " + tls_option_given_ +
                          ": TLS options need -Z (--enable-ssl); without it nothing is encrypted");
      }
      if (plaintext_listener) {
        throw usage_error("-l/--listen: the 'notls' prefix is valid only when TLS is enabled (-Z)");
      }
      return;
    }
    if (tls.chain_cert.empty()) {
      throw usage_error(
          "-Z/--enable-ssl: no certificate: give -o ssl_chain_cert=<file> (and "
          "ssl_key=<file> unless the key is in that file)");
    }
    if (options_.network.listen.tcp_port == 0) {
      throw usage_error("-Z/--enable-ssl: TLS needs a TCP port, and -p 0 turns TCP off");
    }
    if (!options_.network.listen.unix_socket.empty()) {
      throw usage_error(
          "-Z/--enable-ssl with -s/--unix-socket: TLS is served on TCP only, and "
          "the UNIX socket would be plaintext; drop one of them");
    }
  }

  server_options& options_;
  int argc_;
  const char* const* argv_;
  int next_word_ = 1;
  bool listen_given_ = false;
  std::size_t napi_ids_ = 0;
  std::size_t shards_ = 0;  // --shards (0: the default)
  bool connection_memory_limit_given_ = false;
  std::string tls_option_given_;  ///< the last ssl_* option given, for check_tls's message
};

}  // namespace

parse_outcome parse_command_line(int argc, const char* const* argv) {
  parse_outcome outcome;
  try {
    command_line_parser parser(outcome.options, argc, argv);
    outcome.what = parser.parse();
    if (outcome.what == action::run) parser.check_combinations();
    // memcached writes its ports there (its tests start it on -p -1 and read them)
    if (const char* port_file = std::getenv("MEMCACHED_PORT_FILENAME"); port_file != nullptr)
      outcome.options.network.listen.port_file = port_file;
  } catch (const usage_error& error) {
    outcome.what = action::error;
    outcome.message = error.what();
  }
  return outcome;
}

}  // namespace gpuhash::server::config

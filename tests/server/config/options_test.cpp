// gpuhash-server's command line: every memcached 1.6.18 flag in its short and long forms, the
// getopt_long forms (glued, clustered, abbreviated), -I's suffixes, -o lists, the flags that are
// accepted without effect, and each way a command line can be wrong.

#include "config/options.hpp"

#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using gpuhash::server::config::help_text;
namespace index = gpuhash::server::index;
namespace store = gpuhash::server::store;
using gpuhash::server::config::parse_command_line;
using gpuhash::server::config::parse_outcome;
using gpuhash::server::config::server_options;
using gpuhash::server::config::tuning_settings;
using action = parse_outcome::action;

parse_outcome parse(const std::vector<std::string>& words) {
  std::vector<const char*> argv{"gpuhash-server"};
  for (const std::string& word : words) argv.push_back(word.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data());
}

server_options parse_ok(const std::vector<std::string>& words) {
  const parse_outcome outcome = parse(words);
  EXPECT_EQ(outcome.what, action::run) << outcome.message;
  return outcome.options;
}

std::string parse_error(const std::vector<std::string>& words) {
  const parse_outcome outcome = parse(words);
  EXPECT_EQ(outcome.what, action::error);
  EXPECT_FALSE(outcome.message.empty());
  return outcome.message;
}

/// The ignored line starting with `prefix`, or "" when there is none.
std::string ignored_line(const server_options& options, const std::string& prefix) {
  for (const std::string& line : options.ignored) {
    if (line.starts_with(prefix)) return line;
  }
  return "";
}

TEST(ServerOptions, DefaultsMatchMemcachedExceptTheListenAddress) {
  const server_options options = parse_ok({});
  EXPECT_EQ(options.network.listen.tcp_port, 11211);
  EXPECT_EQ(options.udp_port, 0);
  EXPECT_EQ(options.network.listen.addresses, "127.0.0.1");
  EXPECT_EQ(options.network.listen.unix_socket, "");
  EXPECT_EQ(options.network.listen.unix_socket_mode, 0700u);
  EXPECT_EQ(options.engine.store.memory_limit, std::size_t{64} << 20);
  EXPECT_EQ(options.network.max_connections, 1024u);
  EXPECT_EQ(options.network.threads, 4u);
  EXPECT_EQ(options.engine.store.item_size_max, 1u << 20);
  EXPECT_EQ(options.network.verbosity, 0);
  EXPECT_TRUE(options.engine.store.evict);
  EXPECT_FALSE(options.engine.shutdown_enabled);
  EXPECT_TRUE(options.engine.store.cas_enabled);
  EXPECT_TRUE(options.engine.flush_enabled);
  EXPECT_TRUE(options.engine.dumping_enabled);
  EXPECT_DOUBLE_EQ(options.engine.store.growth_factor, 1.25);
  EXPECT_EQ(options.engine.store.chunk_size_min, 48u);
  EXPECT_EQ(options.run_as_user, "");
  EXPECT_EQ(options.index, index::placement::automatic);
  EXPECT_EQ(options.engine.batch_max, 32768u);
  EXPECT_EQ(options.engine.batch_wait_us, 0u);
  EXPECT_TRUE(options.ignored.empty());
}

struct valued_flag {
  std::string short_flag;  ///< "" for gpuhash's long-only flags
  std::string long_flag;
  std::string value;
  std::function<void(const server_options&)> check;
};

std::vector<valued_flag> honoured_valued_flags() {
  return {
      {"-p", "--port", "11311", [](auto& o) { EXPECT_EQ(o.network.listen.tcp_port, 11311); }},
      {"-U", "--udp-port", "0", [](auto& o) { EXPECT_EQ(o.udp_port, 0); }},
      {"-s", "--unix-socket", "/tmp/mc.sock",
       [](auto& o) { EXPECT_EQ(o.network.listen.unix_socket, "/tmp/mc.sock"); }},
      {"-a", "--unix-mask", "0660",
       [](auto& o) { EXPECT_EQ(o.network.listen.unix_socket_mode, 0660u); }},
      {"-l", "--listen", "10.0.0.1",
       [](auto& o) { EXPECT_EQ(o.network.listen.addresses, "10.0.0.1"); }},
      {"-u", "--user", "memcache", [](auto& o) { EXPECT_EQ(o.run_as_user, "memcache"); }},
      {"-m", "--memory-limit", "1024",
       [](auto& o) { EXPECT_EQ(o.engine.store.memory_limit, std::size_t{1024} << 20); }},
      {"-c", "--conn-limit", "4096", [](auto& o) { EXPECT_EQ(o.network.max_connections, 4096u); }},
      {"-f", "--slab-growth-factor", "1.07",
       [](auto& o) { EXPECT_DOUBLE_EQ(o.engine.store.growth_factor, 1.07); }},
      {"-n", "--slab-min-size", "96",
       [](auto& o) { EXPECT_EQ(o.engine.store.chunk_size_min, 96u); }},
      {"-t", "--threads", "16", [](auto& o) { EXPECT_EQ(o.network.threads, 16u); }},
      {"-I", "--max-item-size", "2m",
       [](auto& o) { EXPECT_EQ(o.engine.store.item_size_max, 2u << 20); }},
      {"", "--index", "gpu", [](auto& o) { EXPECT_EQ(o.index, index::placement::gpu); }},
      {"", "--batch-max", "1024", [](auto& o) { EXPECT_EQ(o.engine.batch_max, 1024u); }},
      {"", "--batch-wait-us", "50", [](auto& o) { EXPECT_EQ(o.engine.batch_wait_us, 50u); }},
  };
}

TEST(ServerOptions, ValuedFlagsInEveryForm) {
  for (const valued_flag& flag : honoured_valued_flags()) {
    SCOPED_TRACE(flag.long_flag);
    std::vector<std::vector<std::string>> forms = {{flag.long_flag + "=" + flag.value},
                                                   {flag.long_flag, flag.value}};
    if (!flag.short_flag.empty()) {
      forms.push_back({flag.short_flag, flag.value});
      forms.push_back({flag.short_flag + flag.value});
    }
    for (const auto& form : forms) {
      const server_options options = parse_ok(form);
      flag.check(options);
      EXPECT_TRUE(options.ignored.empty()) << options.ignored.front();
    }
  }
}

TEST(ServerOptions, SwitchesInShortAndLongForm) {
  const std::vector<std::pair<std::vector<std::string>, std::function<void(const server_options&)>>>
      switches = {
          {{"-A", "--enable-shutdown"}, [](auto& o) { EXPECT_TRUE(o.engine.shutdown_enabled); }},
          {{"-M", "--disable-evictions"}, [](auto& o) { EXPECT_FALSE(o.engine.store.evict); }},
          {{"-C", "--disable-cas"}, [](auto& o) { EXPECT_FALSE(o.engine.store.cas_enabled); }},
          {{"-F", "--disable-flush-all"}, [](auto& o) { EXPECT_FALSE(o.engine.flush_enabled); }},
          {{"-X", "--disable-dumping"}, [](auto& o) { EXPECT_FALSE(o.engine.dumping_enabled); }},
          {{"-v", "--verbose"}, [](auto& o) { EXPECT_EQ(o.network.verbosity, 1); }},
      };
  for (const auto& [forms, check] : switches) {
    for (const std::string& form : forms) {
      SCOPED_TRACE(form);
      const server_options options = parse_ok({form});
      check(options);
      EXPECT_TRUE(options.ignored.empty());
    }
  }
}

TEST(ServerOptions, VerbosityCounts) {
  EXPECT_EQ(parse_ok({"-v", "-v"}).network.verbosity, 2);
  EXPECT_EQ(parse_ok({"-vv"}).network.verbosity, 2);
  EXPECT_EQ(parse_ok({"-vvv"}).network.verbosity, 3);
  EXPECT_EQ(parse_ok({"--verbose", "--verbose", "-v"}).network.verbosity, 3);
  // memcached's --verbose takes an optional value and ignores it: one level per use.
  EXPECT_EQ(parse_ok({"--verbose=3"}).network.verbosity, 1);
  // The value is optional, so it must be glued with '='; a separate word is not a flag.
  const server_options separate = parse_ok({"--verbose", "3"});
  EXPECT_EQ(separate.network.verbosity, 1);
  EXPECT_NE(ignored_line(separate, "\"3\""), "");
  EXPECT_EQ(parse_error({"-v3"}), "invalid option -- '3'");
}

TEST(ServerOptions, ClusteredShortFlags) {
  const server_options options = parse_ok({"-dM"});
  EXPECT_FALSE(options.engine.store.evict);
  EXPECT_EQ(ignored_line(options, "-d:"),
            "-d: daemon mode is not supported; gpuhash-server runs in the foreground");

  // A flag that takes a value ends the cluster: the rest of the word, or the next word.
  const server_options glued = parse_ok({"-vMCp11311"});
  EXPECT_EQ(glued.network.verbosity, 1);
  EXPECT_FALSE(glued.engine.store.evict);
  EXPECT_FALSE(glued.engine.store.cas_enabled);
  EXPECT_EQ(glued.network.listen.tcp_port, 11311);
  EXPECT_EQ(parse_ok({"-Mp", "11311"}).network.listen.tcp_port, 11311);
  EXPECT_EQ(parse_ok({"-vm64"}).engine.store.memory_limit, std::size_t{64} << 20);

  EXPECT_EQ(parse_error({"-vd2"}), "invalid option -- '2'");
}

TEST(ServerOptions, AValueMayStartWithADash) {
  // getopt gives a flag that needs a value the next word, whatever it is.
  EXPECT_EQ(parse_error({"-p", "-v"}), "-p/--port: \"-v\" is not a number");
  EXPECT_EQ(parse_ok({"-u", "-v"}).run_as_user, "-v");
}

TEST(ServerOptions, LongNamesMayBeAbbreviated) {
  EXPECT_EQ(parse_ok({"--memory-l=128"}).engine.store.memory_limit, std::size_t{128} << 20);
  EXPECT_EQ(parse_ok({"--thr", "8"}).network.threads, 8u);
  EXPECT_EQ(parse_ok({"--index=cpu"}).index, index::placement::cpu);
  EXPECT_EQ(parse(std::vector<std::string>{"--he"}).what, action::print_help);
  EXPECT_EQ(parse_error({"--mem=32"}),
            "option '--mem=32' is ambiguous; possibilities: '--memory-limit' '--memory-file'");
  EXPECT_NE(parse_error({"--batch=5"}).find("is ambiguous"), std::string::npos);
}

TEST(ServerOptions, NapiIdsUnderBothSpellings) {
  // memcached's help spells it --napi_ids; its getopt knows --napi-ids. Both work here.
  for (const std::string form : {"--napi-ids=2", "--napi_ids=2", "--napi=2", "-N2"}) {
    SCOPED_TRACE(form);
    EXPECT_EQ(ignored_line(parse_ok({form}), "-N 2:"),
              "-N 2: NAPI ID thread selection is not supported");
  }
}

TEST(ServerOptions, ItemSizeSuffixes) {
  const std::vector<std::pair<std::string, std::size_t>> sizes = {
      {"1024", 1024},   {"1k", 1024},     {"1K", 1024},       {"512k", 512 << 10},
      {"2m", 2u << 20}, {"2M", 2u << 20}, {"32m", 32u << 20}, {"2097152", 2u << 20},
  };
  for (const auto& [text, bytes] : sizes) {
    SCOPED_TRACE(text);
    // below 512k, as memcached, -I needs a slab_chunk_max that divides it
    EXPECT_EQ(parse_ok({"-I", text, "-o", "slab_chunk_max=1024"}).engine.store.item_size_max,
              bytes);
  }
  EXPECT_EQ(parse_ok({"-m", "2048", "-I", "1g"}).engine.store.item_size_max, std::size_t{1} << 30);
  EXPECT_EQ(parse_ok({"-m", "2048", "-I", "1024m"}).engine.store.item_size_max,
            std::size_t{1} << 30);
  EXPECT_EQ(parse_ok({"-m", "4096", "-I", "1G"}).engine.store.item_size_max, std::size_t{1} << 30);
}

TEST(ServerOptions, ItemSizeLimits) {
  EXPECT_EQ(parse_error({"-I", "1000"}), "-I/--max-item-size: 1000 is less than 1k");
  EXPECT_EQ(parse_error({"-I", "0k"}), "-I/--max-item-size: 0k is less than 1k");
  EXPECT_EQ(parse_error({"-m", "4096", "-I", "1025m"}),
            "-I/--max-item-size: 1025m is more than 1g");
  EXPECT_EQ(parse_error({"-m", "8192", "-I", "2g"}), "-I/--max-item-size: 2g is more than 1g");
  EXPECT_EQ(parse_error({"-I", "99999999999999999999"}),
            "-I/--max-item-size: 99999999999999999999 is more than 1g");
  EXPECT_EQ(parse_error({"-I", "9007199254740993k"}),
            "-I/--max-item-size: 9007199254740993k is more than 1g");
  EXPECT_EQ(parse_error({"-I", "-1k"}), "-I/--max-item-size: -1k is less than 1k");
  EXPECT_EQ(parse_error({"-I", "-99999999999999999999"}),
            "-I/--max-item-size: -99999999999999999999 is less than 1k");
  for (const std::string bad : {"abc", "5x", "m", "", "k1", "1.5m", " 2m", "+2m", "2mb"}) {
    SCOPED_TRACE(bad);
    EXPECT_NE(parse_error({"-I", bad}).find("is not a number"), std::string::npos);
  }
}

TEST(ServerOptions, ItemSizeAndSlabChunkMaxAsMemcachedChecksThem) {
  // the store takes memcached's slab_chunk_max: half a page, or as given
  EXPECT_EQ(parse_ok({}).engine.store.slab_chunk_max, 512u << 10);
  EXPECT_TRUE(parse_ok({}).engine.store.slab_reassign);
  EXPECT_EQ(parse_ok({"-o", "slab_chunk_max=16384"}).engine.store.slab_chunk_max, 16384u);
  EXPECT_EQ(parse_ok({"-o", "no_chunked_items"}).engine.store.slab_chunk_max, 1u << 20);
  const server_options old = parse_ok({"-o", "no_modern"});
  EXPECT_EQ(old.engine.store.slab_chunk_max, 1u << 20);
  EXPECT_FALSE(old.engine.store.slab_reassign);
  // an -I above 1m chunks at half a page unless slab_chunk_max was given
  EXPECT_EQ(parse_ok({"-I", "2m", "-o", "no_chunked_items"}).tuning.slab_chunk_max, 512 << 10);
  EXPECT_EQ(parse_ok({"-I", "2m", "-o", "slab_chunk_max=1048576"}).engine.store.slab_chunk_max,
            1u << 20);
  EXPECT_EQ(parse_error({"-I", "100k"}),
            "-I/--max-item-size: 102400 bytes is less than slab_chunk_max (524288 bytes); raise "
            "-I or lower -o slab_chunk_max");
  EXPECT_EQ(parse_error({"-I", "1500k"}),
            "-I/--max-item-size: 1536000 bytes is not a multiple of slab_chunk_max (524288 "
            "bytes)");
  EXPECT_EQ(parse_error({"-o", "slab_chunk_max=32"}),
            "-o/--extended slab_chunk_max: 32 bytes must be more than 48 and divide the 1 MB "
            "slab page");
  EXPECT_NE(parse_error({"-o", "slab_chunk_max=1000"}).find("not a multiple"), std::string::npos);
}

TEST(ServerOptions, ItemSizeAtMostHalfTheMemoryInEitherOrder) {
  EXPECT_EQ(parse_ok({"-m", "64", "-I", "32m"}).engine.store.item_size_max, 32u << 20);
  EXPECT_EQ(parse_ok({"-I", "32m", "-m", "64"}).engine.store.item_size_max, 32u << 20);
  EXPECT_EQ(parse_error({"-I", "64m", "-m", "64"}),
            "-I/--max-item-size: 67108864 bytes is more than half of -m (64 megabytes)");
  // The default -I of 1m needs -m 2 or more, as in memcached.
  EXPECT_NE(parse_error({"-m", "1"}).find("more than half of -m"), std::string::npos);
  EXPECT_EQ(parse_ok({"-m", "2"}).engine.store.memory_limit, std::size_t{2} << 20);
}

TEST(ServerOptions, ListenAddressesAddUp) {
  EXPECT_EQ(parse_ok({"-l", "0.0.0.0"}).network.listen.addresses, "0.0.0.0");
  EXPECT_EQ(
      parse_ok({"-l", "10.0.0.1", "-l", "10.0.0.2", "-l", "10.0.0.1"}).network.listen.addresses,
      "10.0.0.1,10.0.0.2");
  // memcached skips an address that is a substring of one already listed; here only repeats.
  EXPECT_EQ(parse_ok({"-l", "10.0.0.1", "-l", "0.0.1"}).network.listen.addresses, "10.0.0.1,0.0.1");
  EXPECT_EQ(parse_ok({"-l", "127.0.0.1,::1"}).network.listen.addresses, "127.0.0.1,::1");
}

TEST(ServerOptions, UdpPortsAreRefused) {
  // UDP is not served: -U 0 (memcached 1.6's default) is the one value taken.
  EXPECT_TRUE(parse_ok({"-U", "0"}).ignored.empty());
  EXPECT_EQ(parse_error({"-U", "11311"}),
            "-U/--udp-port 11311: UDP is not served; leave -U at 0 (memcached 1.6's default)");
  EXPECT_NE(parse_error({"-p", "1234", "--udp-port=11311"}).find("UDP is not served"),
            std::string::npos);
  // memcached's -U -1 (a port the kernel picks) too
  EXPECT_NE(parse_error({"-U", "-1"}).find("-U/--udp-port -1: UDP is not served"),
            std::string::npos);
}

TEST(ServerOptions, TcpPortsAsMemcachedTakesThem) {
  // -1: a port the kernel picks; 0: no TCP, which needs a unix socket (no UDP here)
  EXPECT_EQ(parse_ok({"-p", "-1"}).network.listen.tcp_port, -1);
  EXPECT_EQ(parse_ok({"-p", "0", "-s", "/tmp/cache.sock"}).network.listen.tcp_port, 0);
  EXPECT_NE(parse_error({"-p", "0"}).find("-p/--port 0: TCP is off"), std::string::npos);
  EXPECT_EQ(parse_error({"-p", "-2"}), "-p/--port: -2 is out of range (-1..65535)");
}

TEST(ServerOptions, PortFileFromTheEnvironmentAsMemcached) {
  EXPECT_EQ(parse_ok({}).network.listen.port_file, "");
  ::setenv("MEMCACHED_PORT_FILENAME", "/tmp/ports", 1);
  const server_options options = parse_ok({"-p", "-1"});
  ::unsetenv("MEMCACHED_PORT_FILENAME");
  EXPECT_EQ(options.network.listen.port_file, "/tmp/ports");
}

TEST(ServerOptions, BacklogAndProtocol) {
  EXPECT_EQ(parse_ok({}).network.listen.backlog, 1024);
  EXPECT_EQ(parse_ok({"-b", "8675"}).network.listen.backlog, 8675);
  EXPECT_EQ(parse_ok({"--listen-backlog=2048"}).network.listen.backlog, 2048);
  // the text protocol is the one served: ascii and auto serve it, binary is refused
  EXPECT_EQ(parse_ok({}).tuning.binding_protocol, "auto-negotiate");
  EXPECT_EQ(parse_ok({"-B", "ascii"}).tuning.binding_protocol, "ascii");
  EXPECT_EQ(parse_ok({"--protocol=auto"}).tuning.binding_protocol, "auto-negotiate");
  EXPECT_TRUE(parse_ok({"-B", "ascii", "-b", "10"}).ignored.empty());
  EXPECT_EQ(parse_error({"-B", "binary"}),
            "-B/--protocol binary: gpuhash-server serves memcached's text protocol only (classic "
            "and meta commands); use -B ascii or -B auto");
  EXPECT_EQ(parse_error({"-B", "text"}),
            "-B/--protocol: \"text\" is not one of auto, ascii, binary");
}

TEST(ServerOptions, MemcachedsOwnSettingsAreRecorded) {
  // without effect here, but shown in `stats settings` as memcached shows them
  const server_options options =
      parse_ok({"-D", "#", "-N", "2", "-t", "4", "-e", "/dev/shm/m", "-o",
                "hashpower=20,idle_timeout=5,no_lru_crawler,temporary_ttl=10,hot_lru_pct=30,"
                "watcher_logbuf_size=128,ext_wbuf_size=8,ext_max_frag=0.5,hash_algorithm=xxh3,"
                "slab_automove"});
  const tuning_settings& tuning = options.tuning;
  EXPECT_EQ(tuning.stat_key_prefix, '#');
  EXPECT_EQ(tuning.napi_ids, "2");
  EXPECT_EQ(tuning.memory_file, "/dev/shm/m");
  EXPECT_EQ(tuning.hashpower_init, 20);
  EXPECT_EQ(tuning.idle_timeout, 5);
  EXPECT_FALSE(tuning.lru_crawler);
  EXPECT_EQ(tuning.temporary_ttl, 10);
  EXPECT_EQ(tuning.hot_lru_pct, 30);
  EXPECT_EQ(tuning.watcher_logbuf_size, 128 * 1024);
  EXPECT_EQ(tuning.extstore.wbuf_size, 8u << 20);
  EXPECT_EQ(tuning.extstore.max_frag, 0.5);
  EXPECT_EQ(tuning.hash_algorithm, "xxh3");
  EXPECT_EQ(tuning.slab_automove, 1);
  // no_modern: memcached's older defaults at once
  const tuning_settings old = parse_ok({"-o", "no_modern"}).tuning;
  EXPECT_FALSE(old.slab_reassign || old.maxconns_fast || old.lru_maintainer || old.lru_crawler);
  EXPECT_EQ(old.slab_automove, 0);
  EXPECT_EQ(old.slab_chunk_max, 1024 * 1024);
  EXPECT_EQ(old.hash_algorithm, "jenkins");
}

TEST(ServerOptions, SecurityFlagsAreHonouredOrRefused) {
  // -S: SASL belongs to memcached's binary protocol, not served here.
  for (const std::string_view form : {"-S", "--enable-sasl"}) {
    const std::string message = parse_error({std::string(form)});
    EXPECT_NE(message.find("SASL"), std::string::npos) << message;
    EXPECT_NE(message.find("-Y"), std::string::npos) << "the message names the alternatives";
  }
  // -Y: the authentication file.
  EXPECT_EQ(parse_ok({"-Y", "/etc/memcached.auth"}).network.auth_file, "/etc/memcached.auth");
  EXPECT_EQ(parse_ok({"--auth-file=/etc/memcached.auth"}).network.auth_file, "/etc/memcached.auth");
  EXPECT_TRUE(parse_ok({"-Y", "/etc/memcached.auth"}).ignored.empty());
  // -o drop_privileges asks for a sandbox that is not there; its opposite asks for nothing.
  EXPECT_NE(parse_error({"-o", "drop_privileges"}).find("seccomp"), std::string::npos);
  EXPECT_EQ(parse_ok({"-o", "no_drop_privileges"}).ignored.size(), 1u);
}

TEST(ServerOptions, TlsOptions) {
  const server_options options = parse_ok(
      {"-Z", "-o",
       "ssl_chain_cert=/etc/chain.pem,ssl_key=/etc/key.pem,ssl_verify_mode=2,ssl_keyformat=2,"
       "ssl_ciphers=HIGH,ssl_ca_cert=/etc/ca.pem,ssl_wbuf_size=32,ssl_session_cache,"
       "ssl_kernel_tls,ssl_min_version=3"});
  EXPECT_TRUE(options.ignored.empty());
  const auto& tls = options.network.tls;
  EXPECT_TRUE(tls.enabled);
  EXPECT_EQ(tls.chain_cert, "/etc/chain.pem");
  EXPECT_EQ(tls.key, "/etc/key.pem");
  EXPECT_EQ(tls.verify_mode, 2);
  EXPECT_EQ(tls.keyformat, 2);
  EXPECT_EQ(tls.ciphers, "HIGH");
  EXPECT_EQ(tls.ca_cert, "/etc/ca.pem");
  EXPECT_EQ(tls.write_size, 32u << 10);
  EXPECT_TRUE(tls.session_cache);
  EXPECT_TRUE(tls.kernel_tls);
  EXPECT_EQ(tls.min_version, 3);
  EXPECT_FALSE(parse_ok({}).network.tls.enabled);
  // TLS is refused where it could not cover what it was asked to.
  EXPECT_NE(parse_error({"-Z"}).find("ssl_chain_cert"), std::string::npos);
  EXPECT_NE(parse_error({"-o", "ssl_chain_cert=/etc/chain.pem"}).find("need -Z"),
            std::string::npos);
  const std::vector<std::string> with_cert = {"-Z", "-o", "ssl_chain_cert=/etc/chain.pem"};
  auto with = [&](std::vector<std::string> more) {
    more.insert(more.begin(), with_cert.begin(), with_cert.end());
    return more;
  };
  EXPECT_NE(parse_error(with({"-p", "0", "-s", "/tmp/s"})).find("TCP port"), std::string::npos);
  EXPECT_NE(parse_error(with({"-s", "/tmp/mc.sock"})).find("plaintext"), std::string::npos);
  EXPECT_EQ(parse_ok(with({"-l", "127.0.0.1,notls:127.0.0.1:11212"})).network.listen.addresses,
            "127.0.0.1,notls:127.0.0.1:11212");
  EXPECT_NE(parse_error({"-l", "notls:127.0.0.1"}).find("only when TLS is enabled"),
            std::string::npos);
  EXPECT_NE(parse_error(with({"-o", "ssl_keyformat=3"})).find("out of range"), std::string::npos);
}

TEST(ServerOptions, ConnectionMemoryLimit) {
  constexpr std::size_t megabyte = 1u << 20;
  // default: a quarter of -m, at least 8 MB and four times -I
  EXPECT_EQ(parse_ok({}).network.memory_limit, 16 * megabyte);
  EXPECT_EQ(parse_ok({"-m", "1024"}).network.memory_limit, 256 * megabyte);
  EXPECT_EQ(parse_ok({"-m", "8"}).network.memory_limit, 8 * megabyte);
  EXPECT_EQ(parse_ok({"-m", "64", "-I", "16m"}).network.memory_limit, 64 * megabyte);
  const server_options given = parse_ok({"-o", "read_buf_mem_limit=100"});
  EXPECT_EQ(given.network.memory_limit, 100 * megabyte);
  EXPECT_TRUE(given.ignored.empty());
  EXPECT_EQ(parse_ok({"-o", "read_buf_mem_limit=0"}).network.memory_limit, 0u);  // no limit
  EXPECT_NE(parse_error({"-o", "read_buf_mem_limit=3"}).find("four times -I"), std::string::npos);
  EXPECT_EQ(parse_ok({"-o", "read_buf_mem_limit=4"}).network.memory_limit, 4 * megabyte);
}

TEST(ServerOptions, RequestsPerEvent) {
  // -R: one connection's requests in one worker round, as memcached's per event
  EXPECT_EQ(parse_ok({}).network.requests_per_event, 20u);
  const server_options given = parse_ok({"-R", "5"});
  EXPECT_EQ(given.network.requests_per_event, 5u);
  EXPECT_TRUE(given.ignored.empty());
  EXPECT_EQ(parse_ok({"--max-reqs-per-event=1"}).network.requests_per_event, 1u);
}

TEST(ServerOptions, IgnoredFlagsAreRecordedOneLineEach) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"-d"}, "-d:"},
      {{"--daemon"}, "-d:"},
      {{"-r"}, "-r:"},
      {{"--enable-coredumps"}, "-r:"},
      {{"-k"}, "-k:"},
      {{"--lock-memory"}, "-k:"},
      {{"-P", "/run/memcached.pid"}, "-P /run/memcached.pid:"},
      {{"--pidfile=/run/memcached.pid"}, "-P /run/memcached.pid:"},
      {{"-L"}, "-L:"},
      {{"--enable-largepages"}, "-L:"},
      {{"-D", ":"}, "-D ::"},
      {{"-D#"}, "-D #:"},
      {{"-W"}, "-W:"},
      {{"--disable-watch"}, "-W:"},
      {{"-e", "/dev/shm/memory"}, "-e /dev/shm/memory:"},
      {{"--memory-file", "/dev/shm/memory"}, "-e /dev/shm/memory:"},
      {{"-N", "4"}, "-N 4:"},
      {{"--napi-ids=4"}, "-N 4:"},
  };
  for (const auto& [words, prefix] : cases) {
    SCOPED_TRACE(words.front());
    const server_options options = parse_ok(words);
    ASSERT_EQ(options.ignored.size(), 1u);
    EXPECT_TRUE(options.ignored.front().starts_with(prefix)) << options.ignored.front();
    EXPECT_GT(options.ignored.front().size(), prefix.size() + 10) << "the line says why";
  }
  EXPECT_EQ(parse_ok({"-d", "-d", "--daemon"}).ignored.size(), 1u);
  EXPECT_EQ(parse_ok({"-d", "-k", "-r"}).ignored.size(), 3u);
}

TEST(ServerOptions, WordsThatAreNotFlagsAreSkippedAsMemcachedSkipsThem) {
  const server_options options = parse_ok({"stray", "-p", "1234", "-"});
  EXPECT_EQ(options.network.listen.tcp_port, 1234);
  EXPECT_NE(ignored_line(options, "\"stray\""), "");
  EXPECT_NE(ignored_line(options, "\"-\""), "");
  // "--" ends the flags.
  const server_options ended = parse_ok({"-v", "--", "-p", "1234"});
  EXPECT_EQ(ended.network.verbosity, 1);
  EXPECT_EQ(ended.network.listen.tcp_port, 11211);
  EXPECT_NE(ignored_line(ended, "\"-p\""), "");
}

TEST(ServerOptions, ExtendedOptionLists) {
  const server_options options =
      parse_ok({"-o", "slab_reassign,slab_automove=1,hashpower=20", "--extended=modern"});
  EXPECT_EQ(options.ignored.size(), 4u);
  EXPECT_EQ(ignored_line(options, "-o hashpower=20"),
            "-o hashpower=20: gpuhash-server's index sizes and hashes itself");
  EXPECT_NE(ignored_line(options, "-o slab_automove=1:"), "");
  EXPECT_NE(ignored_line(options, "-o modern:"), "");
  EXPECT_EQ(parse_ok({"-otail_repair_time=60"}).ignored.size(), 1u);
  EXPECT_TRUE(parse_ok({"-oslab_chunk_max=16384,no_chunked_items"}).ignored.empty());
  // getsubopt's splitting: an empty list and a trailing comma are fine, an empty entry is not.
  EXPECT_TRUE(parse_ok({"-o", ""}).ignored.empty());
  EXPECT_EQ(parse_ok({"-o", "hashpower=16,"}).ignored.size(), 1u);
  EXPECT_EQ(parse_error({"-o", ","}), "-o/--extended: illegal suboption \"\"");
  EXPECT_EQ(parse_error({"-o", "modern,,track_sizes"}), "-o/--extended: illegal suboption \"\"");
  // Switches take no value, and memcached ignores one given anyway.
  EXPECT_EQ(parse_ok({"-o", "no_lru_crawler=5"}).ignored.size(), 1u);
  EXPECT_EQ(ignored_line(parse_ok({"-o", "ext_path=/mnt/extstore:64G"}), "-o ext_path"),
            "-o ext_path=/mnt/extstore:64G: external storage (extstore) is not supported");
}

// The tuning options of memcached's -o: accepted, with a line each saying why
// they have no effect. (read_buf_mem_limit, ssl_* and the segmented LRU's
// apply: see above and below; drop_privileges is refused.)
TEST(ServerOptions, EveryExtendedTuningOptionOfMemcachedIsAccepted) {
  const std::vector<std::string> entries = {
      "maxconns_fast",
      "no_maxconns_fast",
      "hashpower=16",
      "no_hashexpand",
      "hash_algorithm=jenkins",
      "hash_algorithm=murmur3",
      "hash_algorithm=xxh3",
      "slab_reassign",
      "no_slab_reassign",
      "slab_automove",
      "slab_automove=2",
      "no_slab_automove",
      "slab_automove_ratio=0.8",
      "slab_automove_window=30",
      "slab_sizes=96-192-384",
      "tail_repair_time=60",
      "lru_crawler",
      "no_lru_crawler",
      "lru_crawler_sleep=100",
      "lru_crawler_tocrawl=0",
      "track_sizes",
      "modern",
      "no_modern",
      "idle_timeout=600",
      "resp_obj_mem_limit",
      "inline_ascii_resp",
      "no_inline_ascii_resp",
      "sock_cookie_id=7",
      "watcher_logbuf_size=256",
      "worker_logbuf_size=64",
      "no_drop_privileges",
      "ext_path=/mnt/ext:1G",
      "ext_page_size=64",
      "ext_wbuf_size=4",
      "ext_threads=1",
      "ext_io_depth=1",
      "ext_item_size=512",
      "ext_item_age=3600",
      "ext_low_ttl=0",
      "ext_recache_rate=2000",
      "ext_compact_under=8",
      "ext_drop_under=4",
      "ext_max_sleep=1000000",
      "ext_max_frag=0.8",
      "ext_drop_unread",
      "slab_automove_freeratio=0.01",
  };
  for (const std::string& entry : entries) {
    SCOPED_TRACE(entry);
    const server_options options = parse_ok({"-o", entry});
    ASSERT_EQ(options.ignored.size(), 1u);
    EXPECT_TRUE(options.ignored.front().starts_with("-o " + entry + ": "));
  }
}

TEST(ServerOptions, ExtendedOptionErrors) {
  EXPECT_EQ(parse_error({"-o", "bogus"}), "-o/--extended: illegal suboption \"bogus\"");
  EXPECT_EQ(parse_error({"-o", "modern,bogus=1"}), "-o/--extended: illegal suboption \"bogus=1\"");
  EXPECT_EQ(parse_error({"-o", "hashpower"}), "-o/--extended hashpower: a value is required");
  EXPECT_EQ(parse_error({"-o", "hashpower="}), "-o/--extended hashpower: a value is required");
  EXPECT_EQ(parse_error({"-o", "hashpower=5"}),
            "-o/--extended hashpower: 5 is out of range (12..32)");
  EXPECT_EQ(parse_error({"-o", "hashpower=x"}), "-o/--extended hashpower: \"x\" is not a number");
  EXPECT_EQ(parse_error({"-o", "slab_automove=3"}),
            "-o/--extended slab_automove: 3 is out of range (0..2)");
  EXPECT_EQ(parse_error({"-o", "slab_automove_ratio=0"}),
            "-o/--extended slab_automove_ratio: 0 is out of range (more than 0, at most 1)");
  EXPECT_EQ(parse_error({"-o", "slab_automove_ratio=1.5"}),
            "-o/--extended slab_automove_ratio: 1.5 is out of range (more than 0, at most 1)");
  EXPECT_EQ(parse_error({"-o", "hot_max_factor=-1"}),
            "-o/--extended hot_max_factor: -1 is out of range (more than 0, at most inf)");
  EXPECT_EQ(parse_error({"-o", "ext_max_frag=nan"}),
            "-o/--extended ext_max_frag: \"nan\" is not a number");
  EXPECT_EQ(parse_error({"-o", "hash_algorithm=md5"}),
            "-o/--extended hash_algorithm: \"md5\" is not one of jenkins, murmur3, xxh3");
  EXPECT_NE(parse_error({"-o", "tail_repair_time=5"}).find("out of range"), std::string::npos);
  EXPECT_NE(parse_error({"-o", "lru_crawler_sleep=1000001"}).find("out of range"),
            std::string::npos);
  EXPECT_NE(parse_error({"-o", "lru_crawler_tocrawl=abc"}).find("not a number"), std::string::npos);
  EXPECT_NE(parse_error({"-o", "ssl_verify_mode=4"}).find("out of range"), std::string::npos);
  EXPECT_NE(parse_error({"-o", "ext_path"}).find("a value is required"), std::string::npos);
  EXPECT_NE(parse_error({"-o", "hot_lru_pct=80"}).find("out of range"), std::string::npos);
}

TEST(ServerOptions, ExtendedOptionsCheckedTogetherAsMemcachedDoes) {
  EXPECT_EQ(parse_error({"-o", "hot_lru_pct=50,warm_lru_pct=40"}),
            "-o/--extended: hot_lru_pct + warm_lru_pct cannot be more than 80");
  EXPECT_EQ(parse_error({"-o", "hot_lru_pct=50"}),
            "-o/--extended: hot_lru_pct + warm_lru_pct cannot be more than 80");
  EXPECT_TRUE(parse_ok({"-o", "hot_lru_pct=40,warm_lru_pct=40"}).ignored.empty());
  EXPECT_EQ(parse_error({"-o", "temporary_ttl=5,no_lru_maintainer"}),
            "-o/--extended: temporary_ttl requires lru_maintainer");
  EXPECT_NE(parse_error({"-o", "no_modern", "-o", "temporary_ttl=5"}).find("lru_maintainer"),
            std::string::npos);
  EXPECT_EQ(parse_ok({"-o", "no_modern,lru_maintainer,temporary_ttl=5"}).ignored.size(), 1u);
}

TEST(ServerOptions, TheSegmentedLruIsTheStores) {
  const store::lru_settings defaults = parse_ok({}).engine.store.lru;
  EXPECT_TRUE(defaults.maintainer);
  EXPECT_TRUE(defaults.segmented);
  EXPECT_EQ(defaults.hot_lru_pct, 20u);
  EXPECT_EQ(defaults.warm_lru_pct, 40u);
  EXPECT_EQ(defaults.hot_max_factor, 0.2);
  EXPECT_EQ(defaults.warm_max_factor, 2.0);
  const server_options tuned =
      parse_ok({"-o", "hot_lru_pct=10,warm_lru_pct=50,hot_max_factor=0.5,warm_max_factor=3"});
  EXPECT_TRUE(tuned.ignored.empty());
  const store::lru_settings& store = tuned.engine.store.lru;
  EXPECT_EQ(store.hot_lru_pct, 10u);
  EXPECT_EQ(store.warm_lru_pct, 50u);
  EXPECT_EQ(store.hot_max_factor, 0.5);
  EXPECT_EQ(store.warm_max_factor, 3.0);
  EXPECT_EQ(tuned.tuning.hot_lru_pct, 10);  // `stats settings` shows them
  // one LRU per class, memcached's COLD, as memcached without its maintainer
  EXPECT_FALSE(parse_ok({"-o", "no_lru_maintainer"}).engine.store.lru.segmented);
  EXPECT_FALSE(parse_ok({"-o", "no_lru_maintainer"}).engine.store.lru.maintainer);
  EXPECT_FALSE(parse_ok({"-o", "no_modern"}).engine.store.lru.segmented);
  EXPECT_TRUE(parse_ok({"-o", "no_modern,lru_maintainer"}).engine.store.lru.segmented);
  // memcached's temp_lru: TEMP for items expiring within temporary_ttl
  EXPECT_FALSE(defaults.temp_lru);
  const server_options temp = parse_ok({"-o", "temporary_ttl=30"});
  EXPECT_TRUE(temp.ignored.empty());
  EXPECT_TRUE(temp.engine.store.lru.temp_lru);
  EXPECT_EQ(temp.engine.store.lru.temporary_ttl, 30u);
  EXPECT_EQ(temp.tuning.temporary_ttl, 30);  // `stats settings` shows it
  EXPECT_EQ(parse_ok({"-o", "temporary_ttl=0"}).engine.store.lru.temporary_ttl, 0u);
  EXPECT_EQ(parse_error({"-o", "temporary_ttl=-1"}),
            "-o/--extended temporary_ttl: -1 is out of range (0..2147483647)");
}

TEST(ServerOptions, IndexAutoSizesItsCalibrationByTheMemoryAndLogsAtV) {
  // -m 64 over 4 shards (-t 4), in items of 48 + 48 bytes
  const auto defaults = parse_ok({});
  EXPECT_EQ(defaults.index_auto.shard_entries, (64u << 20) / 4 / 96);
  EXPECT_FALSE(defaults.index_auto.log_moves);
  const auto larger = parse_ok({"-m", "1024", "-n", "80", "--shards=2", "-v"});
  EXPECT_EQ(larger.index_auto.shard_entries, (1024u << 20) / 2 / 128);
  EXPECT_TRUE(larger.index_auto.log_moves);
}

TEST(ServerOptions, GpuhashFlags) {
  EXPECT_EQ(parse_ok({"--index=auto"}).index, index::placement::automatic);
  EXPECT_EQ(parse_ok({"--index=gpu"}).index, index::placement::gpu);
  EXPECT_EQ(parse_ok({"--index", "cpu"}).index, index::placement::cpu);
  EXPECT_EQ(parse_ok({"--batch-max=1"}).engine.batch_max, 1u);
  EXPECT_EQ(parse_ok({"--batch-max=1048576"}).engine.batch_max, 1048576u);
  EXPECT_EQ(parse_ok({"--batch-wait-us=1000000"}).engine.batch_wait_us, 1000000u);
  EXPECT_EQ(parse_ok({}).network.spin_us, 0u);
  EXPECT_EQ(parse_ok({"--spin-us", "75"}).network.spin_us, 75u);
  EXPECT_EQ(parse_error({"--index=tpu"}), "--index: \"tpu\" is not one of auto, gpu, cpu");
  EXPECT_EQ(parse_error({"--batch-max=0"}), "--batch-max: 0 is out of range (1..1048576)");
  EXPECT_EQ(parse_error({"--batch-max=1048577"}),
            "--batch-max: 1048577 is out of range (1..1048576)");
  EXPECT_EQ(parse_error({"--batch-wait-us=1000001"}),
            "--batch-wait-us: 1000001 is out of range (0..1000000)");
  EXPECT_EQ(parse_error({"--batch-wait-us=-1"}),
            "--batch-wait-us: -1 is out of range (0..1000000)");
  EXPECT_EQ(parse_error({"--spin-us=-1"}), "--spin-us: -1 is out of range (0..100000)");
  EXPECT_EQ(parse_error({"--batch-wait-us=soon"}), "--batch-wait-us: \"soon\" is not a number");
}

TEST(ServerOptions, GetoptErrors) {
  EXPECT_EQ(parse_error({"-x"}), "invalid option -- 'x'");
  EXPECT_EQ(parse_error({"-vx"}), "invalid option -- 'x'");
  EXPECT_EQ(parse_error({"--bogus"}), "unrecognized option '--bogus'");
  EXPECT_EQ(parse_error({"--daemonx"}), "unrecognized option '--daemonx'");
  EXPECT_EQ(parse_error({"--daemon=1"}), "option '--daemon' doesn't allow an argument");
  EXPECT_EQ(parse_error({"-p"}), "option requires an argument -- 'p'");
  EXPECT_EQ(parse_error({"-vp"}), "option requires an argument -- 'p'");
  EXPECT_EQ(parse_error({"--port"}), "option '--port' requires an argument");
  EXPECT_EQ(parse_error({"--po"}), "option '--port' requires an argument");
}

TEST(ServerOptions, BadValuesNameTheFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"-p", "abc"}, "-p/--port: \"abc\" is not a number"},
      {{"-p", ""}, "-p/--port: \"\" is not a number"},
      {{"--port=65536"}, "-p/--port: 65536 is out of range (-1..65535)"},
      {{"-p", "-3"}, "-p/--port: -3 is out of range (-1..65535)"},
      {{"-p", "11211x"}, "-p/--port: \"11211x\" is not a number"},
      {{"-U", "70000"}, "-U/--udp-port: 70000 is out of range (-1..65535)"},
      {{"-a", "8"}, "-a/--unix-mask: \"8\" is not an octal number"},
      {{"-a", "1000"}, "-a/--unix-mask: 1000 is out of range (0..511)"},
      {{"-s", ""}, "-s/--unix-socket: the value is empty"},
      {{"-l", ""}, "-l/--listen: the value is empty"},
      {{"-u", ""}, "-u/--user: the value is empty"},
      {{"-m", "0"}, "-m/--memory-limit: 0 is out of range (1..2147483647)"},
      {{"-m", "64MB"}, "-m/--memory-limit: \"64MB\" is not a number"},
      {{"-c", "0"}, "-c/--conn-limit: 0 is out of range (1..2147483647)"},
      {{"-c", "-5"}, "-c/--conn-limit: -5 is out of range (1..2147483647)"},
      {{"-t", "0"}, "-t/--threads: 0 is out of range (1..2147483647)"},
      {{"-t", "99999999999"}, "-t/--threads: 99999999999 is out of range (1..2147483647)"},
      {{"-f", "1"}, "-f/--slab-growth-factor: must be more than 1"},
      {{"-f", "0.5"}, "-f/--slab-growth-factor: must be more than 1"},
      {{"-f", "1.5x"}, "-f/--slab-growth-factor: \"1.5x\" is not a number"},
      {{"-f", "inf"}, "-f/--slab-growth-factor: \"inf\" is not a number"},
      {{"-n", "0"}, "-n/--slab-min-size: 0 is out of range (1..2147483647)"},
      {{"-R", "0"}, "-R/--max-reqs-per-event: 0 is out of range (1..2147483647)"},
      {{"-b", "many"}, "-b/--listen-backlog: \"many\" is not a number"},
      {{"-B", "udp"}, "-B/--protocol: \"udp\" is not one of auto, ascii, binary"},
      {{"-D", ""}, "-D: the value is empty"},
      {{"-N", "0"}, "-N/--napi-ids: 0 is out of range (1..2147483647)"},
      {{"-N", "5"}, "-N/--napi-ids: 5 NAPI IDs are more than the 4 threads of -t"},
  };
  for (const auto& [words, message] : cases) {
    SCOPED_TRACE(words.front());
    EXPECT_EQ(parse_error(words), message);
  }
  EXPECT_EQ(parse_ok({"-N", "5", "-t", "8"}).network.threads, 8u);
}

TEST(ServerOptions, HelpVersionAndLicenseStopParsing) {
  EXPECT_EQ(parse(std::vector<std::string>{"-h"}).what, action::print_help);
  EXPECT_EQ(parse(std::vector<std::string>{"--help"}).what, action::print_help);
  EXPECT_EQ(parse(std::vector<std::string>{"-V"}).what, action::print_version);
  EXPECT_EQ(parse(std::vector<std::string>{"--version"}).what, action::print_version);
  EXPECT_EQ(parse(std::vector<std::string>{"-i"}).what, action::print_version);
  EXPECT_EQ(parse(std::vector<std::string>{"--license"}).what, action::print_version);
  // As in memcached, flags after -h are not read, and mistakes before it are reported.
  EXPECT_EQ(parse(std::vector<std::string>{"-vh", "--bogus", "-m", "1"}).what, action::print_help);
  EXPECT_EQ(parse(std::vector<std::string>{"--bogus", "-h"}).what, action::error);
}

TEST(ServerOptions, HelpListsEveryFlagWithItsDefault) {
  const std::string text = help_text();
  for (const std::string name : {"-p, --port=<num>",
                                 "-U, --udp-port=<num>",
                                 "-s, --unix-socket=<file>",
                                 "-a, --unix-mask=<mask>",
                                 "-A, --enable-shutdown",
                                 "-l, --listen=<addr>",
                                 "-d, --daemon",
                                 "-r, --enable-coredumps",
                                 "-u, --user=<user>",
                                 "-m, --memory-limit=<num>",
                                 "-M, --disable-evictions",
                                 "-c, --conn-limit=<num>",
                                 "-k, --lock-memory",
                                 "-v, --verbose",
                                 "-h, --help",
                                 "-i, --license",
                                 "-V, --version",
                                 "-P, --pidfile=<file>",
                                 "-f, --slab-growth-factor=<num>",
                                 "-n, --slab-min-size=<bytes>",
                                 "-L, --enable-largepages",
                                 "-D <char>",
                                 "-t, --threads=<num>",
                                 "-R, --max-reqs-per-event=<num>",
                                 "-C, --disable-cas",
                                 "-b, --listen-backlog=<num>",
                                 "-B, --protocol=<name>",
                                 "-I, --max-item-size=<num>",
                                 "-S, --enable-sasl",
                                 "-F, --disable-flush-all",
                                 "-X, --disable-dumping",
                                 "-W, --disable-watch",
                                 "-Y, --auth-file=<file>",
                                 "-e, --memory-file=<file>",
                                 "-Z, --enable-ssl",
                                 "-o, --extended=<opts>",
                                 "-N, --napi-ids=<num>",
                                 "--index=auto|gpu|cpu",
                                 "--batch-max=<num>",
                                 "--batch-wait-us=<num>"}) {
    EXPECT_NE(text.find(name), std::string::npos) << name;
  }
  for (const std::string fragment :
       {"(default: 11211)", "(default: 127.0.0.1)", "(default: 700)", "(default: 64)",
        "(default: 1024)", "(default: 1.25)", "(default: 48)", "(default: 4)", "(default: 1m)",
        "(default: 32768; 1..1048576)", "(default: 0; 0..1000000)", "hashpower", "slab_chunk_max",
        "ext_path", "ssl_min_version", "slab_automove_freeratio", "temporary_ttl=<seconds>",
        "hot_lru_pct=<1-79>"}) {
    EXPECT_NE(text.find(fragment), std::string::npos) << fragment;
  }
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_LE(line.size(), 100u) << line;
    const bool no_effect =
        line.starts_with("-d,") || line.starts_with("-D ") || line.starts_with("-N,");
    if (no_effect) {
      EXPECT_TRUE(line.ends_with("[ignored]")) << line;
    }
    if (line.starts_with("-S,")) {
      EXPECT_NE(line.find("[refused]"), std::string::npos) << line;
    }
    if (line.starts_with("-p,") || line.starts_with("-F,") || line.starts_with("-Y,") ||
        line.starts_with("-Z,")) {
      EXPECT_FALSE(line.ends_with("[ignored]")) << line;
    }
  }
  EXPECT_EQ(text.find("napi_ids"), std::string::npos) << "the alias is not advertised";
}

TEST(ServerOptions, ParsesAreIndependent) {
  // No state is kept between calls (getopt_long's optind would be).
  EXPECT_EQ(parse_ok({"-p", "1"}).network.listen.tcp_port, 1);
  EXPECT_EQ(parse_ok({"-p", "2"}).network.listen.tcp_port, 2);
  EXPECT_EQ(parse_ok({}).network.listen.tcp_port, 11211);
}

TEST(ServerOptions, DebianDefaultCommandLine) {
  // What Debian's start-memcached builds from /etc/memcached.conf.
  const server_options options =
      parse_ok({"-d", "-m", "64", "-p", "11211", "-u", "memcache", "-l", "127.0.0.1", "-P",
                "/var/run/memcached/memcached.pid", "-c", "1024", "-v", "-o",
                "slab_reassign,slab_automove"});
  EXPECT_EQ(options.engine.store.memory_limit, std::size_t{64} << 20);
  EXPECT_EQ(options.run_as_user, "memcache");
  EXPECT_EQ(options.network.verbosity, 1);
  EXPECT_EQ(options.ignored.size(), 4u);
}

}  // namespace

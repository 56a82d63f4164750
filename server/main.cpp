// gpuhash-server: a memcached-compatible cache whose index lives on the GPU
// (the CPU when there is none). Flags: memcached 1.6's, plus gpuhash's own
// (gpuhash-server -h).

#include <sysexits.h>

#include <cstdio>
#include <exception>

#include "app/server.hpp"
#include "config/options.hpp"
#include "index/index_factory.hpp"

int main(int argc, char** argv) {
  using namespace gpuhash::server;
  index::load_kernels_at_start();
  const config::parse_outcome parsed = config::parse_command_line(argc, argv);
  switch (parsed.what) {
    case config::parse_outcome::action::print_help:
      std::fputs(config::help_text().c_str(), stdout);
      return 0;
    case config::parse_outcome::action::print_version:
      std::puts("gpuhash-server 0.1.0 (memcached 1.6.18 protocol)");
      return 0;
    case config::parse_outcome::action::error:
      std::fprintf(stderr, "%s\n", parsed.message.c_str());
      return EX_USAGE;  // as memcached
    case config::parse_outcome::action::run: break;
  }
  try {
    return run_server(parsed.options,
                      index::server_index(parsed.options.index, 0, parsed.options.index_auto));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "gpuhash-server: %s\n", error.what());
    return EX_OSERR;  // as memcached when it cannot listen
  }
}

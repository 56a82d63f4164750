// gpuhash-server whose first shard's index fails at its N-th batch, as a
// GPU that fails while serving does: test_load.py's IndexFailoverTest runs
// it to see the engine move that index to the CPU and lose nothing.
//
//   gpuhash-server-failing-index --fail-index-at=N <gpuhash-server's flags>

#include <sysexits.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>
#include <vector>

#include "app/server.hpp"
#include "config/options.hpp"
#include "index_doubles.hpp"

int main(int argc, char** argv) {
  using namespace gpuhash::server;
  constexpr std::string_view flag = "--fail-index-at=";
  std::size_t fail_at = 0;
  std::vector<char*> server_argv;
  for (int i = 0; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with(flag)) {
      fail_at = std::strtoull(argv[i] + flag.size(), nullptr, 10);
    } else {
      server_argv.push_back(argv[i]);
    }
  }
  if (fail_at == 0) {
    std::fprintf(stderr, "gpuhash-server-failing-index: give --fail-index-at=N (N > 0)\n");
    return EX_USAGE;
  }
  const config::parse_outcome parsed =
      config::parse_command_line(static_cast<int>(server_argv.size()), server_argv.data());
  if (parsed.what != config::parse_outcome::action::run) {
    std::fprintf(stderr, "%s\n", parsed.message.c_str());
    return EX_USAGE;
  }
  const index::placement where = parsed.options.index;
  const index::index_factory failing_first = [where, fail_at](std::size_t shard) {
    const std::uint64_t seed = index::random_seed();
    std::unique_ptr<index::index_service> made = index::make_server_index(where, seed);
    if (shard == 0) made = index::test_doubles::make_failing_index(std::move(made), fail_at);
    return std::make_unique<index::index_port>(std::move(made), seed);
  };
  try {
    return run_server(parsed.options, failing_first);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "gpuhash-server-failing-index: %s\n", error.what());
    return EX_OSERR;
  }
}

#pragma once
// What every experiment gets: the command line, where JSON lines go, the
// commit, and helpers to pick backends and designs from the arguments.

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "args.hpp"
#include "limits.hpp"

namespace gpuhash::bench {

class context {
 public:
  context(const args& arguments, std::ostream* json, std::string commit)
      : arguments_(arguments), json_(json), commit_(std::move(commit)) {}

  const args& arguments() const { return arguments_; }
  const std::string& commit() const { return commit_; }
  /// Writes one JSON line (if --out was given).
  void emit(const std::string& line);

  /// Backends chosen with --backend (default: every one available here).
  std::vector<std::string> backends() const;
  /// Whether --design selects this design (default: the experiment's `fallback`).
  bool selected_design(std::string_view design,
                       const std::vector<std::string>& fallback = {"all"}) const;
  /// Whether --key-bits selects this width (default: the experiment's `fallback`).
  bool selected_width(int key_bits, const std::vector<std::string>& fallback = {"32"}) const;

  /// The GPU's access limit `name` (limits.hpp) for a table of `table_bytes`
  /// (the limits fall as the footprint grows), measured on first use of each
  /// limit over each buffer size (limit_buffer_bytes), so a run measures the
  /// limits its reports use and no others.
  const access_measurement& measured_limit(std::string_view name, std::uint64_t table_bytes);
  /// The copy bandwidth of a backend ("cpu", "cuda"), the yardstick of rates
  /// in bytes, measured on first use.
  const copy_limit& measured_copy(const std::string& backend);

 private:
  const args& arguments_;
  std::ostream* json_;
  std::string commit_;
  std::map<std::pair<std::string, std::uint64_t>, access_measurement> limits_;
  std::map<std::string, copy_limit> copies_;
};

struct experiment {
  std::string_view name;
  std::string_view description;
  std::function<void(context&)> run;
};

/// Every experiment gpuhash-bench knows, in --list order.
const std::vector<experiment>& all_experiments();

}  // namespace gpuhash::bench

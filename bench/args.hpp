#pragma once
// Command-line arguments of gpuhash-bench: `--name=value` or `--flag`. Values
// may be lists ("0.5,0.7"), powers ("2^26") or ranges of powers ("2^20..2^28").

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuhash::bench {

class args {
 public:
  /// Parses argv[first..]; throws std::invalid_argument on a malformed argument.
  args(int argc, char** argv, int first);

  bool has(const std::string& name) const { return values_.contains(name); }
  std::string text(const std::string& name, const std::string& fallback) const;
  std::vector<std::string> list(const std::string& name,
                                const std::vector<std::string>& fallback) const;
  std::vector<double> numbers(const std::string& name, const std::vector<double>& fallback) const;
  /// Integers, with 2^k and 2^a..2^b (every power in between) accepted.
  std::vector<std::uint64_t> sizes(const std::string& name,
                                   const std::vector<std::uint64_t>& fallback) const;
  std::uint64_t size(const std::string& name, std::uint64_t fallback) const;
  double number(const std::string& name, double fallback) const;
  /// Whether `--name` (or `--name=true`) was given; `--name=false` is false.
  bool flag(const std::string& name) const;

  /// Names given on the command line that no experiment asked for.
  std::vector<std::string> unused() const;

 private:
  std::optional<std::string> lookup(const std::string& name) const;

  std::map<std::string, std::string> values_;
  mutable std::map<std::string, bool> asked_;
};

std::uint64_t parse_size(const std::string& text);

}  // namespace gpuhash::bench

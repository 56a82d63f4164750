#include "args.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace gpuhash::bench {

namespace {
std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, separator))
    if (!part.empty()) parts.push_back(part);
  return parts;
}
}  // namespace

args::args(int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument.rfind("--", 0) != 0)
      throw std::invalid_argument("expected --name=value, got '" + argument + "'");
    const auto equals = argument.find('=');
    if (equals == std::string::npos)
      values_[argument.substr(2)] = "true";
    else
      values_[argument.substr(2, equals - 2)] = argument.substr(equals + 1);
  }
}

std::optional<std::string> args::lookup(const std::string& name) const {
  asked_[name] = true;
  const auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string args::text(const std::string& name, const std::string& fallback) const {
  return lookup(name).value_or(fallback);
}

std::vector<std::string> args::list(const std::string& name,
                                    const std::vector<std::string>& fallback) const {
  const auto value = lookup(name);
  return value ? split(*value, ',') : fallback;
}

std::vector<double> args::numbers(const std::string& name,
                                  const std::vector<double>& fallback) const {
  const auto value = lookup(name);
  if (!value) return fallback;
  std::vector<double> result;
  for (const auto& part : split(*value, ',')) result.push_back(std::stod(part));
  return result;
}

std::uint64_t parse_size(const std::string& text) {
  const auto caret = text.find('^');
  if (caret == std::string::npos) {
    // A count, with an optional decimal suffix: 10M is ten million.
    std::size_t used = 0;
    const std::uint64_t count = std::stoull(text, &used);
    const std::string suffix = text.substr(used);
    if (suffix.empty()) return count;
    if (suffix == "K" || suffix == "k") return count * 1000;
    if (suffix == "M") return count * 1000000;
    if (suffix == "G") return count * 1000000000;
    throw std::invalid_argument("not a size: '" + text + "' (use 1000, 10K, 10M, 1G or 2^20)");
  }
  const auto base = std::stoull(text.substr(0, caret));
  const auto exponent = std::stoull(text.substr(caret + 1));
  return static_cast<std::uint64_t>(
      std::llround(std::pow(static_cast<double>(base), static_cast<double>(exponent))));
}

std::vector<std::uint64_t> args::sizes(const std::string& name,
                                       const std::vector<std::uint64_t>& fallback) const {
  const auto value = lookup(name);
  if (!value) return fallback;
  std::vector<std::uint64_t> result;
  for (const auto& part : split(*value, ',')) {
    const auto dots = part.find("..");
    if (dots == std::string::npos) {
      result.push_back(parse_size(part));
      continue;
    }
    // 2^a..2^b: every power of two from the first to the last.
    for (std::uint64_t n = parse_size(part.substr(0, dots)); n <= parse_size(part.substr(dots + 2));
         n *= 2)
      result.push_back(n);
  }
  return result;
}

std::uint64_t args::size(const std::string& name, std::uint64_t fallback) const {
  const auto value = lookup(name);
  return value ? parse_size(*value) : fallback;
}

double args::number(const std::string& name, double fallback) const {
  const auto value = lookup(name);
  return value ? std::stod(*value) : fallback;
}

bool args::flag(const std::string& name) const {
  const auto value = lookup(name);
  if (!value || *value == "false") return false;
  if (*value == "true") return true;
  throw std::invalid_argument("--" + name + " takes no value (or true or false), got '" + *value +
                              "'");
}

std::vector<std::string> args::unused() const {
  std::vector<std::string> names;
  for (const auto& [name, value] : values_)
    if (!asked_.contains(name)) names.push_back(name);
  return names;
}

}  // namespace gpuhash::bench

#pragma once
// Turning measurements into JSON lines and a readable table.

#include <cstdint>
#include <string>

#include "basic_ops.hpp"
#include "experiment.hpp"

namespace gpuhash::bench {

/// Device name of a backend ("NVIDIA H200", "<cpu model> (N threads)").
std::string device_name(const std::string& backend);

/// n as the tables show it: 2^k for a power of two.
std::string size_text(std::uint64_t n);

/// One JSON line per operation of the report, with rates, the report's
/// parameters and, on the GPU, the operation's yardstick (yardsticks.hpp):
/// its limit measured for the report's table, the fraction of it, and for a
/// rate above it the reasons that can take it there (above_limit_because,
/// "unexplained" if none; also a warning on stderr); for an operation that
/// counts bytes, its rate in bytes per second and the fraction of the
/// backend's copy limit.
void emit_basic_ops(context& ctx, const std::string& experiment, const point_report& report);

/// The readable table of an experiment on one backend: a row per report
/// (design, backend, width, n, load, the report's parameters, the rate of
/// each operation, then the bytes per second of each that counts bytes, with
/// the share of the copy limit). The title and the header come with the
/// first row.
class rate_table {
 public:
  rate_table(context& ctx, const std::string& experiment, const std::string& backend);
  void add(const point_report& report);

 private:
  context& ctx_;
  std::string title_;
  bool header_printed_ = false;
};

/// Emits the report's JSON lines and adds its row to the table.
void record(context& ctx, const std::string& experiment, rate_table& table,
            const point_report& report);

}  // namespace gpuhash::bench

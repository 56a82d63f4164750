#pragma once
// Turning measurements into JSON lines and a readable table.

#include <string>

#include "basic_ops.hpp"
#include "experiment.hpp"

namespace gpuhash::bench {

/// Device name of a backend ("NVIDIA H200", "<cpu model> (N threads)").
std::string device_name(const std::string& backend);

/// One JSON line per operation of the report, with rates and, on the GPU, the
/// fraction of the measured (and of the reference) access limit.
void emit_basic_ops(context& ctx, const std::string& experiment, const point_report& report);

/// Header and rows of the readable table of basic-operation rates.
void print_basic_ops_header(const std::string& title);
void print_basic_ops_row(context& ctx, const point_report& report);

}  // namespace gpuhash::bench

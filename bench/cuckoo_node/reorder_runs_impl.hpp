#pragma once
// time_reorder's definition (reorder_runs.hpp); included by one file per
// backend.

#include <cstdint>
#include <string>
#include <vector>

#include "../timer.hpp"
#include "../workload.hpp"
#include "gpuhash/hash.hpp"
#include "gpuhash/reorder.hpp"
#include "reorder_runs.hpp"

namespace gpuhash::bench {

/// A key's bucket in a table of `buckets` buckets: the hash the chained
/// designs use for it (hash function 0 of the family).
struct table_bucket {
  hash_family<std::uint32_t> hash;
  std::uint64_t buckets;
  GPUHASH_HD std::uint64_t operator()(std::uint32_t key) const {
    return reduce_range(hash(key, 0), buckets);
  }
};

template <class Backend>
point_report time_reorder(const sweep_point& point, reorder_scheme scheme, bool paper_width,
                          std::uint64_t buckets, std::uint64_t combined) {
  const std::uint64_t n = point.n;
  const typename Backend::stream_type stream{};
  auto keys = Backend::template allocate<std::uint32_t>(n);
  auto values = Backend::template allocate<std::uint32_t>(n);
  auto order = Backend::template allocate<std::uint64_t>(n);
  auto reordered = Backend::template allocate<std::uint32_t>(n);
  const table_bucket bucket_of{{0x5eed5eedULL}, buckets};
  reorder_options options{scheme, buckets, combined};
  if (paper_width) {  // Alg. 3 with rows exactly ceil(n / rows) wide
    const std::uint64_t c = combined == 0 ? 1 : combined;
    const std::uint64_t rows = (buckets + c - 1) / c;
    options.scheme = reorder_scheme::warp_cooperative;
    options.row_width = (n + rows - 1) / rows;
  }

  point_report report;
  report.design = scheme == reorder_scheme::rows ? "dachash_reorder"
                  : paper_width                  ? "cnh_reorder_paper_width"
                                                 : "cnh_reorder";
  report.backend = std::string(Backend::name);
  report.key_bits = 32;
  report.value_bits = 0;
  report.point = point;
  report.ops.push_back({"reorder", judged_by{"reorder_by_bucket", 32, {{"reorder", 1.0}}, {}}, {}});
  report.parameters = {{"buckets", static_cast<double>(buckets)},
                       {"combining_factor", static_cast<double>(combined)}};

  step_timer<Backend> timer;
  for (int repetition = -point.warmups; repetition < point.repetitions; ++repetition) {
    const key_spec spec = repetition_keys(point, repetition);
    generate_keys<std::uint32_t, std::uint32_t>(Backend{}, spec, 0, n, keys.data(), values.data(),
                                                stream);
    Backend::synchronize(stream);
    const double ms = timer.time(
        [&] {
          reorder_by_bucket<Backend>(keys.data(), n, bucket_of, options, order.data(), stream);
          static_assert(sizeof(std::size_t) == sizeof(std::uint64_t));
          Backend::gather(keys.data(), reinterpret_cast<const std::size_t*>(order.data()), n,
                          reordered.data(), stream);
        },
        stream);
    std::vector<std::uint64_t> positions(n);
    Backend::copy_to_host(positions.data(), order.data(), n, stream);
    std::vector<std::uint8_t> seen(n, 0);
    std::size_t wrong = 0;
    for (const std::uint64_t p : positions) {
      if (p >= n || seen[p] != 0) ++wrong;
      if (p < n) seen[p] = 1;
    }
    require_all(wrong, n, "reorder (the new order is not a permutation)");
    if (repetition >= 0) report.ops[0].ms.push_back(ms);
  }
  report.memory_bytes = n * (sizeof(std::uint64_t) + sizeof(std::uint32_t));
  return report;
}

}  // namespace gpuhash::bench

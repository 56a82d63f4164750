#pragma once
// Running totals of a table's batches, kept in backend memory and updated by
// the batch kernels (one atomic add per warp or CPU chunk, not per key). The
// host derives size and occupancy from them whenever it synchronizes.

#include <cstdint>

#include "gpuhash/host_device.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::detail {

struct table_counters {
  std::uint64_t inserted = 0;  ///< statuses `inserted` since construction or clear
  std::uint64_t erased = 0;    ///< statuses `erased`
  std::uint64_t full = 0;      ///< statuses `full`
};

/// Per-thread tally of the statuses that change a table's bookkeeping.
struct status_tally {
  std::uint32_t inserted = 0;
  std::uint32_t erased = 0;
  std::uint32_t full = 0;

  GPUHASH_HD void count(status s) {
    inserted += s == status::inserted;
    erased += s == status::erased;
    full += s == status::full;
  }
  GPUHASH_HD bool empty() const { return (inserted | erased | full) == 0; }
};

}  // namespace gpuhash::detail

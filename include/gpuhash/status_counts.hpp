#pragma once
// How many operations ended with each of the statuses that change a table's
// size. Batch kernels add them up into a table's counters; a kernel of the
// caller's that changes the signature index through its ref tallies its own
// and hands them to signature_index::adopt_batch.

#include <cstdint>

#include "gpuhash/host_device.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash {

struct status_counts {
  std::uint64_t inserted = 0;  ///< statuses `inserted`
  std::uint64_t erased = 0;    ///< statuses `erased`
  std::uint64_t full = 0;      ///< statuses `full`

  GPUHASH_HD void count(status s) {
    inserted += s == status::inserted;
    erased += s == status::erased;
    full += s == status::full;
  }
};

}  // namespace gpuhash

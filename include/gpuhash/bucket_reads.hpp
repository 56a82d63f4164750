#pragma once
// How a signature index's ref reads buckets on the device
// (signature_index_ref.hpp).

#include <cstdint>

namespace gpuhash {

enum class bucket_reads : std::uint8_t {
  /// Through the SM's L1: for a kernel under which no other kernel changes
  /// the index (the default).
  through_l1,
  /// From L2, past L1: for a kernel that stays resident while other kernels,
  /// or its own earlier batches, change the index, since its L1 may hold
  /// lines from before the change. A CAS or exchange goes to L2 either way.
  from_l2,
};

}  // namespace gpuhash

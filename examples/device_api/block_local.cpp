// A table local to each CUDA block, in shared memory: counting how often
// each key occurs, where keys are few (here 1,024) and rows many. A block
// counts its share of the rows in its own table
// (gpuhash::local_linear_probing over a __shared__ array, at shared-memory
// speed), then adds each of its local counts to the global table once, so
// the global table sees one insert_or_apply per key and block instead of
// one per row. The local table has room for every key (it is sized for
// them: a linear probing insert that finds it full has probed every slot);
// a row whose key finds it full all the same is counted in the global
// table directly.
//
// On the GPU the block's threads share the local table. On the CPU there
// are no blocks: the same steps run with one thread per block of rows and a
// local table on its stack (the same functions, count_row and flush_slot,
// are used). Checked against counts made on the host.

#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

#include "common.hpp"
#include "gpuhash/apply_ops.hpp"
#include "gpuhash/linear_probing_map.hpp"
#include "gpuhash/local_linear_probing.hpp"

namespace {

using key_type = std::uint32_t;
using count_type = std::uint32_t;
using local_table = gpuhash::local_linear_probing<key_type, count_type>;

/// 16 KB of shared memory (32/32 pairs are 8-byte slots).
constexpr std::uint32_t local_slots = 2048;
constexpr std::uint64_t rows_per_block = 8192;
constexpr unsigned threads_per_block = 256;

/// One row: counted in the block's table, or in the global one when the
/// block's is full. Returns the global table's status when it was used
/// (`full` there is the caller's to report), else `inserted`.
template <class GlobalRef>
GPUHASH_HD gpuhash::status count_row(const local_table::ref_type& local, const GlobalRef& global,
                                     key_type key) {
  if (local.insert_or_apply(key, 1, gpuhash::plus{}) != gpuhash::status::full)
    return gpuhash::status::inserted;
  return global.insert_or_apply(key, 1, gpuhash::plus{});
}

/// One slot of a block's table, once the block's rows are counted: its
/// count added to the global table.
template <class GlobalRef>
GPUHASH_HD gpuhash::status flush_slot(const local_table::slot_type& slot, const GlobalRef& global) {
  if (!local_table::holds_key(slot)) return gpuhash::status::not_found;
  return global.insert_or_apply(local_table::key_of(slot), local_table::value_of(slot),
                                gpuhash::plus{});
}

#if defined(__CUDACC__)
template <class GlobalRef>
__global__ void __launch_bounds__(threads_per_block)
    count_by_block(GlobalRef global, const key_type* keys, std::uint64_t n,
                   std::uint64_t* global_full) {
  __shared__ local_table::slot_type slots[local_slots];
  for (std::uint32_t s = threadIdx.x; s < local_slots; s += blockDim.x)
    slots[s] = local_table::empty_slot();
  __syncthreads();
  const auto local = local_table::ref(slots, local_slots);
  const std::uint64_t begin = blockIdx.x * rows_per_block;
  const std::uint64_t end = begin + rows_per_block < n ? begin + rows_per_block : n;
  std::uint64_t full = 0;
  for (std::uint64_t i = begin + threadIdx.x; i < end; i += blockDim.x)
    full += count_row(local, global, keys[i]) == gpuhash::status::full;
  __syncthreads();  // every row of the block counted
  for (std::uint32_t s = threadIdx.x; s < local_slots; s += blockDim.x)
    full += flush_slot(slots[s], global) == gpuhash::status::full;
  if (full != 0) gpuhash::support::fetch_add(global_full, full);
}
#else
/// Block b of the rows, on one CPU thread, with a local table on its stack.
template <class GlobalRef>
struct count_block {
  GlobalRef global;
  const key_type* keys;
  std::uint64_t n;
  std::uint64_t* global_full;

  void operator()(std::uint64_t b) const {
    local_table::slot_type slots[local_slots];
    for (auto& slot : slots) slot = local_table::empty_slot();
    const auto local = local_table::ref(slots, local_slots);
    const std::uint64_t begin = b * rows_per_block;
    const std::uint64_t end = begin + rows_per_block < n ? begin + rows_per_block : n;
    std::uint64_t full = 0;
    for (std::uint64_t i = begin; i < end; ++i)
      full += count_row(local, global, keys[i]) == gpuhash::status::full;
    for (const auto& slot : slots) full += flush_slot(slot, global) == gpuhash::status::full;
    if (full != 0) gpuhash::support::fetch_add(global_full, full);
  }
};
#endif

struct block_local {
  template <class Backend>
  int operator()() const {
    using gpuhash::examples::to_backend;
    using gpuhash::examples::to_host;
    using table_type = gpuhash::linear_probing_map<key_type, count_type, Backend>;
    const std::uint64_t n = std::uint64_t{1} << 20;
    const std::uint32_t distinct_keys = 1 << 10;

    std::mt19937_64 random(41);
    std::vector<key_type> keys(n);
    for (auto& k : keys) k = 1 + static_cast<key_type>(random() % distinct_keys) * 7919;

    // Room for every key: linear probing answers `full` only when every
    // slot is taken, so no row is left over here.
    table_type counts(gpuhash::table_options{distinct_keys});
    counts.reserve(distinct_keys);
    const auto d_keys = to_backend<Backend>(keys);
    auto d_full = to_backend<Backend>(std::vector<std::uint64_t>{0});
    const std::uint64_t blocks = (n + rows_per_block - 1) / rows_per_block;
#if defined(__CUDACC__)
    count_by_block<<<static_cast<unsigned>(blocks), threads_per_block>>>(
        counts.ref(), d_keys.data(), n, d_full.data());
    GPUHASH_CUDA_TRY(cudaGetLastError());
#else
    gpuhash::examples::for_each_index<Backend>(
        blocks,
        count_block<typename table_type::ref_type>{counts.ref(), d_keys.data(), n, d_full.data()});
#endif
    Backend::synchronize({});

    std::unordered_map<key_type, count_type> expected;
    for (const key_type k : keys) ++expected[k];
    const auto [found_keys, found_counts] = counts.retrieve_all();
    std::uint64_t wrong = to_host<Backend>(d_full.data(), 1)[0];
    wrong += found_keys.size() != expected.size();
    for (std::size_t i = 0; i < found_keys.size(); ++i) {
      const auto it = expected.find(found_keys[i]);
      wrong += it == expected.end() || it->second != found_counts[i];
    }
    return gpuhash::examples::report("block_local", Backend::name.data(), wrong);
  }
};

}  // namespace

int main() {
  return gpuhash::examples::run_example(block_local{});
}

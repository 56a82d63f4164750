#pragma once
// An index service: gpuhash::signature_index on the GPU or on the CPU, as
// the index port (index_port.hpp) drives it. The engine sees the port only;
// what is here about how a batch reaches a device (its memory, statuses
// given late, the wait, the kernel's renewal) stays behind the port. Each
// shard of the engine has its own, called only by the thread running that
// shard's batch.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <memory_resource>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpuhash/operation.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::server::index {

using signature_type = std::uint32_t;
using location_type = std::uint32_t;
inline constexpr std::size_t max_matches = 16;

/// One mixed batch: searches, then inserts and erases of (signature,
/// location) entries (the searches come first: add() refuses a search after
/// an insert or erase). The searches never wait for the batch's own inserts
/// and erases: they may see them or not (the engine keeps the items whose
/// entries are in flight on the host).
struct index_batch {
  /// The batch's arrays come from `memory`: the index service's choice
  /// (page-locked host memory for the GPU, so the device reads a batch
  /// where the engine writes it).
  explicit index_batch(std::pmr::memory_resource* memory = std::pmr::get_default_resource())
      : ops(memory), signatures(memory), locations(memory) {}

  std::pmr::vector<operation> ops;
  std::pmr::vector<signature_type> signatures;
  std::pmr::vector<location_type> locations;

  std::size_t inserts = 0;  ///< how many of ops are inserts
  std::size_t erases = 0;   ///< how many are erases

  std::size_t size() const noexcept { return ops.size(); }
  /// Only searches: the index runs a find, the cheapest batch.
  bool searches_only() const noexcept { return inserts == 0 && erases == 0; }
  std::size_t searches() const noexcept { return size() - inserts - erases; }
  void clear() {
    ops.clear();
    signatures.clear();
    locations.clear();
    inserts = erases = 0;
  }
  void add(operation op, signature_type signature, location_type location) {
    if (op == operation::search && (inserts != 0 || erases != 0))
      throw std::logic_error("index_batch: a search after an insert or erase");
    ops.push_back(op);
    signatures.push_back(signature);
    locations.push_back(location);
    inserts += op == operation::insert ? 1 : 0;
    erases += op == operation::erase ? 1 : 0;
  }
  /// Adds a search for each signature, in order (a multi-get's keys).
  void add_searches(std::span<const signature_type> searched) {
    if (inserts != 0 || erases != 0)
      throw std::logic_error("index_batch: a search after an insert or erase");
    const std::size_t n = size() + searched.size();
    ops.resize(n, operation::search);
    signatures.insert(signatures.end(), searched.begin(), searched.end());
    locations.resize(n, 0);
  }
  /// Keeps the first n operations.
  void truncate(std::size_t n);
};

/// A batch's results, in the index service's own memory, valid until its
/// next apply: the searches' locations (search i's are match(i, 0 ..
/// count(i))), and the statuses of the inserts and erases settled now, in
/// the order they were added: this batch's, or, for an index whose
/// defers_mutations(), those of the last earlier batch that had any.
struct index_results {
  const location_type* matches = nullptr;  ///< match_stride per search
  const std::uint32_t* counts = nullptr;   ///< per search
  const status* statuses = nullptr;        ///< per settled insert or erase
  std::size_t settled = 0;                 ///< how many inserts and erases are settled
  std::size_t match_stride = max_matches;

  std::uint32_t count(std::size_t i) const noexcept { return counts[i]; }
  location_type match(std::size_t i, std::size_t k) const noexcept {
    return matches[i * match_stride + k];
  }
  status status_of(std::size_t j) const noexcept { return statuses[j]; }
};

/// Work the caller of apply() has for its thread while the index runs a
/// batch (the engine's batch thread sends the last batch's replies then).
/// An index on a device calls step() while it waits for the answer, until
/// step() says nothing is left; an index that computes on the calling
/// thread need not call it at all.
class wait_work {
 public:
  virtual ~wait_work() = default;
  /// Does one piece of the work (a few microseconds at most); false once
  /// nothing is left.
  virtual bool step() = 0;
};

class index_service {
 public:
  virtual ~index_service() = default;
  /// "cpu" or "gpu (NVIDIA H200)".
  virtual std::string description() const = 0;
  /// Whether a batch waits for a device (the GPU): the engine then keeps a
  /// batch thread that gathers batches while one is out (engine.hpp).
  virtual bool on_device() const noexcept { return false; }
  /// Runs the batch; throws on a device failure (the engine then moves the
  /// index to the CPU). While it waits for a device, it may call
  /// `while_waiting`'s step() (see wait_work). An empty batch runs nothing;
  /// an index that gives statuses late settles the last batch then, hands
  /// out its statuses and counts its entries (a move asks so).
  virtual index_results apply(const index_batch& batch, wait_work* while_waiting = nullptr) = 0;
  /// Whether apply() calls its wait_work's step() at all (it waits for a
  /// device, or pretends to for tests).
  virtual bool takes_wait_work() const noexcept { return on_device(); }
  /// Whether apply() returns once the searches are done, with the inserts
  /// and erases queued behind them on the device: their statuses then come
  /// with the next apply (index_results), and the next batch's searches see
  /// them. A batch's wait is then a search's round trip, whatever it holds.
  virtual bool defers_mutations() const noexcept { return false; }
  /// An index whose device kernels age out (the GPU's resident kernel,
  /// gpu_resident.cuh): when to renew() the running one, so that the batch
  /// after it ages out does not pay the next one's launch (before the
  /// first: long past). None for an index with nothing to renew.
  virtual std::optional<std::chrono::steady_clock::time_point> renew_at() const { return {}; }
  /// Replaces the running kernel by a new one (see renew_at); called between
  /// batches by the thread that runs them. Throws on a device failure.
  virtual void renew() {}
  virtual std::size_t entries() const noexcept = 0;
  virtual std::size_t capacity() const noexcept = 0;
  virtual std::size_t memory_bytes() const noexcept = 0;
  virtual std::size_t rebuilds() const noexcept = 0;
  /// Where batches for this index should keep their arrays; it outlives
  /// the index service.
  virtual std::pmr::memory_resource* batch_memory() const noexcept {
    return std::pmr::get_default_resource();
  }
};

inline void index_batch::truncate(std::size_t n) {
  for (std::size_t i = n; i < ops.size(); ++i) {
    inserts -= ops[i] == operation::insert ? 1 : 0;
    erases -= ops[i] == operation::erase ? 1 : 0;
  }
  ops.resize(n);
  signatures.resize(n);
  locations.resize(n);
}

/// The index on the CPU (runs on the calling thread).
std::unique_ptr<index_service> make_cpu_index(std::size_t capacity, std::uint64_t seed);
/// Whether this build has the CUDA backend and a GPU is present.
bool gpu_available() noexcept;
/// Call at the start of main, before any CUDA call: has CUDA load every
/// kernel as the process starts rather than at its first launch, since a
/// load waits for the resident kernels running then (gpu_resident.cuh).
/// A CUDA_MODULE_LOADING set by the user is kept.
void load_kernels_at_start() noexcept;
/// The index on the GPU; throws when there is none. `resident_lifetime_us`
/// (0: the default, 100 ms) is how long a resident kernel lives
/// (gpu_resident.cuh): tests shorten it to make kernels end between batches.
std::unique_ptr<index_service> make_gpu_index(std::size_t capacity, std::uint64_t seed,
                                              std::uint64_t resident_lifetime_us = 0);

}  // namespace gpuhash::server::index

// The server's index on the CPU: signature_index<cpu_backend>, its batches
// run on the thread running a shard's batch through the index's ref
// (signature_index_ref.hpp), as the GPU's resident kernel runs them
// (gpu_resident.cu): the index grows first if the inserts call for it
// (make_room_for), the searches run, then each insert's and erase's step,
// then the eviction walks of the inserts that found both buckets full, and
// the index accounts for the batch (adopt_batch). A batch of a few keys, as
// most are, then costs its keys' steps and little else: the index's own
// batch calls check their arguments, go through a thread pool and allocate
// their pending inserts' records for each batch.

#include <memory>
#include <vector>

#include "gpuhash/cpu/thread_pool.hpp"
#include "gpuhash/hash.hpp"
#include "gpuhash/signature_index.hpp"
#include "gpuhash/status_counts.hpp"
#include "index/index_service.hpp"

namespace gpuhash::server::index {
namespace {

class cpu_index final : public index_service {
 public:
  cpu_index(std::size_t capacity, std::uint64_t seed)
      : pool_(1), index_(index_options{capacity, 0.0f, seed}, pool_stream()) {}

  std::string description() const override { return "cpu"; }

  index_results apply(const index_batch& batch, wait_work*) override {
    const std::size_t n = batch.size();
    const std::size_t searches = batch.searches();
    // resized only to grow (shrunk, they were zeroed again by each larger
    // batch after a smaller one); nothing past n is read
    if (counts_.size() < n) {
      matches_.resize(n * max_matches);
      counts_.resize(n);
      statuses_.resize(n);
    }
    if (batch.inserts != 0) index_.make_room_for(batch.inserts, pool_stream());
    const signature_index_ref table = index_.ref();
    for (std::size_t i = 0; i < searches; ++i)
      counts_[i] = table.find(batch.signatures[i], matches_.data() + i * max_matches);
    if (n != searches) run_mutations(batch, searches, table);
    index_results results{matches_.data(), counts_.data()};
    results.statuses = statuses_.data() + searches;
    results.settled = n - searches;
    return results;
  }
  std::size_t entries() const noexcept override { return index_.size(); }
  std::size_t capacity() const noexcept override { return index_.capacity(); }
  std::size_t memory_bytes() const noexcept override { return index_.memory_bytes(); }
  std::size_t rebuilds() const noexcept override { return index_.rebuilds(); }

 private:
  /// Growth and adoption run on the calling thread (a pool of one thread:
  /// the server's other cores serve connections).
  cpu::stream pool_stream() noexcept { return cpu::stream{&pool_}; }

  /// The batch's inserts and erases, batch[from, n): each one's step, then
  /// the walks of the inserts that found both buckets full (a walk moves
  /// entries, so it comes after every step), then the index's accounts.
  void run_mutations(const index_batch& batch, std::size_t from, const signature_index_ref& table) {
    status_counts steps;
    pending_.clear();
    for (std::size_t i = from; i < batch.size(); ++i) {
      const signature_type signature = batch.signatures[i];
      const location_type location = batch.locations[i];
      status result = status::invalid_operation;
      if (signature_index_ref::is_reserved(signature)) {
        result = status::invalid_key;
      } else if (batch.ops[i] == operation::insert) {
        result = table.insert(signature, location);
      } else if (batch.ops[i] == operation::erase) {
        result = table.erase(signature, location);
      }
      statuses_[i] = result;
      if (result == status::full) pending_.push_back(i);
      steps.count(result);
    }
    if (pending_.empty()) {
      index_.adopt_batch(steps, status_counts{}, nullptr, 0, pool_stream());
      return;
    }
    status_counts walks;
    held_.assign(pending_.size(), signature_index_ref::no_entry);
    const std::uint64_t random = murmur3_fmix64(index_.seed() ^ ++walks_);
    for (std::size_t t = 0; t < pending_.size(); ++t) {
      const std::size_t i = pending_[t];
      // A 17th entry under its signature: no slot could ever take it, so it
      // is refused and its status stays full.
      if (table.count(batch.signatures[i]) == max_matches) continue;
      statuses_[i] = status::inserted;
      const auto placement =
          table.insert_by_eviction(batch.signatures[i], batch.locations[i],
                                   murmur3_fmix64(random ^ t), signature_index<>::max_exchanges);
      // Left in hand: the walk's own entry is stored (reported inserted)
      // and the one in hand goes back to the index by adopt_batch.
      held_[t] = placement.held;
      walks.count(placement.placed ? status::inserted : status::full);
    }
    index_.adopt_batch(steps, walks, held_.data(), held_.size(), pool_stream());
  }

  cpu::thread_pool pool_;
  signature_index<cpu_backend> index_;
  std::vector<location_type> matches_;
  std::vector<std::uint32_t> counts_;
  std::vector<status> statuses_;
  std::vector<std::size_t> pending_;  // the inserts that found both buckets full
  std::vector<signature_index_ref::entry_type> held_;
  std::uint64_t walks_ = 0;
};

}  // namespace

std::unique_ptr<index_service> make_cpu_index(std::size_t capacity, std::uint64_t seed) {
  return std::make_unique<cpu_index>(capacity, seed);
}

}  // namespace gpuhash::server::index

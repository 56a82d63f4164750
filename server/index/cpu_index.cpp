// The server's index on the CPU: signature_index<cpu_backend> run on the
// thread running a shard's batch (a pool of one thread: the server's other
// cores serve connections).

#include <memory>
#include <vector>

#include "gpuhash/cpu/thread_pool.hpp"
#include "gpuhash/signature_index.hpp"
#include "index/index_service.hpp"

namespace gpuhash::server::index {
namespace {

class cpu_index final : public index_service {
 public:
  cpu_index(std::size_t capacity, std::uint64_t seed, bool defer_mutations)
      : pool_(1),
        index_(index_options{capacity, 0.0f, seed}, cpu::stream{&pool_}),
        defers_(defer_mutations) {}

  std::string description() const override { return "cpu"; }
  bool defers_mutations() const noexcept override { return defers_; }
  bool takes_wait_work() const noexcept override { return defers_; }
  signature_type signature(std::string_view key) const noexcept override {
    return index_.signature(key);
  }

  index_results apply(const index_batch& batch, wait_work* while_waiting) override {
    const std::size_t n = batch.size();
    const std::size_t searches = batch.searches();
    matches_.resize(n * max_matches);
    counts_.resize(n);
    // deferring, the buffer this batch writes is not the one handed out last
    std::vector<status>& statuses = statuses_[defers_ ? writing_ : 0];
    statuses.resize(n);
    const cpu::stream stream{&pool_};
    if (batch.searches_only()) {
      index_.find(batch.signatures.data(), n, matches_.data(), counts_.data(), stream);
    } else if (!defers_) {
      index_.apply(batch.ops.data(), batch.signatures.data(), batch.locations.data(),
                   batch.locations.data(), n, matches_.data(), counts_.data(), statuses.data(),
                   stream, batch.inserts);
    } else {
      // as the GPU's: the searches, then the inserts and erases behind them
      index_.find(batch.signatures.data(), searches, matches_.data(), counts_.data(), stream);
      index_.apply(batch.ops.data() + searches, batch.signatures.data() + searches,
                   batch.locations.data() + searches, batch.locations.data() + searches,
                   n - searches, matches_.data() + searches * max_matches,
                   counts_.data() + searches, statuses.data() + searches, stream, batch.inserts);
    }
    // Deferring, as the GPU's does, it lets the caller do one piece of its
    // work as if waiting for a device: the engine's tests then cover work
    // done during the wait and work left when the answer comes.
    if (defers_ && while_waiting != nullptr) while_waiting->step();
    index_results results{matches_.data(), counts_.data()};
    if (!defers_) {
      results.statuses = statuses.data() + searches;
      results.settled = n - searches;
      return results;
    }
    // the last earlier batch's statuses; this one's come with the next
    results.statuses = unsettled_;
    results.settled = unsettled_count_;
    unsettled_ = nullptr;
    unsettled_count_ = 0;
    if (n != searches) {
      unsettled_ = statuses.data() + searches;
      unsettled_count_ = n - searches;
      writing_ ^= 1;
    }
    return results;
  }
  std::size_t entries() const noexcept override { return index_.size(); }
  std::size_t capacity() const noexcept override { return index_.capacity(); }
  std::size_t memory_bytes() const noexcept override { return index_.memory_bytes(); }
  std::size_t rebuilds() const noexcept override { return index_.rebuilds(); }

 private:
  cpu::thread_pool pool_;
  signature_index<cpu_backend> index_;
  std::vector<location_type> matches_;
  std::vector<std::uint32_t> counts_;
  bool defers_;
  // deferring: two status buffers, one written while the other is read
  std::vector<status> statuses_[2];
  std::size_t writing_ = 0;
  const status* unsettled_ = nullptr;  // statuses not handed out yet
  std::size_t unsettled_count_ = 0;
};

}  // namespace

std::unique_ptr<index_service> make_cpu_index(std::size_t capacity, std::uint64_t seed,
                                              bool defer_mutations) {
  return std::make_unique<cpu_index>(capacity, seed, defer_mutations);
}

}  // namespace gpuhash::server::index

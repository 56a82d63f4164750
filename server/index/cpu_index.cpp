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
  cpu_index(std::size_t capacity, std::uint64_t seed)
      : pool_(1), index_(index_options{capacity, 0.0f, seed}, cpu::stream{&pool_}) {}

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
    const cpu::stream stream{&pool_};
    if (batch.searches_only()) {
      index_.find(batch.signatures.data(), n, matches_.data(), counts_.data(), stream);
    } else {
      index_.apply(batch.ops.data(), batch.signatures.data(), batch.locations.data(),
                   batch.locations.data(), n, matches_.data(), counts_.data(), statuses_.data(),
                   stream, batch.inserts);
    }
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
  cpu::thread_pool pool_;
  signature_index<cpu_backend> index_;
  std::vector<location_type> matches_;
  std::vector<std::uint32_t> counts_;
  std::vector<status> statuses_;
};

}  // namespace

std::unique_ptr<index_service> make_cpu_index(std::size_t capacity, std::uint64_t seed) {
  return std::make_unique<cpu_index>(capacity, seed);
}

}  // namespace gpuhash::server::index

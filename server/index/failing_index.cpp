// An index service that fails on purpose, so the engine's move to the CPU
// after a GPU failure is tested on every machine (tests/server/integration:
// GPUHASH_SERVER_INJECT_INDEX_FAILURE).

#include <stdexcept>

#include "index/index_service.hpp"

namespace gpuhash::server::index {
namespace {

class failing_index final : public index_service {
 public:
  failing_index(std::unique_ptr<index_service> index, std::size_t fail_at)
      : index_(std::move(index)), fail_at_(fail_at) {}

  std::string description() const override { return index_->description(); }
  bool on_device() const noexcept override { return index_->on_device(); }
  bool defers_mutations() const noexcept override { return index_->defers_mutations(); }
  bool takes_wait_work() const noexcept override { return index_->takes_wait_work(); }
  signature_type signature(std::string_view key) const noexcept override {
    return index_->signature(key);
  }
  index_results apply(const index_batch& batch, wait_work* while_waiting) override {
    if (++batches_ >= fail_at_)
      throw std::runtime_error("injected index failure at batch " + std::to_string(batches_));
    return index_->apply(batch, while_waiting);
  }
  std::optional<std::chrono::steady_clock::time_point> renew_at() const override {
    return index_->renew_at();
  }
  void renew() override { index_->renew(); }
  std::size_t entries() const noexcept override { return index_->entries(); }
  std::size_t capacity() const noexcept override { return index_->capacity(); }
  std::size_t memory_bytes() const noexcept override { return index_->memory_bytes(); }
  std::size_t rebuilds() const noexcept override { return index_->rebuilds(); }
  std::pmr::memory_resource* batch_memory() const noexcept override {
    return index_->batch_memory();
  }

 private:
  std::unique_ptr<index_service> index_;
  std::size_t fail_at_;
  std::size_t batches_ = 0;
};

}  // namespace

std::unique_ptr<index_service> make_failing_index(std::unique_ptr<index_service> index,
                                                  std::size_t fail_at) {
  return std::make_unique<failing_index>(std::move(index), fail_at);
}

}  // namespace gpuhash::server::index

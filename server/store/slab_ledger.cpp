// memcached's slab accounting, shared by the shards (slab_ledger.hpp).

#include "store/slab_ledger.hpp"

#include <cassert>

namespace gpuhash::server::store {

slab_ledger::slab_ledger(const store_config& config, std::size_t stores)
    : classes_(config),
      stores_(stores),
      memory_limit_(config.memory_limit),
      counts_(classes_.largest()) {}

bool slab_ledger::take_chunk(std::size_t size_class, bool past_limit) {
  assert(size_class >= 1 && size_class <= classes_.largest() && "take_chunk: no such class");
  const std::lock_guard lock(mutex_);
  class_count& count = counts_[size_class - 1];
  if (count.used_chunks < count.pages * classes_.chunks_per_page(size_class)) {
    ++count.used_chunks;
    return true;
  }
  // do_slabs_newslab: within the limit (0: none), or the class's first page
  const std::size_t cost = classes_.page_cost(size_class);
  const bool over = memory_limit_ != 0 && malloced_ + cost > memory_limit_;
  if (over && count.pages > 0 && !past_limit) return false;
  ++count.pages;
  malloced_ += cost;
  ++count.used_chunks;
  return true;
}

void slab_ledger::give_back(std::size_t size_class) noexcept {
  assert(size_class >= 1 && size_class <= classes_.largest() && "give_back: no such class");
  const std::lock_guard lock(mutex_);
  class_count& count = counts_[size_class - 1];
  assert(count.used_chunks > 0 && "give_back: no chunk of the class is in use");
  --count.used_chunks;
}

void slab_ledger::set_memory_limit(std::size_t bytes) {
  const std::lock_guard lock(mutex_);
  memory_limit_ = bytes;
}

std::size_t slab_ledger::memory_limit() const {
  const std::lock_guard lock(mutex_);
  return memory_limit_;
}

slab_numbers slab_ledger::numbers() const {
  slab_numbers numbers;
  numbers.classes.reserve(counts_.size());
  const std::lock_guard lock(mutex_);
  for (std::size_t c = 1; c <= counts_.size(); ++c) {
    numbers.classes.push_back({classes_.chunk_size(c), classes_.chunks_per_page(c),
                               counts_[c - 1].pages, counts_[c - 1].used_chunks});
  }
  numbers.total_malloced = malloced_;
  numbers.memory_limit = memory_limit_;
  return numbers;
}

}  // namespace gpuhash::server::store

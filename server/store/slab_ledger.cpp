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
  class_count& count = counts_[size_class - 1];
  const std::size_t per_page = classes_.chunks_per_page(size_class);
  if (take_free_chunk(count, per_page)) return true;
  const std::lock_guard lock(mutex_);
  // a chunk given back meanwhile, or a page another store added
  if (take_free_chunk(count, per_page)) return true;
  // do_slabs_newslab: within the limit (0: none), or the class's first page
  const std::size_t pages = count.pages.load(std::memory_order_relaxed);
  const std::size_t cost = classes_.page_cost(size_class);
  const bool over = memory_limit_ != 0 && malloced_ + cost > memory_limit_;
  if (over && pages > 0 && !past_limit) return false;
  // The chunk is counted before the page is published: a store that sees
  // the page sees the chunk taken, and one that sees the chunk and not the
  // page finds the class full and waits here.
  count.used_chunks.fetch_add(1, std::memory_order_relaxed);
  count.pages.store(pages + 1, std::memory_order_release);
  malloced_ += cost;
  return true;
}

bool slab_ledger::take_free_chunk(class_count& count, std::size_t per_page) noexcept {
  const std::size_t chunks = count.pages.load(std::memory_order_acquire) * per_page;
  std::size_t used = count.used_chunks.load(std::memory_order_relaxed);
  while (used < chunks) {
    if (count.used_chunks.compare_exchange_weak(used, used + 1, std::memory_order_relaxed))
      return true;
  }
  return false;
}

void slab_ledger::give_back(std::size_t size_class) noexcept {
  assert(size_class >= 1 && size_class <= classes_.largest() && "give_back: no such class");
  [[maybe_unused]] const std::size_t used =
      counts_[size_class - 1].used_chunks.fetch_sub(1, std::memory_order_relaxed);
  assert(used > 0 && "give_back: no chunk of the class is in use");
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
    const class_count& count = counts_[c - 1];
    numbers.classes.push_back({classes_.chunk_size(c), classes_.chunks_per_page(c),
                               count.pages.load(std::memory_order_relaxed),
                               count.used_chunks.load(std::memory_order_relaxed)});
  }
  numbers.total_malloced = malloced_;
  numbers.memory_limit = memory_limit_;
  return numbers;
}

}  // namespace gpuhash::server::store

#pragma once
// memcached's slab allocator as counts, shared by every shard's item_store:
// per class, the pages assigned and the chunks in use; in all, the bytes
// malloced against the memory limit. A store asks it for each chunk
// memcached would take for an item and gives the chunk back when memcached
// would free it; its answers (a free chunk, a new page, or nothing: evict)
// are memcached's do_slabs_alloc's, and its numbers are what `stats slabs`
// and `stats`' total_malloced and limit_maxbytes show. The bytes of the
// items live in the stores' own memory (item_store.hpp).
//
// Threading: every member function may be called from any thread. A
// chunk is taken and given back with one atomic operation on its class's
// count; a new page, the memory limit and the numbers take a mutex
// (memcached's slabs_lock).

#include <atomic>
#include <cstddef>
#include <mutex>
#include <vector>

#include "store/slab_classes.hpp"
#include "store/store_config.hpp"

namespace gpuhash::server::store {

/// One class as `stats slabs` shows it.
struct slab_class_numbers {
  std::size_t chunk_size = 0;
  std::size_t chunks_per_page = 0;
  std::size_t pages = 0;
  std::size_t used_chunks = 0;
};

/// The ledger's numbers at one moment.
struct slab_numbers {
  std::vector<slab_class_numbers> classes;  ///< class c at c - 1
  std::size_t total_malloced = 0;
  std::size_t memory_limit = 0;
};

class slab_ledger {
 public:
  /// `stores`: how many item_stores share it (one per shard).
  explicit slab_ledger(const store_config& config, std::size_t stores = 1);
  slab_ledger(const slab_ledger&) = delete;
  slab_ledger& operator=(const slab_ledger&) = delete;

  const slab_classes& classes() const noexcept { return classes_; }
  std::size_t stores() const noexcept { return stores_; }

  /// memcached's do_slabs_alloc for one chunk of `size_class`: a free chunk
  /// of the class, else a new page for it, which comes within the limit or,
  /// as the class's first page, past it (do_slabs_newslab). false: none,
  /// and nothing changed. `past_limit`: take a new page whatever the limit.
  bool take_chunk(std::size_t size_class, bool past_limit = false);
  /// Frees a chunk taken from `size_class`; pages stay with their class.
  void give_back(std::size_t size_class) noexcept;

  /// memcached's cache_memlimit: pages from now on come within `bytes`;
  /// those already taken stay.
  void set_memory_limit(std::size_t bytes);
  std::size_t memory_limit() const;
  slab_numbers numbers() const;

 private:
  /// A class's pages and chunks in use. Pages only grow, and only under the
  /// mutex; chunks are taken while the used ones are fewer than the pages
  /// hold, with a compare-and-swap.
  struct class_count {
    std::atomic<std::size_t> pages{0};
    std::atomic<std::size_t> used_chunks{0};
  };
  /// Takes a chunk of the pages the class has; false when they are all in use.
  static bool take_free_chunk(class_count& count, std::size_t per_page) noexcept;

  const slab_classes classes_;
  const std::size_t stores_;
  // memcached's slabs_lock: guards the limit, the bytes malloced and the
  // adding of pages. Held for a few additions at a time, never while
  // calling out.
  mutable std::mutex mutex_;
  std::size_t memory_limit_;
  std::size_t malloced_ = 0;
  std::vector<class_count> counts_;  ///< class c at c - 1
};

}  // namespace gpuhash::server::store

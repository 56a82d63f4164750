// memcached's items.c for one shard, single-threaded: items in chunks of the
// store's pages (or blocks), a free list per class threaded through the
// items' own headers, chunks counted by the shared slab_ledger, and
// memcached's do_item_alloc_pull to make room. The LRU's lists, moves and
// pulls are in item_lru.cpp.

#include "store/item_store.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <limits>
#include <new>
#include <utility>

namespace gpuhash::server::store {
namespace {

static_assert(alignof(item) <= 8, "chunks are 8-byte aligned (memcached's CHUNK_ALIGN_BYTES)");
/// item::key_bytes is one byte (memcached's keys have at most 250).
constexpr std::size_t key_bytes_max = 255;
/// The "\r\n" written after each value.
constexpr std::size_t terminator_bytes = 2;
/// memcached's do_item_alloc_pull: passes of reclaiming, allocating and evicting.
constexpr int allocation_passes = 10;
/// Batches a freed block stays readable: an item unlinked in batch b has
/// its index entry erased with batch b + 1, after that batch's finds, and
/// a status of that batch may be read in batch b + 2.
constexpr std::uint64_t block_retirement_batches = 3;

/// The bytes an item takes here: the header, the key, the value and "\r\n".
constexpr std::size_t own_size(std::size_t key_bytes, std::size_t value_bytes) {
  return sizeof(item) + key_bytes + value_bytes + terminator_bytes;
}

}  // namespace

item_store::item_store(slab_ledger& ledger)
    : ledger_(ledger),
      classes_(ledger.classes()),
      lru_(classes_.config().lru),
      cas_enabled_(classes_.config().cas_enabled),
      size_classes_(classes_.largest()) {
  // A page's location is (page << chunk_bits_) | chunk, with room for the
  // smallest class's chunks, below block_location.
  chunk_bits_ = static_cast<unsigned>(std::bit_width(classes_.chunks_per_page(1) - 1));
  chunk_mask_ = (location{1} << chunk_bits_) - 1;
  nameable_pages_ = block_location >> chunk_bits_;
}

item_store::~item_store() = default;

void item_store::on_removal(removal_handler handler) {
  removal_handler_ = std::move(handler);
}

void item_store::on_dead_check(dead_check check) {
  dead_check_ = std::move(check);
}

location item_store::allocate(std::string_view key, std::size_t value_bytes,
                              std::uint32_t client_flags, allocation_error& error, location keep) {
  const std::size_t size_class = class_for(key.size(), value_bytes, client_flags);
  if (size_class == 0) {
    error = allocation_error::too_large;
    return no_location;
  }
  const std::size_t total =
      store::reported_size(key.size(), value_bytes, client_flags, classes_.config().cas_enabled);
  const std::size_t bytes = own_size(key.size(), value_bytes);
  location where = no_location;
  if (classes_.is_chunked(total)) {
    chunked_layout layout = classes_.layout_of(key.size(), value_bytes, client_flags);
    if (!ledger_chunk(layout.header_class, keep)) {
      ++size_classes_[size_class - 1].counts.outofmemory;
      error = allocation_error::out_of_memory;
      juggle_unsettled();
      return no_location;
    }
    if (!ledger_data_chunks(layout, keep)) {
      error = allocation_error::out_of_memory_reading;
      juggle_unsettled();
      return no_location;
    }
    where = take_block(bytes, layout, 0);
  } else if (ledger_chunk(size_class, keep)) {
    // Here an item takes no more than memcached's size but with -C, where
    // its header may need a few bytes more: then a larger chunk, or a block.
    if (bytes <= classes_.chunk_size(size_class)) {
      where = take_chunk(size_class);
    } else if (const std::size_t holding = classes_.class_holding(bytes);
               bytes <= classes_.chunk_size(holding)) {
      where = take_chunk(holding);
    } else {
      where = take_block(bytes, {}, size_class);
    }
    if (where == no_location) ledger_.give_back(size_class);
  }
  if (where == no_location) {
    ++size_classes_[size_class - 1].counts.outofmemory;
    error = allocation_error::out_of_memory;
    juggle_unsettled();
    return no_location;
  }

  item* it = ::new (static_cast<void*>(chunk(where))) item{};
  it->value_bytes = static_cast<std::uint32_t>(value_bytes);
  it->client_flags = client_flags;
  it->key_bytes = static_cast<std::uint8_t>(key.size());
  it->size_class = static_cast<std::uint8_t>(size_class);
  char* const text = reinterpret_cast<char*>(it + 1);
  std::copy_n(key.data(), key.size(), text);
  std::copy_n("\r\n", terminator_bytes, text + key.size() + value_bytes);
  error = allocation_error::none;
  return where;
}

std::size_t item_store::class_for(std::size_t key_bytes, std::size_t value_bytes,
                                  std::uint32_t client_flags) const noexcept {
  if (key_bytes > key_bytes_max || value_bytes > std::numeric_limits<std::uint32_t>::max())
    return 0;
  return classes_.class_for(
      store::reported_size(key_bytes, value_bytes, client_flags, classes_.config().cas_enabled));
}

void item_store::release(location where) {
  item& it = at(where);
  assert(it.size_class != 0 && "release: the chunk is already free");
  assert(!it.linked && "release: a linked item is given back by unlink");
  free_item(where, it);
  juggle_unsettled();
}

void item_store::link(location where, location replaced) {
  item& it = at(where);
  assert(it.size_class != 0 && "link: the chunk is free");
  assert(!it.linked && "link: the item is already linked");
  std::size_t replaced_class = 0;
  if (replaced != no_location) {
    item& old = at(replaced);
    assert(old.linked && "link: the item replaced is not linked");
    replaced_class = old.size_class;
    take_out(replaced, old);
  }
  size_class_state& state = size_classes_[it.size_class - 1];
  // memcached's do_item_alloc: short-lived items enter TEMP, the others HOT,
  // or COLD without segments
  if (is_temporary(it)) {
    it.segment = lru_segment::temp;
  } else {
    it.segment = lru_.segmented ? lru_segment::hot : lru_segment::cold;
  }
  it.active = false;
  const std::size_t size = reported_size(it);
  it.linked = true;
  ++state.counts.linked_items;
  ++linked_items_;
  state.counts.requested_bytes += size;
  bytes_used_ += size;
  lru_push_head(state, where, it);
  juggle(it.size_class, where);
  if (replaced_class != 0 && replaced_class != it.size_class) juggle(replaced_class, no_location);
  juggle_unsettled();
}

void item_store::unlink(location where) {
  item& it = at(where);
  assert(it.linked && "unlink: the item is not linked");
  const std::size_t size_class = it.size_class;
  take_out(where, it);
  juggle(size_class, no_location);
}

/// Unlinks a linked item and frees it.
void item_store::take_out(location where, item& it) noexcept {
  size_class_state& state = size_classes_[it.size_class - 1];
  lru_detach(state, it);
  count_unlinked(state, it);
  free_item(where, it);
}

void item_store::end_batch() {
  juggle_unsettled();  // the classes the batch's reads left to the maintainer
  ++batches_ended_;
  std::erase_if(retired_blocks_, [&](const retired_block& retired) {
    if (batches_ended_ - retired.batch < block_retirement_batches) return false;
    blocks_[retired.number].memory.reset();
    free_blocks_.push_back(retired.number);
    return true;
  });
}

void item_store::for_each_linked(const std::function<void(location, const item&)>& fn) const {
  for (const size_class_state& state : size_classes_) {
    for (const lru_list& list : state.lru) {
      for (location where = list.head; where != no_location;) {
        const item& it = at(where);
        const location next = it.lru_next;
        fn(where, it);
        where = next;
      }
    }
  }
}

void item_store::visit_class(std::size_t size_class,
                             const std::function<bool(const item&)>& visit) const {
  if (size_class == 0 || size_class > size_classes_.size()) return;
  const lru_list& cold = size_classes_[size_class - 1].lru[segment_index(lru_segment::cold)];
  for (location where = cold.head; where != no_location;) {
    const item& it = at(where);
    if (!visit(it)) return;
    where = it.lru_next;
  }
}

location item_store::visit_linked_from(
    location from, const std::function<bool(location, const item&)>& visit) const {
  if ((from & block_location) == 0) {
    for (std::size_t page_index = from >> chunk_bits_; page_index < pages_.size(); ++page_index) {
      const std::size_t chunks = classes_.chunks_per_page(pages_[page_index].size_class);
      const std::size_t first = page_index == (from >> chunk_bits_) ? (from & chunk_mask_) : 0;
      for (std::size_t chunk_index = first; chunk_index < chunks; ++chunk_index) {
        const auto where = static_cast<location>(page_index << chunk_bits_ | chunk_index);
        const item& it = at(where);
        if (it.linked && !visit(where, it)) return where;
      }
    }
    from = block_location;
  }
  for (std::size_t number = from & ~block_location; number < blocks_.size(); ++number) {
    if (!blocks_[number].memory) continue;
    const auto where = static_cast<location>(block_location | number);
    const item& it = at(where);
    if (it.linked && !visit(where, it)) return where;
  }
  return no_location;
}

std::size_t item_store::linked_items() const noexcept {
  return linked_items_;
}
std::size_t item_store::bytes_used() const noexcept {
  return bytes_used_;
}
std::size_t item_store::pages_allocated() const noexcept {
  return pages_.size();
}
std::size_t item_store::blocks_in_use() const noexcept {
  return blocks_in_use_;
}
std::uint64_t item_store::evictions() const noexcept {
  std::uint64_t sum = 0;
  for (const size_class_state& state : size_classes_) sum += state.counts.evictions;
  return sum;
}
std::uint64_t item_store::reclaimed() const noexcept {
  std::uint64_t sum = 0;
  for (const size_class_state& state : size_classes_) sum += state.counts.reclaimed;
  return sum;
}
void item_store::reset_counts() noexcept {
  for (size_class_state& state : size_classes_) {
    class_stats& counts = state.counts;
    counts.evictions = counts.reclaimed = counts.outofmemory = counts.direct_reclaims = 0;
    counts.evicted_active = counts.moves_to_cold = counts.moves_to_warm = 0;
    counts.moves_within_lru = 0;
  }
  juggles_ = 0;
}
std::size_t item_store::item_size_max() const noexcept {
  return classes_.config().item_size_max;
}

std::vector<class_stats> item_store::classes() const {
  std::vector<class_stats> result;
  result.reserve(size_classes_.size());
  for (const size_class_state& state : size_classes_) {
    class_stats& stats = result.emplace_back(state.counts);
    for (std::size_t segment = 0; segment < lru_segments; ++segment) {
      const location tail = state.lru[segment].tail;
      stats.oldest_access[segment] = tail == no_location ? 0 : at(tail).accessed_at;
    }
  }
  return result;
}

/// memcached's do_item_alloc_pull: each pass asks the ledger for a chunk
/// (without segments, after reclaiming the dead items at the class's tail)
/// and when it has none pulls COLD's tail, evicting; when that removes
/// nothing, a segmented LRU moves HOT's tail on (to COLD, or an active item
/// to WARM) for the next pass. The passes that found no chunk count as
/// direct_reclaims. With shards, this shard may have no item of a class the
/// others fill: then the class takes a page past the limit, as its first
/// page would, rather than fail.
bool item_store::ledger_chunk(std::size_t size_class, location keep) {
  size_class_state& state = size_classes_[size_class - 1];
  const bool segmented = lru_.segmented;
  int pass = 0;
  bool taken = false;
  for (; pass < allocation_passes; ++pass) {
    if (!segmented) pull_tail(size_class, lru_segment::cold, pull_mode::move, 0, 0, keep);
    if (ledger_.take_chunk(size_class)) {
      taken = true;
      break;
    }
    if (pull_tail(size_class, lru_segment::cold, pull_mode::evict, 0, 0, keep) <= 0) {
      if (!segmented) break;
      pull_tail(size_class, lru_segment::hot, pull_mode::move, 0, 0, keep);
    }
  }
  state.counts.direct_reclaims += static_cast<std::uint64_t>(pass);
  if (pass > 0) mark_unsettled(size_class);
  if (!taken && ledger_.stores() > 1 && classes_.config().evict && class_is_empty(state))
    taken = ledger_.take_chunk(size_class, true);
  return taken;
}

/// The data chunks of a chunked item whose header chunk is taken, as
/// memcached's do_item_alloc_chunk takes them while it reads the value: the
/// largest class's, then one for what is left, falling back to a largest
/// one when its own class has none. `layout` becomes what was taken; false
/// when a chunk could not be had, with everything given back, the header too.
bool item_store::ledger_data_chunks(chunked_layout& layout, location keep) {
  chunked_layout taken{layout.header_class, 0, 0};
  const std::size_t largest = classes_.largest();
  bool complete = true;
  for (std::size_t k = 0; k < layout.full_chunks && complete; ++k) {
    complete = ledger_chunk(largest, keep);
    if (complete) ++taken.full_chunks;
  }
  if (complete && layout.tail_class != 0) {
    if (ledger_chunk(layout.tail_class, keep)) {
      taken.tail_class = layout.tail_class;
    } else if (ledger_chunk(largest, keep)) {
      ++taken.full_chunks;
    } else {
      complete = false;
    }
  }
  if (!complete) {
    give_back_chunks(taken);
    return false;
  }
  layout = taken;
  return true;
}

void item_store::give_back_chunks(const chunked_layout& layout) noexcept {
  ledger_.give_back(layout.header_class);
  for (std::size_t k = 0; k < layout.full_chunks; ++k) ledger_.give_back(classes_.largest());
  if (layout.tail_class != 0) ledger_.give_back(layout.tail_class);
}

location item_store::take_chunk(std::size_t size_class) {
  size_class_state& state = size_classes_[size_class - 1];
  if (state.free_head == no_location && !add_page(size_class)) return no_location;
  const location where = state.free_head;
  state.free_head = at(where).lru_next;
  return where;
}

location item_store::take_block(std::size_t bytes, const chunked_layout& layout,
                                std::size_t ledger_class) {
  location number = 0;
  if (!free_blocks_.empty()) {
    number = free_blocks_.back();
    free_blocks_.pop_back();
  } else {
    number = static_cast<location>(blocks_.size());
    blocks_.emplace_back();
  }
  block& taken = blocks_[number];
  taken.memory = allocate_aligned(bytes);
  taken.layout = layout;
  taken.ledger_class = ledger_class;
  ++blocks_in_use_;
  return block_location | number;
}

/// Gives an unlinked item's chunks back to the ledger and its memory to the
/// store: a page's chunk to its class's free list, a block to the heap.
void item_store::free_item(location where, item& it) noexcept {
  if ((where & block_location) != 0) {
    const location number = where & ~block_location;
    block& freed = blocks_[number];
    if (freed.ledger_class != 0) {
      ledger_.give_back(freed.ledger_class);
    } else {
      give_back_chunks(freed.layout);
    }
    it.size_class = 0;
    --blocks_in_use_;
    retired_blocks_.push_back({batches_ended_, number});
    return;
  }
  ledger_.give_back(it.size_class);
  size_class_state& state = size_classes_[pages_[where >> chunk_bits_].size_class - 1];
  it.size_class = 0;
  it.lru_next = state.free_head;
  state.free_head = where;
}

bool item_store::add_page(std::size_t size_class) {
  if (pages_.size() >= nameable_pages_) return false;
  const std::size_t chunk_size = classes_.chunk_size(size_class);
  const std::size_t chunks = classes_.chunks_per_page(size_class);
  page& added = pages_.emplace_back();
  added.memory = allocate_aligned(chunk_size * chunks);
  added.size_class = size_class;
  added.chunk_size = chunk_size;
  // memcached's split_slab_page_into_freelist, backwards so that chunk 0 is handed out first.
  size_class_state& state = size_classes_[size_class - 1];
  const auto first = static_cast<location>((pages_.size() - 1) << chunk_bits_);
  for (std::size_t index = chunks; index-- > 0;) {
    item* free = ::new (static_cast<void*>(added.memory.get() + index * chunk_size)) item{};
    free->lru_next = state.free_head;
    state.free_head = first | static_cast<location>(index);
  }
  return true;
}

void item_store::count_unlinked(size_class_state& state, item& it) noexcept {
  it.linked = false;
  --state.counts.linked_items;
  --linked_items_;
  const std::size_t size = reported_size(it);
  state.counts.requested_bytes -= size;
  bytes_used_ -= size;
}

}  // namespace gpuhash::server::store

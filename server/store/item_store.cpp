// memcached's items.c for one shard, single-threaded: a segmented LRU (HOT,
// WARM, COLD lists) and a free list per class, threaded through the items'
// own headers, chunks counted by the shared slab_ledger, memcached's
// do_item_alloc_pull and lru_pull_tail to make room, and its LRU
// maintainer's juggle run at fixed points instead of on a thread.

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
static_assert(alignof(std::max_align_t) >= alignof(item), "pages come from operator new[]");
/// item::key_bytes is one byte (memcached's keys have at most 250).
constexpr std::size_t key_bytes_max = 255;
/// The "\r\n" written after each value.
constexpr std::size_t terminator_bytes = 2;
/// memcached's do_item_alloc_pull: passes of reclaiming, allocating and evicting.
constexpr int allocation_passes = 10;
/// memcached's lru_pull_tail: items looked at from the tail.
constexpr int tail_items_searched = 5;
/// memcached's lru_maintainer_juggle: rounds of pulling the tails at most.
constexpr int juggle_rounds = 500;
/// memcached's ITEM_UPDATE_INTERVAL: without the segmented LRU, a read
/// moves an item to its LRU's head only when its last move is older.
constexpr std::int64_t update_interval = 60;
/// Batches a freed block stays readable: an item unlinked in batch b has
/// its index entry erased with batch b + 1, after that batch's finds, and
/// a status of that batch may be read in batch b + 2.
constexpr std::uint64_t block_retirement_batches = 3;

/// The bytes an item takes here: the header, the key, the value and "\r\n".
constexpr std::size_t own_size(std::size_t key_bytes, std::size_t value_bytes) {
  return sizeof(item) + key_bytes + value_bytes + terminator_bytes;
}

}  // namespace

std::string_view item::key() const noexcept {
  return {reinterpret_cast<const char*>(this + 1), key_bytes};
}

std::span<char> item::value() noexcept {
  return {reinterpret_cast<char*>(this + 1) + key_bytes, value_bytes};
}

std::span<const char> item::value() const noexcept {
  return {reinterpret_cast<const char*>(this + 1) + key_bytes, value_bytes};
}

item_store::item_store(slab_ledger& ledger)
    : ledger_(ledger), classes_(ledger.classes()), size_classes_(classes_.largest()) {
  // A page's location is (page << chunk_bits_) | chunk, with room for the
  // smallest class's chunks, below block_location.
  chunk_bits_ = static_cast<unsigned>(std::bit_width(classes_.chunks_per_page(1) - 1));
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
      return no_location;
    }
    if (!ledger_data_chunks(layout, keep)) {
      error = allocation_error::out_of_memory_reading;
      return no_location;
    }
    where = take_block(bytes, layout, 0);
  } else if (ledger_chunk(size_class, keep)) {
    // Here an item takes no more than memcached's size but with -C, where
    // its header may need a few bytes more: then a larger chunk, or a block.
    const std::size_t holding = classes_.class_holding(bytes);
    if (bytes <= classes_.chunk_size(size_class)) {
      where = take_chunk(size_class);
    } else if (bytes <= classes_.chunk_size(holding)) {
      where = take_chunk(holding);
    } else {
      where = take_block(bytes, {}, size_class);
    }
    if (where == no_location) ledger_.give_back(size_class);
  }
  if (where == no_location) {
    ++size_classes_[size_class - 1].counts.outofmemory;
    error = allocation_error::out_of_memory;
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
}

item& item_store::at(location where) noexcept {
  return *chunk(where);
}

const item& item_store::at(location where) const noexcept {
  return *chunk(where);
}

void item_store::set_now(std::int64_t now) {
  const bool new_second = now != now_;
  now_ = now;
  if (!new_second || !classes_.config().lru_segmented) return;
  for (std::size_t c = 1; c <= size_classes_.size(); ++c)
    if (!class_is_empty(size_classes_[c - 1])) juggle(c, no_location);
}

void item_store::link(location where) {
  item& it = at(where);
  assert(it.size_class != 0 && "link: the chunk is free");
  assert(!it.linked && "link: the item is already linked");
  size_class_state& state = size_classes_[it.size_class - 1];
  // memcached's do_item_alloc: new items enter HOT, or COLD without segments
  it.segment = classes_.config().lru_segmented ? lru_segment::hot : lru_segment::cold;
  it.active = false;
  const std::size_t size = reported_size(it);
  it.linked = true;
  ++state.counts.linked_items;
  ++linked_items_;
  state.counts.requested_bytes += size;
  bytes_used_ += size;
  lru_push_head(state, where, it);
  juggle(it.size_class, where);
}

void item_store::unlink(location where) {
  item& it = at(where);
  assert(it.linked && "unlink: the item is not linked");
  size_class_state& state = size_classes_[it.size_class - 1];
  lru_detach(state, it);
  count_unlinked(state, it);
  free_item(where, it);
}

void item_store::bump(location where) {
  item& it = at(where);
  assert(it.linked && "bump: the item is not linked");
  if (!classes_.config().lru_segmented) {
    it.fetched = true;
    update(where);
    return;
  }
  // memcached's do_item_bump: a second read makes an item active, and a
  // read of an active one changes nothing
  if (it.active) return;
  if (!it.fetched) {
    it.fetched = true;
    return;
  }
  it.active = true;
  if (it.segment != lru_segment::cold) {
    it.accessed_at = now_;
    return;
  }
  // memcached queues this item for its maintainer (lru_bump_async), which
  // runs do_item_update on it a moment later; here it runs now
  update(where);
}

void item_store::update(location where) {
  item& it = at(where);
  assert(it.linked && "update: the item is not linked");
  size_class_state& state = size_classes_[it.size_class - 1];
  if (!classes_.config().lru_segmented) {
    if (it.accessed_at >= now_ - update_interval) return;
    it.accessed_at = now_;
    move_to(state, where, it, lru_segment::cold);
    return;
  }
  it.accessed_at = now_;
  if (it.segment != lru_segment::cold || !it.active) return;
  it.active = false;
  ++state.counts.moves_to_warm;
  move_to(state, where, it, lru_segment::warm);
  juggle(it.size_class, where);
}

void item_store::end_batch() {
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
    const location chunk_mask = (location{1} << chunk_bits_) - 1;
    for (std::size_t page_index = from >> chunk_bits_; page_index < pages_.size(); ++page_index) {
      const std::size_t chunks = classes_.chunks_per_page(pages_[page_index].size_class);
      const std::size_t first = page_index == (from >> chunk_bits_) ? (from & chunk_mask) : 0;
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
std::size_t item_store::reported_size(const item& it) const noexcept {
  return store::reported_size(it.key_bytes, it.value_bytes, it.client_flags,
                              classes_.config().cas_enabled);
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

item* item_store::chunk(location where) const noexcept {
  assert(where != no_location && "no_location names no item");
  if ((where & block_location) != 0) {
    const std::size_t number = where & ~block_location;
    assert(number < blocks_.size() && blocks_[number].memory && "the location's block is freed");
    return std::launder(reinterpret_cast<item*>(blocks_[number].memory.get()));
  }
  const std::size_t page_index = where >> chunk_bits_;
  const std::size_t chunk_index = where & ((location{1} << chunk_bits_) - 1);
  assert(page_index < pages_.size() && "the location's page was never allocated");
  const page& holder = pages_[page_index];
  assert(chunk_index < classes_.chunks_per_page(holder.size_class) &&
         "the location's chunk is past its page's end");
  return std::launder(reinterpret_cast<item*>(
      holder.memory.get() + chunk_index * classes_.chunk_size(holder.size_class)));
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
  const bool segmented = classes_.config().lru_segmented;
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

/// memcached's lru_pull_tail on one segment of a class: up to 5 items from
/// its tail. A dead one is reclaimed and the walk goes on. The first live
/// one ends it: in HOT or WARM, an active item goes to WARM's head (from
/// WARM the walk goes on), an idle one to COLD when the segment holds more
/// than its share of `total_bytes` or the item is older than `max_age`
/// seconds; in COLD it is evicted with pull_mode::evict (not under -M), or
/// moved to WARM when active. `keep` is never removed: passed over as
/// memcached passes over an item a worker holds locked, though it may move.
/// Returns the items removed or moved.
int item_store::pull_tail(std::size_t size_class, lru_segment from, pull_mode mode,
                          std::size_t total_bytes, std::int64_t max_age, location keep) {
  size_class_state& state = size_classes_[size_class - 1];
  const store_config& config = classes_.config();
  lru_list& list = state.lru[segment_index(from)];
  int removed = 0;
  location search = list.tail;
  for (int tries = tail_items_searched; tries > 0 && search != no_location; --tries) {
    item& it = at(search);
    const location next = it.lru_prev;  // before `search` moves
    const bool dead = dead_check_ && dead_check_(it);
    if (search == keep && (dead || mode == pull_mode::evict)) {
      search = next;
      continue;
    }
    if (dead) {
      remove_from_tail(state, search, it, true);
      ++removed;
      search = next;
      continue;
    }
    if (from == lru_segment::cold) {
      if (mode == pull_mode::evict) {
        if (config.evict) {
          remove_from_tail(state, search, it, false);
          ++removed;
        }
      } else if (it.active && config.lru_segmented) {
        it.active = false;
        ++state.counts.moves_to_warm;
        move_to(state, search, it, lru_segment::warm);
        ++removed;
      }
      break;
    }
    const std::size_t share = from == lru_segment::hot ? config.hot_lru_pct : config.warm_lru_pct;
    if (it.active) {
      // memcached rescues active items aggressively
      it.active = false;
      ++removed;
      if (from == lru_segment::warm) {
        ++state.counts.moves_within_lru;
        move_to(state, search, it, lru_segment::warm);
        search = next;
        continue;
      }
      ++state.counts.moves_to_warm;
      move_to(state, search, it, lru_segment::warm);
    } else if (list.bytes > total_bytes * share / 100 || now_ - it.accessed_at > max_age) {
      ++state.counts.moves_to_cold;
      move_to(state, search, it, lru_segment::cold);
      ++removed;
    }
    break;
  }
  return removed;
}

/// Unlinks an item at a tail, counts it, tells the owner and frees it.
void item_store::remove_from_tail(size_class_state& state, location where, item& it, bool dead) {
  lru_detach(state, it);
  count_unlinked(state, it);
  if (dead) {
    ++state.counts.reclaimed;
  } else {
    ++state.counts.evictions;
    if (it.active) ++state.counts.evicted_active;
  }
  if (removal_handler_)
    removal_handler_(where, it, dead ? tail_removal::reclaimed : tail_removal::evicted);
  free_item(where, it);
}

/// memcached's lru_maintainer_juggle for one class: HOT's and WARM's tails
/// are pulled against their shares of the class's bytes and against ages of
/// hot_max_factor and warm_max_factor times COLD's tail age, and COLD's
/// tail for active items (and, in all three, dead ones), until a round
/// moves nothing. `keep` is never removed.
void item_store::juggle(std::size_t size_class, location keep) {
  if (!classes_.config().lru_segmented) return;
  ++juggles_;
  const store_config& config = classes_.config();
  const size_class_state& state = size_classes_[size_class - 1];
  const location cold_tail = state.lru[segment_index(lru_segment::cold)].tail;
  const std::int64_t cold_age =
      cold_tail == no_location ? 0 : std::max<std::int64_t>(0, now_ - at(cold_tail).accessed_at);
  // memcached keeps these ages in whole seconds (rel_time_t)
  const auto hot_age =
      static_cast<std::int64_t>(static_cast<double>(cold_age) * config.hot_max_factor);
  const auto warm_age =
      static_cast<std::int64_t>(static_cast<double>(cold_age) * config.warm_max_factor);
  std::size_t total_bytes = 0;
  for (const lru_list& list : state.lru) total_bytes += list.bytes;
  for (int round = 0; round < juggle_rounds; ++round) {
    int moved = 0;
    if (pull_tail(size_class, lru_segment::hot, pull_mode::move, total_bytes, hot_age, keep) != 0 ||
        pull_tail(size_class, lru_segment::warm, pull_mode::move, total_bytes, warm_age, keep) != 0)
      ++moved;
    moved += pull_tail(size_class, lru_segment::cold, pull_mode::move, total_bytes, 0, keep);
    if (moved == 0) break;
  }
}

/// Moves a linked item to the head of segment `to` (its own: to its head).
void item_store::move_to(size_class_state& state, location where, item& it,
                         lru_segment to) noexcept {
  lru_detach(state, it);
  it.segment = to;
  lru_push_head(state, where, it);
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
  taken.memory = std::make_unique_for_overwrite<std::byte[]>(bytes);
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
  added.memory = std::make_unique_for_overwrite<std::byte[]>(chunk_size * chunks);
  added.size_class = size_class;
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

void item_store::lru_push_head(size_class_state& state, location where, item& it) noexcept {
  lru_list& list = state.lru[segment_index(it.segment)];
  it.lru_prev = no_location;
  it.lru_next = list.head;
  if (list.head != no_location) at(list.head).lru_prev = where;
  list.head = where;
  if (list.tail == no_location) list.tail = where;
  list.bytes += reported_size(it);
  ++state.counts.segment_items[segment_index(it.segment)];
}

void item_store::lru_detach(size_class_state& state, item& it) noexcept {
  lru_list& list = state.lru[segment_index(it.segment)];
  if (it.lru_prev != no_location) {
    at(it.lru_prev).lru_next = it.lru_next;
  } else {
    list.head = it.lru_next;
  }
  if (it.lru_next != no_location) {
    at(it.lru_next).lru_prev = it.lru_prev;
  } else {
    list.tail = it.lru_prev;
  }
  it.lru_prev = no_location;
  it.lru_next = no_location;
  list.bytes -= reported_size(it);
  --state.counts.segment_items[segment_index(it.segment)];
}

bool item_store::class_is_empty(const size_class_state& state) const noexcept {
  return state.counts.linked_items == 0;
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

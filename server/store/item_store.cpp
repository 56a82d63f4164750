// memcached's slabs.c and items.c, single-threaded: size classes of chunks
// carved from pages taken lazily up to the memory limit, a free list and an
// LRU list per class, both threaded through the items' own headers, and
// eviction of the class's least recently used item when no chunk is left.

#include "store/item_store.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

namespace gpuhash::server::store {
namespace {

/// Pages are at least memcached's 1 MB, and larger when item_size_max needs
/// it: the largest class's chunk is a whole page.
constexpr std::size_t page_size_min = std::size_t{1} << 20;
/// A larger page is a whole number of these (the operating system's page).
constexpr std::size_t page_granularity = 4096;
/// Chunk sizes are multiples of this, so every item header is aligned.
constexpr std::size_t chunk_alignment = 8;
static_assert(alignof(item) <= chunk_alignment && chunk_alignment % alignof(item) == 0);
static_assert(alignof(std::max_align_t) >= chunk_alignment, "pages come from operator new[]");
/// memcached's limit on -I.
constexpr std::size_t item_size_max_limit = std::size_t{1} << 30;
/// item::key_bytes is one byte (memcached's keys have at most 250).
constexpr std::size_t key_bytes_max = 255;
/// The "\r\n" written after each value.
constexpr std::size_t terminator_bytes = 2;

constexpr std::size_t round_up(std::size_t n, std::size_t multiple) {
  return (n + multiple - 1) / multiple * multiple;
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

item_store::item_store(store_config config) : config_(config) {
  if (!(config_.growth_factor > 1.0) || !std::isfinite(config_.growth_factor))
    throw std::invalid_argument("growth_factor: " + std::to_string(config_.growth_factor) +
                                " must be a number greater than 1 (memcached's -f)");
  if (config_.item_size_max == 0 || config_.item_size_max > item_size_max_limit)
    throw std::invalid_argument("item_size_max: " + std::to_string(config_.item_size_max) +
                                " bytes is outside 1 byte to 1 GB (memcached's -I)");

  // The largest item (key + value = item_size_max) fills the last class's chunk, a page.
  const std::size_t largest_item = sizeof(item) + config_.item_size_max + terminator_bytes;
  page_size_ = std::max(page_size_min, round_up(largest_item, page_granularity));

  // memcached's slabs_init: each class's chunk is the previous one's times the
  // factor, aligned, up to the point where the next would not fit in a page.
  std::size_t chunk_size = sizeof(item) + std::min(config_.chunk_size_min, page_size_);
  while (size_classes_.size() + 1 < size_classes_max) {
    chunk_size = round_up(chunk_size, chunk_alignment);
    const double next = std::ceil(static_cast<double>(chunk_size) * config_.growth_factor);
    if (next > static_cast<double>(page_size_)) break;
    size_class_state& added = size_classes_.emplace_back();
    added.chunk_size = chunk_size;
    added.chunks_per_page = page_size_ / chunk_size;
    chunk_size = static_cast<std::size_t>(next);
  }
  size_class_state& last = size_classes_.emplace_back();
  last.chunk_size = page_size_;
  last.chunks_per_page = 1;

  // A location is (page << chunk_bits_) | chunk, with room for the smallest
  // class's chunks. The page index whose bits are all ones is never used, so
  // no location equals no_location.
  chunk_bits_ = static_cast<unsigned>(std::bit_width(size_classes_.front().chunks_per_page - 1));
  const std::size_t nameable_pages = no_location >> chunk_bits_;
  nameable_pages_ = nameable_pages;
  // A limit below one page still gets one page, so that small items can be stored at all.
  max_pages_ =
      std::min(std::max<std::size_t>(config_.memory_limit / page_size_, 1), nameable_pages);
}

item_store::~item_store() = default;

void item_store::on_eviction(eviction_handler handler) {
  eviction_handler_ = std::move(handler);
}

bool item_store::set_memory_limit(std::size_t bytes) {
  if (bytes < pages_.size() * page_size_) return false;
  config_.memory_limit = bytes;
  max_pages_ = std::min(std::max<std::size_t>(bytes / page_size_, 1), nameable_pages_);
  return true;
}

void item_store::on_dead_check(dead_check check) {
  dead_check_ = std::move(check);
}

location item_store::allocate(std::string_view key, std::size_t value_bytes,
                              allocation_error& error, location keep) {
  const std::size_t size_class = class_for(key.size(), value_bytes);
  if (size_class == 0) {
    error = allocation_error::too_large;
    return no_location;
  }
  const std::size_t class_index = size_class - 1;
  size_class_state& state = size_classes_[class_index];

  location where = take_free_chunk(state);
  if (where == no_location && add_page(class_index)) where = take_free_chunk(state);
  if (where == no_location && dead_check_) where = reclaim_tail(state, keep);
  if (where == no_location && config_.evict) where = evict_tail(state, keep);
  if (where == no_location) {
    ++state.outofmemory;
    error = allocation_error::out_of_memory;
    return no_location;
  }

  item* it = ::new (static_cast<void*>(chunk(where))) item{};
  it->value_bytes = static_cast<std::uint32_t>(value_bytes);
  it->key_bytes = static_cast<std::uint8_t>(key.size());
  it->size_class = static_cast<std::uint8_t>(class_index + 1);
  char* const bytes = reinterpret_cast<char*>(it + 1);
  std::copy_n(key.data(), key.size(), bytes);
  std::copy_n("\r\n", terminator_bytes, bytes + key.size() + value_bytes);
  ++state.used_chunks;
  error = allocation_error::none;
  return where;
}

std::size_t item_store::class_for(std::size_t key_bytes, std::size_t value_bytes) const noexcept {
  if (key_bytes > key_bytes_max || value_bytes > config_.item_size_max ||
      key_bytes + value_bytes > config_.item_size_max)
    return 0;
  const std::size_t needed = sizeof(item) + key_bytes + value_bytes + terminator_bytes;
  const auto fitting =
      std::ranges::lower_bound(size_classes_, needed, {}, &size_class_state::chunk_size);
  assert(fitting != size_classes_.end() && "the last class holds item_size_max");
  return static_cast<std::size_t>(fitting - size_classes_.begin()) + 1;
}

void item_store::release(location where) {
  item& it = at(where);
  assert(it.size_class != 0 && "release: the chunk is already free");
  assert(!it.linked && "release: a linked item is given back by unlink");
  free_chunk(where, it);
}

item& item_store::at(location where) noexcept {
  return *chunk(where);
}

const item& item_store::at(location where) const noexcept {
  return *chunk(where);
}

void item_store::link(location where) {
  item& it = at(where);
  assert(it.size_class != 0 && "link: the chunk is free");
  assert(!it.linked && "link: the item is already linked");
  size_class_state& state = class_at(where);
  lru_push_head(state, where, it);
  it.linked = true;
  ++state.linked_items;
  ++linked_items_;
  const std::size_t size = reported_size(it);
  state.requested_bytes += size;
  bytes_used_ += size;
}

void item_store::unlink(location where) {
  item& it = at(where);
  assert(it.linked && "unlink: the item is not linked");
  size_class_state& state = class_at(where);
  lru_detach(state, it);
  count_unlinked(state, it);
  free_chunk(where, it);
}

void item_store::bump(location where) {
  item& it = at(where);
  assert(it.linked && "bump: the item is not linked");
  size_class_state& state = class_at(where);
  if (state.lru_head == where) return;
  lru_detach(state, it);
  lru_push_head(state, where, it);
}

void item_store::for_each_linked(const std::function<void(location, const item&)>& fn) const {
  for (const size_class_state& state : size_classes_) {
    for (location where = state.lru_head; where != no_location;) {
      const item& it = at(where);
      const location next = it.lru_next;
      fn(where, it);
      where = next;
    }
  }
}

void item_store::visit_class(std::size_t size_class,
                             const std::function<bool(const item&)>& visit) const {
  if (size_class == 0 || size_class > size_classes_.size()) return;
  for (location where = size_classes_[size_class - 1].lru_head; where != no_location;) {
    const item& it = at(where);
    if (!visit(it)) return;
    where = it.lru_next;
  }
}

location item_store::visit_linked_from(
    location from, const std::function<bool(location, const item&)>& visit) const {
  const location chunk_mask = (location{1} << chunk_bits_) - 1;
  for (std::size_t page_index = from >> chunk_bits_; page_index < pages_.size(); ++page_index) {
    const std::size_t chunks = size_classes_[pages_[page_index].class_index].chunks_per_page;
    const std::size_t first = page_index == (from >> chunk_bits_) ? (from & chunk_mask) : 0;
    for (std::size_t chunk_index = first; chunk_index < chunks; ++chunk_index) {
      const auto where = static_cast<location>(page_index << chunk_bits_ | chunk_index);
      const item& it = at(where);
      if (it.linked && !visit(where, it)) return where;
    }
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
  return store::reported_size(it.key_bytes, it.value_bytes, config_.cas_enabled);
}
std::size_t item_store::pages_allocated() const noexcept {
  return pages_.size();
}
std::size_t item_store::page_size() const noexcept {
  return page_size_;
}
std::uint64_t item_store::evictions() const noexcept {
  std::uint64_t sum = 0;
  for (const size_class_state& state : size_classes_) sum += state.evictions;
  return sum;
}
std::uint64_t item_store::reclaimed() const noexcept {
  std::uint64_t sum = 0;
  for (const size_class_state& state : size_classes_) sum += state.reclaimed;
  return sum;
}
void item_store::reset_counts() noexcept {
  for (size_class_state& state : size_classes_)
    state.evictions = state.reclaimed = state.outofmemory = 0;
}
std::size_t item_store::item_size_max() const noexcept {
  return config_.item_size_max;
}
std::size_t item_store::memory_limit() const noexcept {
  return config_.memory_limit;
}

std::vector<class_stats> item_store::classes() const {
  std::vector<class_stats> result;
  result.reserve(size_classes_.size());
  for (const size_class_state& state : size_classes_) {
    class_stats& stats = result.emplace_back();
    stats.chunk_size = state.chunk_size;
    stats.chunks_per_page = state.chunks_per_page;
    stats.pages = state.pages;
    stats.used_chunks = state.used_chunks;
    stats.free_chunks = state.free_chunks;
    stats.linked_items = state.linked_items;
    stats.requested_bytes = state.requested_bytes;
    stats.evictions = state.evictions;
    stats.reclaimed = state.reclaimed;
    stats.outofmemory = state.outofmemory;
    stats.oldest_access = state.lru_tail == no_location ? 0 : at(state.lru_tail).accessed_at;
  }
  return result;
}

item* item_store::chunk(location where) const noexcept {
  assert(where != no_location && "no_location names no item");
  const std::size_t page_index = where >> chunk_bits_;
  const std::size_t chunk_index = where & ((location{1} << chunk_bits_) - 1);
  assert(page_index < pages_.size() && "the location's page was never allocated");
  const page& holder = pages_[page_index];
  const size_class_state& state = size_classes_[holder.class_index];
  assert(chunk_index < state.chunks_per_page && "the location's chunk is past its page's end");
  return std::launder(
      reinterpret_cast<item*>(holder.memory.get() + chunk_index * state.chunk_size));
}

item_store::size_class_state& item_store::class_at(location where) noexcept {
  return size_classes_[pages_[where >> chunk_bits_].class_index];
}

location item_store::take_free_chunk(size_class_state& state) noexcept {
  const location where = state.free_head;
  if (where == no_location) return no_location;
  state.free_head = at(where).lru_next;
  --state.free_chunks;
  return where;
}

void item_store::free_chunk(location where, item& it) noexcept {
  size_class_state& state = class_at(where);
  it.size_class = 0;
  it.lru_next = state.free_head;
  state.free_head = where;
  --state.used_chunks;
  ++state.free_chunks;
}

bool item_store::add_page(std::size_t class_index) {
  size_class_state& state = size_classes_[class_index];
  // As memcached's do_slabs_newslab: a class's first page is granted even
  // past the limit, so a small -m never leaves a size class unable to store.
  if (pages_.size() >= nameable_pages_) return false;
  if (pages_.size() >= max_pages_ && state.pages != 0) return false;
  page& added = pages_.emplace_back();
  added.memory = std::make_unique_for_overwrite<std::byte[]>(page_size_);
  added.class_index = class_index;
  ++state.pages;
  // memcached's split_slab_page_into_freelist, backwards so that chunk 0 is handed out first.
  const auto first = static_cast<location>((pages_.size() - 1) << chunk_bits_);
  for (std::size_t index = state.chunks_per_page; index-- > 0;) {
    item* free = ::new (static_cast<void*>(added.memory.get() + index * state.chunk_size)) item{};
    free->lru_next = state.free_head;
    state.free_head = first | static_cast<location>(index);
  }
  state.free_chunks += state.chunks_per_page;
  return true;
}

/// Reuses the chunk of a dead item (expired or flushed) near the LRU tail,
/// with or without -M, as memcached's lru_pull_tail does: such an item is
/// already gone for every client.
location item_store::reclaim_tail(size_class_state& state, location keep) {
  constexpr int tail_items_searched = 5;
  location candidate = state.lru_tail;
  for (int searched = 0; searched < tail_items_searched && candidate != no_location; ++searched) {
    item& it = at(candidate);
    if (candidate != keep && dead_check_(it)) {
      lru_detach(state, it);
      count_unlinked(state, it);
      --state.used_chunks;
      ++state.reclaimed;
      if (eviction_handler_) eviction_handler_(candidate, it);
      return candidate;
    }
    candidate = it.lru_prev;
  }
  return no_location;
}

location item_store::evict_tail(size_class_state& state, location keep) {
  location victim = state.lru_tail;
  if (victim != no_location && victim == keep) victim = at(victim).lru_prev;
  if (victim == no_location) return no_location;
  item& it = at(victim);
  lru_detach(state, it);
  count_unlinked(state, it);
  // The chunk passes straight to the new item (allocate counts it again),
  // never through the free list, so the handler still reads the old key.
  --state.used_chunks;
  ++state.evictions;
  if (eviction_handler_) eviction_handler_(victim, it);
  return victim;
}

void item_store::lru_push_head(size_class_state& state, location where, item& it) noexcept {
  it.lru_prev = no_location;
  it.lru_next = state.lru_head;
  if (state.lru_head != no_location) at(state.lru_head).lru_prev = where;
  state.lru_head = where;
  if (state.lru_tail == no_location) state.lru_tail = where;
}

void item_store::lru_detach(size_class_state& state, item& it) noexcept {
  if (it.lru_prev != no_location) {
    at(it.lru_prev).lru_next = it.lru_next;
  } else {
    state.lru_head = it.lru_next;
  }
  if (it.lru_next != no_location) {
    at(it.lru_next).lru_prev = it.lru_prev;
  } else {
    state.lru_tail = it.lru_prev;
  }
  it.lru_prev = no_location;
  it.lru_next = no_location;
}

void item_store::count_unlinked(size_class_state& state, item& it) noexcept {
  it.linked = false;
  --state.linked_items;
  --linked_items_;
  const std::size_t size = reported_size(it);
  state.requested_bytes -= size;
  bytes_used_ -= size;
}

}  // namespace gpuhash::server::store

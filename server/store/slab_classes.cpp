// memcached 1.6.18's slab class table and chunked-item layout (slab_classes.hpp).

#include "store/slab_classes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace gpuhash::server::store {
namespace {

/// sizeof(item) and sizeof(item_chunk) in a 64-bit memcached build.
constexpr std::size_t memcached_item_header = 48;
constexpr std::size_t memcached_chunk_header = 48;
/// memcached's CHUNK_ALIGN_BYTES.
constexpr std::size_t chunk_alignment = 8;
/// memcached's limit on -I.
constexpr std::size_t item_size_max_limit = std::size_t{1} << 30;

}  // namespace

slab_classes::slab_classes(const store_config& config) : config_(config) {
  if (!(config_.growth_factor > 1.0) || !std::isfinite(config_.growth_factor))
    throw std::invalid_argument("growth_factor: " + std::to_string(config_.growth_factor) +
                                " must be a number greater than 1 (memcached's -f)");
  if (config_.item_size_max == 0 || config_.item_size_max > item_size_max_limit)
    throw std::invalid_argument("item_size_max: " + std::to_string(config_.item_size_max) +
                                " bytes is outside 1 byte to 1 GB (memcached's -I)");
  if (config_.slab_chunk_max <= memcached_chunk_header ||
      config_.slab_chunk_max > slab_page_bytes || slab_page_bytes % config_.slab_chunk_max != 0)
    throw std::invalid_argument("slab_chunk_max: " + std::to_string(config_.slab_chunk_max) +
                                " bytes must be more than a chunk's 48-byte header and divide "
                                "the 1 MB slab page (memcached's -o slab_chunk_max)");

  // slabs_init: the header plus -n, aligned, grown by the factor with
  // memcached's unsigned truncation, while it stays under the largest
  // chunk over the factor; the largest class's chunk is slab_chunk_max.
  const double grow_until = static_cast<double>(config_.slab_chunk_max) / config_.growth_factor;
  std::uint64_t size = memcached_item_header + config_.chunk_size_min;
  while (chunk_sizes_.size() + 1 < size_classes_max) {
    if (static_cast<double>(size) >= grow_until) break;
    if (size % chunk_alignment != 0) size += chunk_alignment - size % chunk_alignment;
    chunk_sizes_.push_back(size);
    size = static_cast<std::uint64_t>(static_cast<double>(size) * config_.growth_factor);
  }
  chunk_sizes_.push_back(config_.slab_chunk_max);
  // Every chunk size is a multiple of 8 (the aligned ones, and a divisor of
  // the 1 MB page over 48 bytes): the first chunk that holds a size holds
  // the size rounded up to 8, so one entry per 8 bytes answers exactly.
  class_by_eighths_.resize(small_bytes / chunk_alignment + 1);
  for (std::size_t eighths = 0; eighths < class_by_eighths_.size(); ++eighths) {
    class_by_eighths_[eighths] =
        static_cast<std::uint8_t>(search_class_holding(eighths * chunk_alignment));
  }
}

std::size_t slab_classes::page_cost(std::size_t size_class) const noexcept {
  if (config_.slab_reassign || config_.slab_chunk_max != slab_page_bytes) return slab_page_bytes;
  return chunk_size(size_class) * chunks_per_page(size_class);
}

std::size_t slab_classes::class_for(std::size_t total_bytes) const noexcept {
  if (total_bytes == 0 || total_bytes > config_.item_size_max) return 0;
  return class_holding(total_bytes);
}

std::size_t slab_classes::class_holding(std::size_t bytes) const noexcept {
  if (bytes <= small_bytes)
    return class_by_eighths_[(bytes + chunk_alignment - 1) / chunk_alignment];
  return search_class_holding(bytes);
}

std::size_t slab_classes::search_class_holding(std::size_t bytes) const noexcept {
  const auto fitting = std::ranges::lower_bound(chunk_sizes_, bytes);
  if (fitting == chunk_sizes_.end()) return largest();
  return static_cast<std::size_t>(fitting - chunk_sizes_.begin()) + 1;
}

chunked_layout slab_classes::layout_of(std::size_t key_bytes, std::size_t value_bytes,
                                       std::uint32_t client_flags) const noexcept {
  chunked_layout layout;
  // do_item_alloc: the header chunk holds memcached's header, the key and
  // its NUL, the flags, the CAS and an item_chunk (whose size is 0: the
  // value goes to the chunks after it).
  const std::size_t header = memcached_item_header + key_bytes + 1 +
                             (client_flags != 0 ? sizeof(client_flags) : 0) +
                             memcached_chunk_header + (config_.cas_enabled ? 8 : 0);
  layout.header_class = class_holding(header);
  // read_into_chunked_item and do_item_alloc_chunk: each chunk is asked for
  // the bytes still to come (the value and its "\r\n") plus its own header,
  // at most slab_chunk_max.
  std::size_t remaining = value_bytes + 2;
  const std::size_t room = config_.slab_chunk_max - memcached_chunk_header;
  while (remaining > 0) {
    if (remaining + memcached_chunk_header >= config_.slab_chunk_max) {
      ++layout.full_chunks;
      remaining -= std::min(remaining, room);
    } else {
      layout.tail_class = class_holding(remaining + memcached_chunk_header);
      remaining = 0;
    }
  }
  return layout;
}

}  // namespace gpuhash::server::store

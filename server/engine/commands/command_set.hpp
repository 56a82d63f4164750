#pragma once
// The commands run_request dispatches to, one file a family (storage.cpp,
// retrieval.cpp, arithmetic.cpp, admin.cpp, metadump.cpp, meta_*.cpp).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/commands/commands.hpp"

namespace gpuhash::server::engine {

/// Counts a command in the counters of the size class of the item it hit or
/// stores (memcached's per-class slab_stats: `stats slabs`).
inline void count_in_class(shard_state& state, std::size_t size_class,
                           std::uint64_t class_command_counts::*counter) {
  ++(state.counts.classes[size_class].*counter);
}

/// Counts a read hit in the counters of the item's class and LRU segment
/// before the read moves it (memcached's lru_hits: `stats items`'
/// hits_to_hot, hits_to_warm, hits_to_cold, hits_to_temp), with its class's get_hits.
inline void count_read_hit(shard_state& state, std::size_t size_class, store::lru_segment segment) {
  class_command_counts& counts = state.counts.classes[size_class];
  ++counts.get_hits;
  ++counts.hits_to_segment[store::segment_index(segment)];
}
inline void count_read_hit(shard_state& state, const store::item& item) {
  count_read_hit(state, item.size_class, item.segment);
}

/// A store's class, by the key, the data and the client flags it stores (0:
/// too large): for an append, that of its data alone, as memcached counts it.
inline std::size_t class_of_store(const shard_state& state, std::string_view key,
                                  std::string_view data, std::uint32_t client_flags) {
  return state.items.store().class_for(key.size(), data.size(), client_flags);
}

/// At least the bytes of a reply carrying the item's value (its line and
/// the meta flags included), checked against the group's budget before the
/// value is copied in.
inline std::size_t reply_bound(const store::item& item) noexcept {
  return 2 * std::size_t{item.key_bytes} + item.value_bytes + 320;
}

// storage.cpp: set add replace append prepend cas, delete, touch
void run_storage(shard_state& state, const protocol::request& request, key_ref key,
                 std::string& out);
void run_delete(shard_state& state, const protocol::request& request, key_ref key,
                std::string& out);
void run_touch(shard_state& state, const protocol::request& request, key_ref key, std::string& out);
/// The reply to a store's result (classic commands).
std::string_view reply_of(store_result result);
/// Counts a compare-and-swap's result (cas, and ms with C in set or replace
/// mode) in cas_hits, cas_badval or cas_misses, the first two also in the
/// class of the item it compared with (`old_class`), as memcached's
/// do_store_item counts them.
void count_compare_and_swap(shard_state& state, store_result result, std::size_t old_class);

// retrieval.cpp: get gets gat gats
bool run_retrieval(shard_state& state, work_item& work, std::size_t first_search,
                   request_group& group);

// arithmetic.cpp: incr decr
/// noreply silences every reply, errors included, as in memcached, unless
/// `errors_despite_noreply` (for `ma`, which runs it with noreply to write
/// its own reply, and whose errors are always sent).
void run_arithmetic(shard_state& state, key_ref key, bool incr, std::uint64_t delta, bool noreply,
                    std::string& out, bool errors_despite_noreply = false);

// admin.cpp: flush_all cache_memlimit lru stats shutdown
void run_flush_all(shard_state& state, const protocol::request& request, std::string& out);
void run_cache_memlimit(shard_state& state, const protocol::request& request, std::string& out);
void run_lru(shard_state& state, const protocol::request& request, std::string& out);
void run_stats(shard_state& state, const protocol::request& request, request_group& group);
void run_shutdown(shard_state& state, const protocol::request& request, request_group& group);

// metadump.cpp: lru_crawler metadump
bool run_metadump(shard_state& state, work_item& work, std::size_t first_search,
                  request_group& group);
/// The item fields metadump and `me` print: " exp= la= cas= fetch= cls=
/// size=", with exp (-1: never), la and size (store::reported_size) given by
/// the caller.
void append_item_fields(const store::item& item, std::int64_t exp, std::int64_t la,
                        std::size_t size, std::string& out);

// meta.cpp and meta_*.cpp: mg ms md ma mn me
bool run_meta(shard_state& state, const protocol::request& request, std::size_t search,
              request_group& group);
void run_meta_get(shard_state& state, const protocol::request& request, key_ref key,
                  std::string& out);
void run_meta_set(shard_state& state, const protocol::request& request, key_ref key,
                  std::string& out);
void run_meta_delete(shard_state& state, const protocol::request& request, key_ref key,
                     std::string& out);
void run_meta_arithmetic(shard_state& state, const protocol::request& request, key_ref key,
                         std::string& out);

}  // namespace gpuhash::server::engine

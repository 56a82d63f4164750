// `stats items` and `stats slabs` in memcached 1.6.18's format (render.hpp):
// each size class's lines, memcached's fields in its order. A class's items
// are in the store's HOT, WARM, COLD and TEMP segments (all in COLD without
// the segmented LRU, as in memcached without its LRU maintainer).

#include <string>

#include "engine/stats/render.hpp"
#include "engine/stats/stat_writer.hpp"

namespace gpuhash::server::engine {

namespace {

constexpr std::size_t hot = store::segment_index(store::lru_segment::hot);
constexpr std::size_t warm = store::segment_index(store::lru_segment::warm);
constexpr std::size_t cold = store::segment_index(store::lru_segment::cold);
constexpr std::size_t temp = store::segment_index(store::lru_segment::temp);

/// The numbers of one class's LRU segments (the maintainer's fields).
void render_segments(const std::string& prefix, const class_numbers& numbers, bool temp_lru,
                     stat_writer& stat) {
  const auto& items = numbers.store.segment_items;
  stat(prefix + "number_hot", items[hot]);
  stat(prefix + "number_warm", items[warm]);
  stat(prefix + "number_cold", items[cold]);
  if (temp_lru) stat(prefix + "number_temp", items[temp]);
  stat(prefix + "age_hot", numbers.age[hot]);
  stat(prefix + "age_warm", numbers.age[warm]);
}

/// The moves between segments and the hits to each (the maintainer's fields).
void render_moves_and_hits(const std::string& prefix, const class_numbers& numbers,
                           const class_command_counts& commands, stat_writer& stat) {
  const store::class_stats& store = numbers.store;
  stat(prefix + "moves_to_cold", store.moves_to_cold);
  stat(prefix + "moves_to_warm", store.moves_to_warm);
  stat(prefix + "moves_within_lru", store.moves_within_lru);
  stat(prefix + "direct_reclaims", store.direct_reclaims);
  stat(prefix + "hits_to_hot", commands.hits_to_segment[hot]);
  stat(prefix + "hits_to_warm", commands.hits_to_segment[warm]);
  stat(prefix + "hits_to_cold", commands.hits_to_segment[cold]);
  stat(prefix + "hits_to_temp", commands.hits_to_segment[temp]);
}

void render_class_items(std::size_t c, const shard_numbers& numbers, const shown_counters& shown,
                        stat_writer& stat) {
  const class_numbers& each = numbers.classes[c];
  const store::class_stats& store = each.store;
  const class_item_counts& items = each.items;
  const std::string prefix = "items:" + std::to_string(c + 1) + ":";
  stat(prefix + "number", store.linked_items);
  if (shown.lru_maintainer) render_segments(prefix, each, numbers.temp_lru, stat);
  stat(prefix + "age", each.age[cold]);
  stat(prefix + "mem_requested", store.requested_bytes);
  stat(prefix + "evicted", store.evictions);
  stat(prefix + "evicted_nonzero", items.evicted_nonzero);
  stat(prefix + "evicted_time", items.evicted_time);
  stat(prefix + "outofmemory", store.outofmemory);
  stat(prefix + "tailrepairs", 0);  // no reference counts to leak
  stat(prefix + "reclaimed", store.reclaimed);
  stat(prefix + "expired_unfetched", items.expired_unfetched);
  stat(prefix + "evicted_unfetched", items.evicted_unfetched);
  if (shown.lru_maintainer) stat(prefix + "evicted_active", store.evicted_active);
  stat(prefix + "crawler_reclaimed", 0);  // no LRU crawler
  stat(prefix + "crawler_items_checked", 0);
  stat(prefix + "lrutail_reflocked", 0);  // no references held on items
  if (shown.lru_maintainer)
    render_moves_and_hits(prefix, each, numbers.commands.classes[c + 1], stat);
}

void render_class_slabs(std::size_t c, const shard_numbers& numbers, stat_writer& stat) {
  const store::slab_class_numbers& slabs = numbers.slabs.classes[c];
  const class_command_counts& commands = numbers.commands.classes[c + 1];
  const std::string prefix = std::to_string(c + 1) + ":";
  const std::size_t total_chunks = slabs.pages * slabs.chunks_per_page;
  stat(prefix + "chunk_size", slabs.chunk_size);
  stat(prefix + "chunks_per_page", slabs.chunks_per_page);
  stat(prefix + "total_pages", slabs.pages);
  stat(prefix + "total_chunks", total_chunks);
  stat(prefix + "used_chunks", slabs.used_chunks);
  stat(prefix + "free_chunks", total_chunks - slabs.used_chunks);
  stat(prefix + "free_chunks_end", 0);  // dead in memcached 1.6 too
  stat(prefix + "get_hits", commands.get_hits);
  stat(prefix + "cmd_set", commands.cmd_set);
  stat(prefix + "delete_hits", commands.delete_hits);
  stat(prefix + "incr_hits", commands.incr_hits);
  stat(prefix + "decr_hits", commands.decr_hits);
  stat(prefix + "cas_hits", commands.cas_hits);
  stat(prefix + "cas_badval", commands.cas_badval);
  stat(prefix + "touch_hits", commands.touch_hits);
}

}  // namespace

void render_items(const shard_numbers& numbers, const shown_counters& shown, std::string& out) {
  stat_writer stat{out};
  for (std::size_t c = 0; c < numbers.classes.size(); ++c)
    if (numbers.classes[c].store.linked_items != 0) render_class_items(c, numbers, shown, stat);
}

void render_slabs(const shard_numbers& numbers, std::string& out) {
  stat_writer stat{out};
  std::size_t active = 0;
  for (std::size_t c = 0; c < numbers.slabs.classes.size(); ++c) {
    if (numbers.slabs.classes[c].pages == 0) continue;
    ++active;
    render_class_slabs(c, numbers, stat);
  }
  stat("active_slabs", active);
  stat("total_malloced", numbers.slabs.total_malloced);
}

}  // namespace gpuhash::server::engine

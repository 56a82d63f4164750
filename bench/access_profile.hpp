#pragma once
// What the benchmark knows of a table's memory accesses, for judging its
// rates against the yardsticks (yardsticks.hpp): its design's name, its read
// unit, whether its finds read by tiles and whether it reorders its batches.
// Told by the engine's geometry and settings (basic_map::engine_type,
// engine()), not by naming detail:: engines.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuhash/bucketed_cuckoo_config.hpp"  // bucketed_cuckoo_find_path
#include "gpuhash/dachash_config.hpp"          // dachash_mapping
#include "yardsticks.hpp"

namespace gpuhash::bench {

/// The bytes a table reads as one unit: a bucket (bucketed cuckoo), a node
/// (DACHash; Cuckoo Node Hashing's, over which its candidates spread), else
/// a slot (linear probing, dynamic HashGraph: for a wide value, its key and
/// version, the value being in a row apart); a sector where the table tells
/// none.
template <class Table>
constexpr std::uint32_t read_unit_bytes() {
  if constexpr (requires { typename Table::engine_type; }) {
    using engine = typename Table::engine_type;
    if constexpr (requires { engine::bucket_bytes; })
      return engine::bucket_bytes;
    else if constexpr (requires { engine::node_bytes; })
      return engine::node_bytes;
    else if constexpr (requires { engine::slots_per_node; })
      return engine::slots_per_node *
             static_cast<std::uint32_t>(sizeof(typename Table::key_type) +
                                        sizeof(typename Table::mapped_type));
    else if constexpr (requires { typename engine::slot_type; })
      return static_cast<std::uint32_t>(sizeof(typename engine::slot_type));
  }
  return 32;
}

/// Whether Table's configuration reads each bucket whole by a tile of lanes
/// in its find batches (bucketed_cuckoo_find_path::tile).
template <class Table>
constexpr bool tile_find_path() {
  if constexpr (requires { Table::engine_type::finds; })
    return Table::engine_type::finds == bucketed_cuckoo_find_path::tile;
  else
    return false;
}

/// Whether a table's find batches read each bucket or node whole by a tile
/// of lanes: bucketed cuckoo's tile find path, DACHash's many-to-one
/// mapping (a table's setting; the dynamic mapping runs batches of one kind
/// one-to-one).
template <class Table>
bool finds_by_tile(const Table& table) {
  if constexpr (tile_find_path<Table>())
    return true;
  else if constexpr (requires { table.engine().settings().mapping; })
    return table.engine().settings().mapping == dachash_mapping::many_to_one;
  else
    return false;
}

/// Whether a table runs its batches reordered by bucket (DACHash's and
/// Cuckoo Node Hashing's reorder, a table's setting).
template <class Table>
bool reorders_batches(const Table& table) {
  if constexpr (requires { table.engine().settings().combined_buckets; })
    return table.engine().settings().combined_buckets > 0;
  else
    return false;
}

/// What a batch of `table`'s that mixes operations (each with its share) is
/// judged against: its design's yardstick for each (a find read by tiles:
/// find_hit_tile, find_miss_tile); `workload` says what of the workload can
/// take the rate above the limit, to which a reordering table adds its
/// reorder.
template <class Table>
judged_by judge_mix(const Table& table, std::vector<op_share> ops, std::string workload = {}) {
  const bool tiles = finds_by_tile(table);
  for (op_share& part : ops)
    if (tiles && (part.op == "find_hit" || part.op == "find_miss")) part.op += "_tile";
  if (reorders_batches(table))
    workload += (workload.empty() ? "" : "; ") + std::string(reordered_batch_reason);
  return {std::string(Table::design_name), read_unit_bytes<Table>(), std::move(ops),
          std::move(workload)};
}

/// The same for a batch of one operation.
template <class Table>
judged_by judge(const Table& table, std::string_view op, std::string workload = {}) {
  return judge_mix(table, {{std::string(op), 1.0}}, std::move(workload));
}

/// What an operation that a kernel runs through Table's ref is judged
/// against: refs run in the caller's order, a find by one thread per key
/// (find_hit, find_miss) or by a tile (find_hit_tile, find_miss_tile).
template <class Table>
judged_by judge_ref(std::string_view op, std::string workload = {}) {
  return {std::string(Table::design_name),
          read_unit_bytes<Table>(),
          {{std::string(op), 1.0}},
          std::move(workload)};
}

}  // namespace gpuhash::bench

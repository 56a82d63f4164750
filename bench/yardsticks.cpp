#include "yardsticks.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <stdexcept>

#include "limits.hpp"

namespace gpuhash::bench {

namespace {

// Reasons shared by several designs.
constexpr std::string_view offsets_left_out =
    "the yardstick leaves out the read of the bucket's start; the fraction counts it as loss";
constexpr std::string_view small_offsets_in_l2 =
    "its slice offsets take 1/32 of the table or less, where the limit's directory takes half the "
    "L2 cache: a table not many times L2's size keeps more of its slots in L2 than the limit's "
    "buffer does";

// The table. Reads: a find is judged against the read of the sector that
// holds its key (random_read_32) unless the design reads a bucket or node
// whole in one request (a tile of lanes: random_read_unit). Writes: against
// a read then a CAS in the sector read (read_then_cas_write), the cheapest
// write that first looks at its slot.
constexpr yardstick table[] = {
    // Linear probing (docs/designs/linear_probing.md).
    {"linear_probing", "insert", "read_then_cas_write",
     "reads the slots of its probe sequence one at a time (relaxed loads) and claims the first "
     "empty one by CAS, in the sector it read; at low load that is its home slot",
     ""},
    {"linear_probing", "find_hit", "random_read_unit",
     "reads 16-byte windows of slots (32/32) or the key's slot (wider pairs; a wide value's "
     "sectors after it): at low load one random read of the slot's sectors",
     ""},
    {"linear_probing", "find_miss", "random_read_32",
     "reads windows until an empty slot: one sector at low load, a run of them as the load rises "
     "(the fraction counts the run as loss)",
     ""},
    {"linear_probing", "erase", "read_then_cas_write",
     "probes to its key, then a CAS of that slot to a tombstone", ""},
    {"linear_probing", "upsert", "read_then_cas_write",
     "probes to its key or an empty slot, then a CAS of that slot", ""},

    // Bucketed cuckoo (docs/designs/bucketed_cuckoo.md).
    {"bucketed_cuckoo", "insert", "read_then_cas_write",
     "phase 1 reads its first bucket and claims an empty slot there by CAS; keys whose first "
     "bucket is full read their next ones, and keys whose buckets are all full wait for phase "
     "2's eviction walks, which the fraction counts as loss",
     ""},
    {"bucketed_cuckoo", "find_hit", "random_read_32",
     "one thread scans its first bucket (its next ones only if the key is there): at least the "
     "sector that holds its key; a 32/32 bucket is one sector, a wider one costs more, which the "
     "fraction counts as loss",
     ""},
    {"bucketed_cuckoo", "find_miss", "random_read_32",
     "scans its first bucket and stops at an empty slot; where that bucket is full (most of them "
     "above load 0.8) it reads the next ones too (up to four), which the fraction counts as loss",
     ""},
    {"bucketed_cuckoo", "find_hit_tile", "random_read_unit",
     "a tile of bucket_bytes / 16 lanes reads its first bucket whole, in one request (its "
     "next ones only if the key is there)",
     ""},
    {"bucketed_cuckoo", "find_miss_tile", "random_read_unit",
     "a tile reads its first bucket whole; the next ones where those before are full", ""},
    {"bucketed_cuckoo", "erase", "read_then_cas_write",
     "scans to its key and CASes it to a tombstone in the sector read", ""},
    {"bucketed_cuckoo", "upsert", "read_then_cas_write",
     "scans to its key or an empty slot and CASes it in the sector read", ""},

    // DACHash (docs/designs/dachash.md): one-to-one batches read a node a
    // sector at a time; many-to-one (the slab preset, or a forced mapping)
    // reads a node whole by a tile.
    {"dachash", "insert", "read_then_cas_write",
     "reads its chain's head node (an array of one node per bucket) a sector at a time and "
     "claims the first empty slot by CAS in the sector read",
     ""},
    {"dachash", "find_hit", "random_read_32",
     "reads its head node a 32-byte sector at a time and stops at its key: one sector when the "
     "key is in the first",
     ""},
    {"dachash", "find_miss", "random_read_32",
     "stops at the first empty slot: one sector at short chains, the chain's further sectors and "
     "nodes at long ones",
     ""},
    {"dachash", "find_hit_tile", "random_read_unit",
     "many-to-one: a tile reads a whole node in one request, then the next node", ""},
    {"dachash", "find_miss_tile", "random_read_unit",
     "many-to-one: a tile reads whole nodes up to the first empty slot", ""},
    {"dachash", "erase", "read_then_cas_write",
     "reads to its key a sector at a time, then a CAS of the slot to a tombstone", ""},
    {"dachash", "upsert", "read_then_cas_write",
     "reads to its key or the first empty slot, then a CAS of that slot", ""},

    {"dachash_paper", "insert", "read_then_cas_write",
     "as dachash's, in 128-byte nodes (one-to-one for batches of one kind)", ""},
    {"dachash_paper", "find_hit", "random_read_32",
     "as dachash's: a sector at a time, stopping at its key", ""},
    {"dachash_paper", "find_miss", "random_read_32",
     "as dachash's: a sector at a time, stopping at the first empty slot", ""},
    {"dachash_paper", "find_hit_tile", "random_read_unit",
     "many-to-one: a tile reads a whole 128-byte node in one request", ""},
    {"dachash_paper", "find_miss_tile", "random_read_unit",
     "many-to-one: a tile reads whole nodes up to the first empty slot", ""},
    {"dachash_paper", "erase", "read_then_cas_write", "as dachash's", ""},
    {"dachash_paper", "upsert", "read_then_cas_write", "as dachash's", ""},

    {"dachash_slab", "insert", "read_then_cas_write",
     "a warp per key reads a whole 128-byte node and one lane CASes a slot in it; the yardstick "
     "reads one sector of the node's four, so the fraction counts the other three as loss",
     ""},
    {"dachash_slab", "find_hit", "random_read_32",
     "one-to-one (the slab preset set to it): as dachash's, a sector at a time", ""},
    {"dachash_slab", "find_miss", "random_read_32",
     "one-to-one (the slab preset set to it): as dachash's, a sector at a time", ""},
    {"dachash_slab", "find_hit_tile", "random_read_unit",
     "a warp per key reads a whole 128-byte node in one request (SlabHash's design, the "
     "preset's mapping)",
     ""},
    {"dachash_slab", "find_miss_tile", "random_read_unit",
     "a warp per key reads whole 128-byte nodes up to the first empty slot", ""},
    {"dachash_slab", "erase", "read_then_cas_write",
     "a warp reads the node, one lane CASes the key's slot to a tombstone", ""},
    {"dachash_slab", "upsert", "read_then_cas_write",
     "a warp reads the node, one lane CASes the slot", ""},

    // Dynamic HashGraph (docs/designs/hashgraph.md): linear probing's steps
    // from the bucket's start.
    {"hashgraph", "insert", "read_then_cas_write",
     "reads its bucket's start in the offsets array (8 bytes per bucket), then linear probing's "
     "read and CAS from there",
     offsets_left_out},
    {"hashgraph", "find_hit", "two_reads_32",
     "reads its bucket's start in the offsets array, then a 16-byte window of slots: two "
     "dependent random sectors, which two independent ones bound",
     ""},
    {"hashgraph", "find_miss", "two_reads_32",
     "the bucket's start, then windows up to an empty slot (one at low load)", ""},
    {"hashgraph", "erase", "read_then_cas_write",
     "the bucket's start, then linear probing's read and CAS to a tombstone", offsets_left_out},
    {"hashgraph", "upsert", "read_then_cas_write",
     "the bucket's start, then linear probing's read and CAS", offsets_left_out},

    {"hashgraph_ellpack", "insert", "read_then_cas_write",
     "its bucket's start is computed (all buckets equally wide); then linear probing's read and "
     "CAS",
     ""},
    {"hashgraph_ellpack", "find_hit", "random_read_32",
     "its bucket's start is computed: one 16-byte window", ""},
    {"hashgraph_ellpack", "find_miss", "random_read_32",
     "its bucket's start is computed: windows up to an empty slot, one at low load", ""},
    {"hashgraph_ellpack", "erase", "read_then_cas_write",
     "a computed start, then linear probing's read and CAS to a tombstone", ""},
    {"hashgraph_ellpack", "upsert", "read_then_cas_write",
     "a computed start, then linear probing's read and CAS", ""},

    {"hashgraph_sliced_ellpack", "insert", "read_then_cas_write",
     "reads its slice's offset (one per 32 buckets, small enough for L2), then linear probing's "
     "read and CAS",
     ""},
    {"hashgraph_sliced_ellpack", "find_hit", "l2_then_random_read_32",
     "reads its slice's offset (8 bytes per 32 buckets, 16 MB at 2^26 buckets: L2 holds them), "
     "then a 16-byte window at a position that depends on it",
     small_offsets_in_l2},
    {"hashgraph_sliced_ellpack", "find_miss", "l2_then_random_read_32",
     "the slice's offset from L2, then windows up to an empty slot (one at low load)",
     small_offsets_in_l2},
    {"hashgraph_sliced_ellpack", "erase", "read_then_cas_write",
     "the slice's offset from L2, then linear probing's read and CAS to a tombstone", ""},
    {"hashgraph_sliced_ellpack", "upsert", "read_then_cas_write",
     "the slice's offset from L2, then linear probing's read and CAS", ""},

    // Static HashGraph (gpuhash/hashgraph.hpp), timed by bench/hashgraph.
    {"hashgraph_static_csr", "insert", "cas_8_write",
     "the build counts each key into its bucket by an atomic add, then places it at its "
     "bucket's cursor by another: two random 8-byte atomics that write; the yardstick counts one",
     "the binned build (the default) groups the keys by bins of 4096 buckets first, so its "
     "counters and cursors are touched in nearly ascending order and stay in L2"},
    {"hashgraph_static_csr", "find_hit", "two_reads_32",
     "reads its bucket's offsets (16 bytes of one sector), then the bucket's keys: two dependent "
     "random sectors, which two independent ones bound",
     ""},
    {"hashgraph_static_ellpack", "insert", "cas_8_write",
     "as hashgraph_static_csr's build: two random atomics per key; the yardstick counts one",
     "the binned build touches its counters and cursors in nearly ascending order, in L2"},
    {"hashgraph_static_ellpack", "find_hit", "random_read_32",
     "its bucket's start is computed: one read of the bucket's first sector", ""},
    {"hashgraph_static_sliced_ellpack", "insert", "cas_8_write",
     "as hashgraph_static_csr's build: two random atomics per key; the yardstick counts one",
     "the binned build touches its counters and cursors in nearly ascending order, in L2"},
    {"hashgraph_static_sliced_ellpack", "find_hit", "l2_then_random_read_32",
     "reads its slice's offset (8 bytes per 32 buckets, in L2), then the bucket's first sector",
     small_offsets_in_l2},

    // Cuckoo Node Hashing (docs/designs/cuckoo_node.md).
    {"cuckoo_node", "insert", "read_then_cas_write",
     "locks its bucket (an atomic OR on the bucket's version, in L2), reads its four candidate "
     "slots in each node, stores the pair and the version; the yardstick counts one sector read "
     "and one atomic",
     ""},
    {"cuckoo_node", "find_hit", "random_read_unit",
     "reads its bucket's version (L2), then the four candidate slots of every node of the chain, "
     "never stopping early: up to four sectors of a node, which one read of four sectors bounds",
     "the four candidates often share sectors, so a node costs fewer bytes than the yardstick's "
     "read"},
    {"cuckoo_node", "find_miss", "random_read_unit",
     "as find_hit: the four candidates of every node of the chain",
     "the four candidates often share sectors, so a node costs fewer bytes than the yardstick's "
     "read"},
    {"cuckoo_node", "erase", "read_then_cas_write",
     "locks its bucket, reads the candidates, stores an empty slot and the version", ""},
    {"cuckoo_node", "upsert", "read_then_cas_write",
     "locks its bucket, reads the candidates, stores the pair and the version", ""},

    {"cuckoo_node_paper", "insert", "read_then_cas_write",
     "as cuckoo_node's, in nodes of 128 slots", ""},
    {"cuckoo_node_paper", "find_hit", "random_read_unit",
     "as cuckoo_node's: four candidates per node, anywhere in a 1 KB node",
     "the four candidates often share sectors, so a node costs fewer bytes than the yardstick's "
     "read"},
    {"cuckoo_node_paper", "find_miss", "random_read_unit", "as cuckoo_node's",
     "the four candidates often share sectors, so a node costs fewer bytes than the yardstick's "
     "read"},
    {"cuckoo_node_paper", "erase", "read_then_cas_write", "as cuckoo_node's", ""},
    {"cuckoo_node_paper", "upsert", "read_then_cas_write", "as cuckoo_node's", ""},

    {"cuckoo_node_local", "insert", "read_then_cas_write",
     "as cuckoo_node's, its eight candidates every slot of two spans of each node (a 32-byte "
     "sector of 32/32 pairs each); the yardstick counts one sector read and one atomic",
     ""},
    {"cuckoo_node_local", "find_hit", "random_read_32",
     "reads its bucket's version (L2), then its first span, and its second only if the key is "
     "not in the first: at least the sector that holds its key; a 64-byte span of 64/64 pairs, "
     "a second span and further nodes cost more, which the fraction counts as loss",
     ""},
    {"cuckoo_node_local", "find_miss", "two_reads_32",
     "reads its bucket's version (L2), then both spans of every node of the chain: two "
     "independent random sectors per node of 32/32 pairs (64-byte spans of 64/64 pairs and "
     "further nodes cost more, which the fraction counts as loss)",
     ""},
    {"cuckoo_node_local", "erase", "read_then_cas_write", "as cuckoo_node's", ""},
    {"cuckoo_node_local", "upsert", "read_then_cas_write", "as cuckoo_node's", ""},

    // Byte-string keys (docs/designs/string_map.md).
    {"string_map", "insert", "read_then_cas_write",
     "copies the batch's key bytes into the arena (one copy), then claims a 32-byte slot by CAS "
     "after reading it; the yardstick leaves the copy out",
     ""},
    {"string_map", "find_hit", "two_reads_32",
     "reads its 32-byte slot, then its key's bytes in the arena (8 to 64) to confirm the match",
     ""},
    {"string_map", "find_miss", "random_read_32",
     "reads slots only: tag and length rule other keys out without the arena (one slot at low "
     "load)",
     ""},
    {"string_map", "erase", "read_then_cas_write",
     "reads its slot and its key's bytes, then a CAS of the slot's handle to a tombstone; the "
     "yardstick leaves the key's bytes out",
     ""},

    // The reorder of DACHash and Cuckoo Node Hashing, timed on its own.
    {"reorder_by_bucket", "reorder", "random_read_32",
     "groups the batch by bucket (passes that stream), then gathers each key from a random "
     "position: one sector per key",
     ""},
};

std::uint32_t unit_limit_bytes(std::uint32_t unit_bytes) {
  return std::clamp<std::uint32_t>(std::bit_ceil(std::max<std::uint32_t>(unit_bytes, 1)), 32, 128);
}

std::string share_text(double share) {
  char text[16];
  std::snprintf(text, sizeof text, "%.3g", share);
  return text;
}

}  // namespace

std::span<const yardstick> yardsticks() {
  return table;
}

const yardstick* find_yardstick(std::string_view design, std::string_view op) {
  for (const yardstick& stick : table)
    if (stick.design == design && stick.op == op) return &stick;
  return nullptr;
}

std::string limit_of(const yardstick& stick, std::uint32_t unit_bytes) {
  if (stick.limit == "random_read_unit")
    return "random_read_" + std::to_string(unit_limit_bytes(unit_bytes));
  return std::string(stick.limit);
}

resolved_yardstick resolve(const judged_by& judgement) {
  std::vector<const yardstick*> sticks;
  for (const op_share& part : judgement.ops) {
    const yardstick* stick = find_yardstick(judgement.design, part.op);
    if (stick == nullptr)
      throw std::invalid_argument("no yardstick for design '" + judgement.design +
                                  "', operation '" + part.op +
                                  "': add one to bench/yardsticks.cpp (and to the table in "
                                  "docs/results/limits.md)");
    sticks.push_back(stick);
  }
  resolved_yardstick resolved;
  std::vector<std::string_view> reasons;
  const auto add_reason = [&](std::string_view reason) {
    if (!reason.empty() && std::find(reasons.begin(), reasons.end(), reason) == reasons.end())
      reasons.push_back(reason);
  };
  // Operations with no share of the batch (a hit ratio of 0 or 1, or a
  // remainder of 1 - 0.7 - 0.3 that rounds to 6e-17) drop out.
  const auto counts = [](const op_share& part) { return part.share > 1e-9; };
  const auto shares = std::count_if(judgement.ops.begin(), judgement.ops.end(), counts);
  if (shares == 0)
    throw std::invalid_argument("a judgement of design '" + judgement.design +
                                "' gives no operation a share of the batch");
  for (std::size_t i = 0; i < judgement.ops.size(); ++i) {
    const op_share& part = judgement.ops[i];
    if (!counts(part)) continue;
    const std::string weight = shares > 1 ? share_text(part.share) + " " : "";
    resolved.yardstick +=
        (resolved.yardstick.empty() ? "" : " + ") + weight + judgement.design + " " + part.op;
    add_reason(sticks[i]->above_limit_because);
    // Operations judged by the same limit are one part of the batch.
    const std::string limit = limit_of(*sticks[i], judgement.unit_bytes);
    const auto same = std::find_if(resolved.parts.begin(), resolved.parts.end(),
                                   [&](const limit_share& p) { return p.limit == limit; });
    if (same != resolved.parts.end())
      same->share += part.share;
    else
      resolved.parts.push_back({limit, part.share});
  }
  for (const limit_share& part : resolved.parts)
    resolved.limit += (resolved.limit.empty() ? "" : " + ") +
                      (resolved.parts.size() > 1 ? share_text(part.share) + " " : "") + part.limit;
  if (resolved.parts.size() > 1)
    add_reason(
        "a mixed batch's limit adds its operations' times as if they ran one after the other, "
        "while on the GPU they overlap");
  add_reason(judgement.workload);
  for (const std::string_view reason : reasons)
    resolved.above_limit_because +=
        (resolved.above_limit_because.empty() ? "" : "; ") + std::string(reason);
  return resolved;
}

double combined_limit(const std::vector<limit_share>& parts, std::span<const double> limit_gops) {
  double seconds_per_access = 0;
  for (std::size_t i = 0; i < parts.size(); ++i)
    seconds_per_access += parts[i].share / limit_gops[i];
  return 1.0 / seconds_per_access;
}

}  // namespace gpuhash::bench

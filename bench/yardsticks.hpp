#pragma once
// Which access limit (limits.hpp) each operation of each design is judged
// against, and why. A yardstick is the limit of the access pattern the
// operation makes at its cheapest (a find that reads one sector when its key
// is in the first: a random sector read), so that a rate at 100% means the
// operation runs as fast as the memory allows its pattern, and what it does
// beyond the pattern (a second bucket, a longer probe, an eviction walk)
// shows as the fraction lost. The table (yardsticks.cpp) is the one place
// that says it; every experiment's report goes through it, and the unit
// tests check that every registered design has a yardstick for each
// operation the benchmark reports. A rate can still pass its limit where the
// yardstick or the workload gives a reason (a cache, a reordered batch,
// fewer bytes than the pattern); the report then names the reason
// (above_limit_because), and docs/results/limits.md explains each.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpuhash::bench {

/// One design's operation and the limit it is judged against.
struct yardstick {
  /// The design (Table::design_name), or a structure the benchmark times
  /// outside the common API (hashgraph_static_csr, reorder_by_bucket, ...).
  std::string_view design;
  /// insert, find_hit, find_miss, erase, upsert; find_hit_tile and
  /// find_miss_tile: finds in which a tile of lanes reads each bucket or node
  /// whole; reorder.
  std::string_view op;
  /// An access limit (limits.hpp), or random_read_unit: one random read of
  /// the design's read unit (its bucket, node or slot: read_unit_bytes).
  std::string_view limit;
  /// The operation's access pattern, and why this limit bounds it.
  std::string_view why;
  /// What of the design can take a rate above the limit; empty where
  /// nothing should.
  std::string_view above_limit_because;
};

/// Every yardstick, by design.
std::span<const yardstick> yardsticks();

/// The yardstick of a design's operation; nullptr if there is none.
const yardstick* find_yardstick(std::string_view design, std::string_view op);

/// The access limit a yardstick names, for a design whose read unit is
/// `unit_bytes` (rounded up to a power of two within 32..128 bytes: a sector
/// to a 128-byte line).
std::string limit_of(const yardstick& stick, std::uint32_t unit_bytes);

/// One operation of a batch and its share of the batch's keys.
struct op_share {
  std::string op;
  double share = 1.0;
};

/// What one operation of a report is judged against: the yardsticks of the
/// operations it is made of (one for a batch of one kind; for a mixed batch,
/// each kind with its share), and what of the workload can take the rate
/// above them.
struct judged_by {
  std::string design;             ///< the yardstick table's design
  std::uint32_t unit_bytes = 32;  ///< the design's read unit
  std::vector<op_share> ops;      ///< shares add up to 1
  /// What of the workload can take a rate above the limit (skewed keys, a
  /// reordered batch); empty where nothing should.
  std::string workload;
};

/// One limit of a resolved judgement and its share of the batch.
struct limit_share {
  std::string limit;
  double share = 1.0;
};

/// A judgement looked up in the table.
struct resolved_yardstick {
  /// The limit's name: one limit, or the shares of several
  /// ("0.5 random_read_32 + 0.5 read_then_cas_write").
  std::string limit;
  std::vector<limit_share> parts;
  /// The yardsticks used ("dachash find_hit", or the shares of several).
  std::string yardstick;
  /// Every reason a rate may pass the limit (the yardsticks', a mixed
  /// batch's, the workload's), joined by "; "; empty if there is none.
  std::string above_limit_because;
};

/// Looks the judgement up; throws std::invalid_argument naming the design
/// and operation if the table has no yardstick for one of them.
resolved_yardstick resolve(const judged_by& judgement);

/// The G accesses/s a batch of these parts runs at if each part runs at its
/// limit, one after the other: 1 / sum(share / limit). `limit_gops` gives
/// each part's measured limit, in the parts' order.
double combined_limit(const std::vector<limit_share>& parts, std::span<const double> limit_gops);

/// Reasons of workloads that several experiments run, for judged_by::workload
/// (and the yardsticks of designs that reorder every batch).
inline constexpr std::string_view reordered_batch_reason =
    "the batch runs reordered by bucket: keys of neighbouring buckets run together and find "
    "their nodes' sectors still in L2";
inline constexpr std::string_view bucket_order_reason =
    "Probe-New answers the queries in the order of their buckets: neighbouring queries read "
    "neighbouring sectors, which L2 serves";

/// What the report says of a rate above its limit that no reason explains.
inline constexpr std::string_view unexplained = "unexplained";

}  // namespace gpuhash::bench

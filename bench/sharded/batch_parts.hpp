#pragma once
// A sharded batch as sharded.scaling holds it (scaling_runs.hpp): one part
// per shard, each part's arrays in its shard's memory, its keys generated
// there (workload.hpp's generator indices) and its results checked there.

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "../workload.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash::bench {

template <class Exchange>
void synchronize_shards(Exchange& exchange) {
  exchange.for_each_shard(
      [&](std::size_t g) { Exchange::backend_type::synchronize(exchange.stream(g)); });
}

/// Where the parts of a batch of `n` keys start and how many keys each has:
/// all on shard 0 (`spread` false) or part g the g-th G-th of them.
struct part_layout {
  std::vector<std::size_t> starts;
  std::vector<std::size_t> counts;

  static part_layout of(std::uint64_t n, std::size_t shards, bool spread) {
    part_layout layout{std::vector<std::size_t>(shards, 0), std::vector<std::size_t>(shards, 0)};
    for (std::size_t g = 0; g < shards; ++g) {
      if (!spread) {
        layout.counts[g] = g == 0 ? n : 0;
      } else {
        layout.starts[g] = n * g / shards;
        layout.counts[g] = n * (g + 1) / shards - layout.starts[g];
      }
    }
    return layout;
  }
};

/// The arrays of a batch, one part per shard in that shard's memory,
/// allocated and freed on the shard's thread. Part g holds counts[g] keys
/// and their values, as many absent keys (both generated from the batch's
/// first index + starts[g]), found values and statuses. A shard without a part
/// has empty arrays (null pointers). The arrays are as large as the layout
/// they were made for; a batch of smaller parts reuses them (use).
template <class Map>
class batch_parts {
  using backend = typename Map::backend_type;
  using key_type = typename Map::key_type;
  using value_type = typename Map::mapped_type;
  template <class T>
  using buffer = typename backend::template buffer<T>;

 public:
  batch_parts(Map& map, part_layout layout)
      : map_(map),
        layout_(std::move(layout)),
        allocated_(layout_.counts),
        keys_(allocated_.size()),
        absent_(allocated_.size()),
        values_(allocated_.size()),
        found_(allocated_.size()),
        statuses_(allocated_.size()) {
    map_.exchange().for_each_shard([&](std::size_t g) {
      const auto stream = map_.exchange().stream(g);
      keys_[g] = backend::template allocate<key_type>(allocated_[g], stream);
      absent_[g] = backend::template allocate<key_type>(allocated_[g], stream);
      values_[g] = backend::template allocate<value_type>(allocated_[g], stream);
      found_[g] = backend::template allocate<value_type>(allocated_[g], stream);
      statuses_[g] = backend::template allocate<status>(allocated_[g], stream);
    });
    for (std::size_t g = 0; g < allocated_.size(); ++g) {
      key_parts_.push_back(keys_[g].data());
      absent_parts_.push_back(absent_[g].data());
      value_parts_.push_back(values_[g].data());
      found_parts_.push_back(found_[g].data());
      status_parts_.push_back(statuses_[g].data());
    }
  }
  batch_parts(const batch_parts&) = delete;
  batch_parts& operator=(const batch_parts&) = delete;

  /// Frees every part on its shard's thread (in its stream's order); the
  /// parts' pointers are not to be used after.
  void release() {
    map_.exchange().for_each_shard([&](std::size_t g) {
      keys_[g] = {}, absent_[g] = {}, values_[g] = {}, found_[g] = {}, statuses_[g] = {};
    });
  }

  /// The parts of another batch, each no larger than the arrays.
  void use(part_layout layout) {
    for (std::size_t g = 0; g < allocated_.size(); ++g)
      if (layout.counts.at(g) > allocated_[g])
        throw std::logic_error("batch_parts: a part larger than its arrays");
    layout_ = std::move(layout);
  }

  /// Which keys of the parts a batch uses.
  enum class looked_for : std::uint8_t { present, absent };

  /// Each part's present keys and their values, or its absent keys (whose
  /// values land in `found`, which the finds overwrite): generator indices
  /// from first + starts[g]. Absent keys come from indices that the present
  /// keys of the point do not reach.
  void generate(looked_for which, const key_spec& spec, std::uint64_t first) {
    map_.exchange().for_each_shard([&](std::size_t g) {
      if (layout_.counts[g] == 0) return;
      const auto stream = map_.exchange().stream(g);
      const bool present = which == looked_for::present;
      generate_keys<key_type, value_type>(backend{}, spec, first + layout_.starts[g],
                                          layout_.counts[g],
                                          present ? keys_[g].data() : absent_[g].data(),
                                          present ? values_[g].data() : found_[g].data(), stream);
      backend::synchronize(stream);
    });
  }

  /// The map's insert of the parts' keys and values, spread (part g from
  /// shard g), statuses written beside them.
  void insert_spread() {
    map_.insert(std::span<const key_type* const>(key_parts_),
                std::span<const value_type* const>(value_parts_),
                std::span<const std::size_t>(layout_.counts),
                std::span<status* const>(status_parts_));
  }
  /// The map's find of the parts' present or absent keys, spread, found
  /// values and statuses written beside them.
  void find_spread(looked_for which) {
    map_.find(
        std::span<const key_type* const>(which == looked_for::present ? key_parts_ : absent_parts_),
        std::span<const std::size_t>(layout_.counts), std::span<value_type* const>(found_parts_),
        std::span<status* const>(status_parts_));
  }

  /// Results of every part other than `expected` and, where `found` is
  /// expected, found values other than the key's.
  std::size_t wrong_results(looked_for keys, status expected) {
    std::vector<std::size_t> wrong(allocated_.size(), 0);
    map_.exchange().for_each_shard([&](std::size_t g) {
      if (layout_.counts[g] == 0) return;
      const key_type* part = keys == looked_for::present ? keys_[g].data() : absent_[g].data();
      const value_type* values = expected == status::found ? found_[g].data() : nullptr;
      wrong[g] = count_unexpected<key_type, value_type>(backend{}, part, values,
                                                        statuses_[g].data(), layout_.counts[g],
                                                        expected, map_.exchange().stream(g));
    });
    std::size_t total = 0;
    for (const std::size_t w : wrong) total += w;
    return total;
  }

  /// Part g's arrays, for the map's one-shard calls.
  const key_type* keys(std::size_t g) const { return key_parts_[g]; }
  const key_type* absent(std::size_t g) const { return absent_parts_[g]; }
  const value_type* values(std::size_t g) const { return value_parts_[g]; }
  value_type* found(std::size_t g) const { return found_parts_[g]; }
  status* statuses(std::size_t g) const { return status_parts_[g]; }

 private:
  Map& map_;
  part_layout layout_;
  std::vector<std::size_t> allocated_;
  std::vector<buffer<key_type>> keys_;
  std::vector<buffer<key_type>> absent_;
  std::vector<buffer<value_type>> values_;
  std::vector<buffer<value_type>> found_;
  std::vector<buffer<status>> statuses_;
  // The parts' pointers, as the map's spread calls take them.
  std::vector<const key_type*> key_parts_;
  std::vector<const key_type*> absent_parts_;
  std::vector<const value_type*> value_parts_;
  std::vector<value_type*> found_parts_;
  std::vector<status*> status_parts_;
};

}  // namespace gpuhash::bench

#pragma once
// Sharded maps as the conformance suite (tests/conformance/conformance.hpp)
// sees a table: sharded_under_test<Map, Shards, Layout> has basic_map's
// batch calls and runs each through sharded_map, either as one batch on the
// last shard or spread over all shards in parts of uneven sizes (some empty
// when the batch is small), so that the suite's cases check the partition,
// exchange and reassembly against std::unordered_map for both input forms.
// Host-memory backends only: the parts are pieces of the caller's arrays.

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpuhash/operation.hpp"
#include "gpuhash/sharded_map.hpp"
#include "gpuhash/status.hpp"
#include "gpuhash/table_options.hpp"

namespace gpuhash::testing {

/// How the test hands batches to the sharded map.
enum class input_layout { one_shard, spread };

/// Where part g of n elements starts when a batch is spread over `shards`
/// parts: at n g^2 / shards^2, so parts grow with g and the first ones are
/// empty in small batches.
inline std::size_t part_start(std::size_t n, std::size_t g, std::size_t shards) {
  return n * g * g / (shards * shards);
}

template <class Map, std::size_t Shards, input_layout Layout>
class sharded_under_test : public sharded_map<Map> {
  using base = sharded_map<Map>;

 public:
  using typename base::key_type;
  using typename base::mapped_type;
  using backend_type = typename Map::backend_type;
  using find_result = typename base::find_result;
  static_assert(backend_type::host_accessible, "the parts are pieces of the caller's host arrays");

  static constexpr std::size_t shard_total = Shards;
  static constexpr input_layout layout = Layout;
  /// The shard a one-shard batch lives on: the last, so that a source
  /// other than 0 is exercised.
  static constexpr std::size_t source = Shards - 1;

  explicit sharded_under_test(table_options options = {}) : base(Shards, options) {}

  // ---- basic_map's pointer forms (the _async forms are synchronous here) --

  void insert(const key_type* keys, const mapped_type* values, std::size_t n, status* statuses) {
    if constexpr (Layout == input_layout::one_shard) {
      base::insert(keys, values, n, statuses, source);
    } else {
      const spread_parts p(n);
      base::insert(p.of(keys), p.of(values), p.counts(), p.of(statuses));
    }
  }
  void insert_async(const key_type* keys, const mapped_type* values, std::size_t n,
                    status* statuses) {
    insert(keys, values, n, statuses);
  }
  void insert_or_assign(const key_type* keys, const mapped_type* values, std::size_t n,
                        status* statuses) {
    if constexpr (Layout == input_layout::one_shard) {
      base::insert_or_assign(keys, values, n, statuses, source);
    } else {
      const spread_parts p(n);
      base::insert_or_assign(p.of(keys), p.of(values), p.counts(), p.of(statuses));
    }
  }
  template <class Result>  // status* or bool* (found flags)
  void find(const key_type* keys, std::size_t n, mapped_type* values, Result* results) {
    if constexpr (Layout == input_layout::one_shard) {
      base::find(keys, n, values, results, source);
    } else {
      const spread_parts p(n);
      base::find(p.of(keys), p.counts(), p.of(values), p.of(results));
    }
  }
  void find_async(const key_type* keys, std::size_t n, mapped_type* values, status* statuses) {
    find(keys, n, values, statuses);
  }
  void contains(const key_type* keys, std::size_t n, bool* flags) {
    if constexpr (Layout == input_layout::one_shard) {
      base::contains(keys, n, flags, source);
    } else {
      const spread_parts p(n);
      base::contains(p.of(keys), p.counts(), p.of(flags));
    }
  }
  void contains_async(const key_type* keys, std::size_t n, bool* flags) {
    contains(keys, n, flags);
  }
  void erase(const key_type* keys, std::size_t n, status* statuses) {
    if constexpr (Layout == input_layout::one_shard) {
      base::erase(keys, n, statuses, source);
    } else {
      const spread_parts p(n);
      base::erase(p.of(keys), p.counts(), p.of(statuses));
    }
  }
  void apply(const operation* ops, const key_type* keys, mapped_type* values, std::size_t n,
             status* statuses) {
    if constexpr (Layout == input_layout::one_shard) {
      base::apply(ops, keys, values, n, statuses, source);
    } else {
      const spread_parts p(n);
      base::apply(p.of(ops), p.of(keys), p.of(values), p.counts(), p.of(statuses));
    }
  }
  std::size_t retrieve_all(key_type* keys, mapped_type* values) {
    return base::retrieve_all(keys, values, source);
  }

  // ---- basic_map's host-container forms, through the forms above ----------

  std::vector<status> insert(std::span<const key_type> keys, std::span<const mapped_type> values) {
    std::vector<status> statuses(keys.size());
    insert(keys.data(), checked(keys, values).data(), keys.size(), statuses.data());
    return statuses;
  }
  std::vector<status> insert_or_assign(std::span<const key_type> keys,
                                       std::span<const mapped_type> values) {
    std::vector<status> statuses(keys.size());
    insert_or_assign(keys.data(), checked(keys, values).data(), keys.size(), statuses.data());
    return statuses;
  }
  find_result find(std::span<const key_type> keys) {
    find_result result{std::vector<mapped_type>(keys.size()), std::vector<status>(keys.size())};
    find(keys.data(), keys.size(), result.values.data(), result.statuses.data());
    return result;
  }
  std::vector<bool> contains(std::span<const key_type> keys) {
    const auto flags = std::make_unique<bool[]>(keys.size());
    contains(keys.data(), keys.size(), flags.get());
    return std::vector<bool>(flags.get(), flags.get() + keys.size());
  }
  std::vector<status> erase(std::span<const key_type> keys) {
    std::vector<status> statuses(keys.size());
    erase(keys.data(), keys.size(), statuses.data());
    return statuses;
  }
  std::vector<status> apply(std::span<const operation> ops, std::span<const key_type> keys,
                            std::span<mapped_type> values) {
    checked(keys, ops);
    checked(keys, std::span<const mapped_type>(values));
    std::vector<status> statuses(keys.size());
    apply(ops.data(), keys.data(), values.data(), keys.size(), statuses.data());
    return statuses;
  }
  std::pair<std::vector<key_type>, std::vector<mapped_type>> retrieve_all() {
    const std::size_t count = this->size();
    std::pair<std::vector<key_type>, std::vector<mapped_type>> pairs{
        std::vector<key_type>(count), std::vector<mapped_type>(count)};
    retrieve_all(pairs.first.data(), pairs.second.data());
    return pairs;
  }

 private:
  /// A batch of n elements cut into Shards parts at part_start.
  class spread_parts {
   public:
    explicit spread_parts(std::size_t n) {
      for (std::size_t g = 0; g < Shards; ++g) {
        starts_[g] = part_start(n, g, Shards);
        counts_[g] = part_start(n, g + 1, Shards) - starts_[g];
      }
    }
    std::span<const std::size_t> counts() const { return counts_; }
    /// The parts of `array`, null where a part is empty (the sharded map
    /// must not read those) or the array is.
    template <class T>
    std::vector<T*> of(T* array) const {
      std::vector<T*> parts(Shards);
      for (std::size_t g = 0; g < Shards; ++g)
        parts[g] = array == nullptr || counts_[g] == 0 ? nullptr : array + starts_[g];
      return parts;
    }

   private:
    std::array<std::size_t, Shards> starts_{};
    std::array<std::size_t, Shards> counts_{};
  };

  template <class T>
  static std::span<const T> checked(std::span<const key_type> keys, std::span<const T> other) {
    if (keys.size() != other.size())
      throw std::invalid_argument("gpuhash test: " + std::to_string(other.size()) +
                                  " elements for " + std::to_string(keys.size()) + " keys");
    return other;
  }
};

/// Every shard count from 1 to 4 in both input forms: the set the suite runs
/// a design's sharded map in when the tests' variants are built
/// (GPUHASH_TEST_VARIANTS; tests/CMakeLists.txt).
template <class Map>
using every_sharded_layout = ::testing::Types<sharded_under_test<Map, 1, input_layout::one_shard>,
                                              sharded_under_test<Map, 2, input_layout::one_shard>,
                                              sharded_under_test<Map, 3, input_layout::one_shard>,
                                              sharded_under_test<Map, 4, input_layout::one_shard>,
                                              sharded_under_test<Map, 1, input_layout::spread>,
                                              sharded_under_test<Map, 2, input_layout::spread>,
                                              sharded_under_test<Map, 3, input_layout::spread>,
                                              sharded_under_test<Map, 4, input_layout::spread>>;

}  // namespace gpuhash::testing

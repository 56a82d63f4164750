#pragma once
// gpuhash::sharded_map: one logical table over G shards, each shard a normal
// table of the chosen design (any Map of map.hpp) holding the keys the
// placement hash gives it (shard_placement.hpp), on a device of its own:
// the GPUs of a host with nccl_exchange, host threads with host_exchange
// (docs/designs/sharded.md).
//
//   using cpu_table = gpuhash::bucketed_cuckoo_map<std::uint32_t, std::uint32_t>;
//   gpuhash::sharded_map<cpu_table> table(4);  // 4 shards, on host threads
//   using gpu_table =
//       gpuhash::bucketed_cuckoo_map<std::uint64_t, std::uint64_t, gpuhash::cuda_backend>;
//   gpuhash::sharded_map<gpu_table> gpus(2);  // GPUs 0 and 1 (link gpuhash::nccl)
//
// A batch comes in one of two forms. On one shard: arrays in the memory of
// shard `source` (its GPU), results written there. Spread over the shards:
// one part per shard, each in its shard's memory, as a multi-GPU
// application holds its data, each part's results written beside it. Every
// call partitions each part's keys by shard, exchanges counts and then keys
// (values, operations) all-to-all, runs each shard's batch on its own table,
// exchanges the results back and puts them in each part's order.
//
// Statuses and semantics are one table's (map.hpp). The copies of a key in
// a batch meet in one shard's batch, whichever parts they came in, so
// duplicates resolve as in one table, and a mixed batch's outcome for each
// key equals some serial order of its operations on it; reserved keys come
// back invalid_key; a find leaves the values of missing keys untouched. Each
// shard grows by itself, as its table does: calls never return full.
//
// Calls are synchronous: each returns when its results are written. Shard
// g's work runs on exchange().stream(g), which with nccl_exchange follows
// the work the caller queued on the device's legacy default stream. If a
// shard's table throws (out of memory), the call rethrows it and the other
// shards' parts of that batch may have been applied (for an erase, the
// failing shard's parts before the one that threw too). One table is used
// from one thread at a time.
//
// Tables of 32/32 and 64/64-bit unsigned pairs with the default hash work
// with this header; other key and value types include
// gpuhash/sharded_map_impl.hpp (from a .cu file for the CUDA backend).

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpuhash/detail/batch.hpp"
#include "gpuhash/detail/sharded/pipeline.hpp"
#include "gpuhash/detail/staged.hpp"
#include "gpuhash/host_exchange.hpp"
#include "gpuhash/key_types.hpp"
#include "gpuhash/operation.hpp"
#include "gpuhash/shard_exchange.hpp"
#include "gpuhash/shard_placement.hpp"
#include "gpuhash/status.hpp"
#include "gpuhash/table_options.hpp"

#if defined(GPUHASH_HAS_NCCL)
#include "gpuhash/nccl_exchange.hpp"
#endif

namespace gpuhash {

/// `KeyHash` must be the hash policy of Map's table (key_bytes_hash unless
/// the table was given another), so that keys its equality calls equal are
/// placed on one shard.
template <class Map,
          class Exchange = typename default_shard_exchange<typename Map::backend_type>::type,
          class KeyHash = key_bytes_hash<typename Map::key_type>>
class sharded_map {
  static_assert(std::is_same_v<typename Exchange::backend_type, typename Map::backend_type>,
                "gpuhash::sharded_map: the exchange moves data in its backend's memory: use "
                "host_exchange with cpu_backend tables and nccl_exchange with cuda_backend ones");

 public:
  using map_type = Map;
  using exchange_type = Exchange;
  using key_type = typename Map::key_type;
  using mapped_type = typename Map::mapped_type;
  using backend_type = typename Map::backend_type;
  using placement_type = shard_placement<key_type, KeyHash>;

  static constexpr bool is_reserved(key_type key) noexcept { return Map::is_reserved(key); }
  static constexpr std::span<const key_type> reserved_keys() noexcept {
    return Map::reserved_keys();
  }

  /// A table over the exchange's shards. options.capacity is a hint for all
  /// shards together; every shard gets its share of it, and the seed and
  /// load limit. The placement has a seed of its own.
  explicit sharded_map(Exchange exchange, table_options options = {},
                       std::uint64_t placement_seed = placement_type::default_seed)
      : exchange_(std::move(exchange)),
        placement_{static_cast<std::uint32_t>(exchange_.shard_count()), placement_seed, KeyHash{}},
        shards_(exchange_.shard_count()) {
    const std::size_t count = exchange_.shard_count();
    table_options share = options;
    share.capacity = (options.capacity + count - 1) / count;
    exchange_.for_each_shard(
        [&](std::size_t g) { shards_[g].emplace(share, exchange_.stream(g)); });
  }
  /// The same over an exchange of `shards` shards (nccl_exchange: the first
  /// `shards` GPUs).
  explicit sharded_map(std::size_t shards, table_options options = {},
                       std::uint64_t placement_seed = placement_type::default_seed)
      : sharded_map(Exchange(shards), options, placement_seed) {}

  ~sharded_map() {
    // Each table is freed on its own shard's thread, with its device current.
    try {
      if (!shards_.empty()) exchange_.for_each_shard([&](std::size_t g) { shards_[g].reset(); });
    } catch (...) {  // a destructor must not throw; the runtime reported the error already
    }
  }
  sharded_map(sharded_map&&) noexcept = default;
  sharded_map(const sharded_map&) = delete;
  sharded_map& operator=(const sharded_map&) = delete;

  // ---- A batch on one shard: arrays in shard `source`'s memory ------------

  /// Inserts absent keys: inserted, exists (value unchanged) or invalid_key.
  void insert(const key_type* keys, const mapped_type* values, std::size_t n, status* statuses,
              std::size_t source = 0) {
    request r = on_shard(detail::batch_kind::insert, source, n, keys);
    r.values = part_at(source, values);
    r.statuses = part_at(source, statuses);
    run(r);
  }
  /// Upsert: inserted or updated.
  void insert_or_assign(const key_type* keys, const mapped_type* values, std::size_t n,
                        status* statuses, std::size_t source = 0) {
    request r = on_shard(detail::batch_kind::upsert, source, n, keys);
    r.values = part_at(source, values);
    r.statuses = part_at(source, statuses);
    run(r);
  }
  /// found (value written to values[i]) or not_found (values[i] untouched).
  void find(const key_type* keys, std::size_t n, mapped_type* values, status* statuses,
            std::size_t source = 0) {
    request r = on_shard(detail::batch_kind::find, source, n, keys);
    r.results = part_at(source, values);
    r.statuses = part_at(source, statuses);
    run(r);
  }
  /// The same with found[i] = whether keys[i] was found, for its status.
  void find(const key_type* keys, std::size_t n, mapped_type* values, bool* found,
            std::size_t source = 0) {
    request r = on_shard(detail::batch_kind::find, source, n, keys);
    r.results = part_at(source, values);
    r.flags = part_at(source, found);
    run(r);
  }
  /// flags[i] = whether keys[i] is stored (false for reserved keys).
  void contains(const key_type* keys, std::size_t n, bool* flags, std::size_t source = 0) {
    request r = on_shard(detail::batch_kind::contains, source, n, keys);
    r.flags = part_at(source, flags);
    run(r);
  }
  /// erased or not_found.
  void erase(const key_type* keys, std::size_t n, status* statuses, std::size_t source = 0) {
    request r = on_shard(detail::batch_kind::erase, source, n, keys);
    r.statuses = part_at(source, statuses);
    run(r);
  }
  /// A mixed batch (map.hpp's apply): values[i] is read by insert, update
  /// and upsert and written by a search that finds its key.
  void apply(const operation* ops, const key_type* keys, mapped_type* values, std::size_t n,
             status* statuses, std::size_t source = 0) {
    request r = on_shard(detail::batch_kind::apply, source, n, keys);
    r.ops = part_at<const operation>(source, ops);
    r.values = part_at<const mapped_type>(source, values);
    r.results = part_at(source, values);
    r.statuses = part_at(source, statuses);
    run(r);
  }
  /// Writes every stored pair (in no particular order) to arrays in shard
  /// `target`'s memory of at least size() elements; returns how many.
  std::size_t retrieve_all(key_type* keys, mapped_type* values, std::size_t target = 0) {
    require_shard(target, "retrieve_all");
    return gather_all(keys, values, target);
  }

  // ---- A batch spread over the shards: part g in shard g's memory ---------
  // Every argument has one entry per shard; counts[g] is the size of part g,
  // whose arrays may be null when it is 0.

  void insert(std::span<const key_type* const> keys, std::span<const mapped_type* const> values,
              std::span<const std::size_t> counts, std::span<status* const> statuses) {
    request r = spread(detail::batch_kind::insert, counts, keys);
    r.values = parts(values, "values");
    r.statuses = parts(statuses, "statuses");
    run(r);
  }
  void insert_or_assign(std::span<const key_type* const> keys,
                        std::span<const mapped_type* const> values,
                        std::span<const std::size_t> counts, std::span<status* const> statuses) {
    request r = spread(detail::batch_kind::upsert, counts, keys);
    r.values = parts(values, "values");
    r.statuses = parts(statuses, "statuses");
    run(r);
  }
  void find(std::span<const key_type* const> keys, std::span<const std::size_t> counts,
            std::span<mapped_type* const> values, std::span<status* const> statuses) {
    request r = spread(detail::batch_kind::find, counts, keys);
    r.results = parts(values, "values");
    r.statuses = parts(statuses, "statuses");
    run(r);
  }
  void find(std::span<const key_type* const> keys, std::span<const std::size_t> counts,
            std::span<mapped_type* const> values, std::span<bool* const> found) {
    request r = spread(detail::batch_kind::find, counts, keys);
    r.results = parts(values, "values");
    r.flags = parts(found, "found flags");
    run(r);
  }
  void contains(std::span<const key_type* const> keys, std::span<const std::size_t> counts,
                std::span<bool* const> flags) {
    request r = spread(detail::batch_kind::contains, counts, keys);
    r.flags = parts(flags, "flags");
    run(r);
  }
  void erase(std::span<const key_type* const> keys, std::span<const std::size_t> counts,
             std::span<status* const> statuses) {
    request r = spread(detail::batch_kind::erase, counts, keys);
    r.statuses = parts(statuses, "statuses");
    run(r);
  }
  void apply(std::span<const operation* const> ops, std::span<const key_type* const> keys,
             std::span<mapped_type* const> values, std::span<const std::size_t> counts,
             std::span<status* const> statuses) {
    request r = spread(detail::batch_kind::apply, counts, keys);
    r.ops = parts(ops, "operations");
    r.results = parts(values, "values");
    r.values.assign(r.results.begin(), r.results.end());
    r.statuses = parts(statuses, "statuses");
    run(r);
  }

  // ---- A batch in host containers (staged on shard 0) ---------------------

  std::vector<status> insert(std::span<const key_type> keys, std::span<const mapped_type> values) {
    return write_from_host(detail::batch_kind::insert, keys, values);
  }
  std::vector<status> insert_or_assign(std::span<const key_type> keys,
                                       std::span<const mapped_type> values) {
    return write_from_host(detail::batch_kind::upsert, keys, values);
  }
  struct find_result {
    std::vector<mapped_type> values;  ///< meaningful where statuses[i] == found
    std::vector<status> statuses;
  };
  find_result find(std::span<const key_type> keys) {
    find_result result{std::vector<mapped_type>(keys.size()), {}};
    std::optional<staged<key_type>> device_keys;
    std::optional<staged<mapped_type>> device_values;
    std::optional<staged<status>> device_statuses;
    on_shard_thread(0, [&] {
      device_keys.emplace(keys);
      device_values.emplace(std::span<const mapped_type>(result.values));
      device_statuses.emplace(keys.size());
    });
    find(device_keys->data(), keys.size(), device_values->data(), device_statuses->data());
    on_shard_thread(0, [&] {
      device_values->copy_to(result.values);
      result.statuses = device_statuses->to_vector();
      device_keys.reset(), device_values.reset(), device_statuses.reset();
    });
    return result;
  }
  std::vector<bool> contains(std::span<const key_type> keys) {
    std::optional<staged<key_type>> device_keys;
    std::optional<staged<bool>> device_flags;
    on_shard_thread(0, [&] {
      device_keys.emplace(keys);
      device_flags.emplace(keys.size());
    });
    contains(device_keys->data(), keys.size(), device_flags->data());
    std::vector<bool> flags;
    on_shard_thread(0, [&] {
      auto host = backend_type::template allocate_host<bool>(keys.size());
      device_flags->copy_to(std::span<bool>(host.data(), keys.size()));
      flags.assign(host.data(), host.data() + keys.size());
      device_keys.reset(), device_flags.reset();
    });
    return flags;
  }
  std::vector<status> erase(std::span<const key_type> keys) {
    std::optional<staged<key_type>> device_keys;
    std::optional<staged<status>> device_statuses;
    on_shard_thread(0, [&] {
      device_keys.emplace(keys);
      device_statuses.emplace(keys.size());
    });
    erase(device_keys->data(), keys.size(), device_statuses->data());
    std::vector<status> statuses;
    on_shard_thread(0, [&] {
      statuses = device_statuses->to_vector();
      device_keys.reset(), device_statuses.reset();
    });
    return statuses;
  }
  /// `values` is read for writes and overwritten where a search finds its key.
  std::vector<status> apply(std::span<const operation> ops, std::span<const key_type> keys,
                            std::span<mapped_type> values) {
    require_same_size(keys.size(), ops.size(), "apply: ops");
    require_same_size(keys.size(), values.size(), "apply: values");
    std::optional<staged<operation>> device_ops;
    std::optional<staged<key_type>> device_keys;
    std::optional<staged<mapped_type>> device_values;
    std::optional<staged<status>> device_statuses;
    on_shard_thread(0, [&] {
      device_ops.emplace(ops);
      device_keys.emplace(keys);
      device_values.emplace(std::span<const mapped_type>(values.data(), values.size()));
      device_statuses.emplace(keys.size());
    });
    apply(device_ops->data(), device_keys->data(), device_values->data(), keys.size(),
          device_statuses->data());
    std::vector<status> statuses;
    on_shard_thread(0, [&] {
      device_values->copy_to(values);
      statuses = device_statuses->to_vector();
      device_ops.reset(), device_keys.reset(), device_values.reset(), device_statuses.reset();
    });
    return statuses;
  }
  std::pair<std::vector<key_type>, std::vector<mapped_type>> retrieve_all() {
    std::pair<std::vector<key_type>, std::vector<mapped_type>> pairs;
    std::optional<staged<key_type>> device_keys;
    std::optional<staged<mapped_type>> device_values;
    const std::size_t count = size();
    on_shard_thread(0, [&] {
      device_keys.emplace(count);
      device_values.emplace(count);
    });
    const std::size_t written = gather_all(device_keys->data(), device_values->data(), 0);
    on_shard_thread(0, [&] {
      pairs.first = device_keys->to_vector();
      pairs.second = device_values->to_vector();
      device_keys.reset(), device_values.reset();
    });
    pairs.first.resize(written);
    pairs.second.resize(written);
    return pairs;
  }

  // ---- The whole table ----------------------------------------------------

  /// Keys stored in all shards.
  std::size_t size() {
    std::vector<std::size_t> sizes(shard_count());
    exchange_.for_each_shard(
        [&](std::size_t g) { sizes[g] = shards_[g]->size(exchange_.stream(g)); });
    std::size_t total = 0;
    for (const std::size_t s : sizes) total += s;
    return total;
  }
  bool empty() { return size() == 0; }

  /// Removes every key; keeps the capacity.
  void clear() {
    exchange_.for_each_shard([&](std::size_t g) { shards_[g]->clear(exchange_.stream(g)); });
  }

  /// Makes room for `n` keys in all: each shard for its expected share and
  /// four standard deviations of it (a shard's share of n placed keys is
  /// binomial), so that n keys rarely make a shard grow.
  void reserve(std::size_t n) {
    const double mean = static_cast<double>(n) / static_cast<double>(shard_count());
    const auto share = static_cast<std::size_t>(std::ceil(mean + 4.0 * std::sqrt(mean)));
    exchange_.for_each_shard(
        [&](std::size_t g) { shards_[g]->reserve(share, exchange_.stream(g)); });
  }

  /// Slots allocated over all shards.
  std::size_t capacity() const noexcept {
    std::size_t total = 0;
    for (const auto& shard : shards_) total += shard->capacity();
    return total;
  }
  /// Bytes of backend memory held by all shards' tables.
  std::size_t memory_bytes() const noexcept {
    std::size_t total = 0;
    for (const auto& shard : shards_) total += shard->memory_bytes();
    return total;
  }
  float max_load_factor() const noexcept { return shards_.front()->max_load_factor(); }

  std::size_t shard_count() const noexcept { return shards_.size(); }
  /// The shard that holds `key`.
  std::size_t shard_of(const key_type& key) const { return placement_(key); }
  /// The placement, for the caller's own kernels and threads (host+device).
  const placement_type& placement() const noexcept { return placement_; }
  /// The table of shard g, for what only one shard has; call it inside
  /// exchange().for_each_shard, on exchange().stream(g).
  Map& shard(std::size_t g) { return *shards_.at(g); }
  Exchange& exchange() noexcept { return exchange_; }

 private:
  template <class T>
  using staged = detail::staged<backend_type, T>;
  using pipeline = detail::sharded::pipeline<Map, Exchange, placement_type>;
  using request = typename pipeline::request_type;

  void run(const request& r) {
    check(r);
    pipeline(exchange_, shards_, placement_).run(r);
  }
  std::size_t gather_all(key_type* keys, mapped_type* values, std::size_t target) {
    return pipeline(exchange_, shards_, placement_).gather_all(keys, values, target);
  }

  /// body() on shard g's thread (its device current): staging host arrays.
  template <class Body>
  void on_shard_thread(std::size_t g, Body&& body) {
    exchange_.for_each_shard([&](std::size_t shard) {
      if (shard == g) body();
    });
  }

  std::vector<status> write_from_host(detail::batch_kind kind, std::span<const key_type> keys,
                                      std::span<const mapped_type> values) {
    require_same_size(keys.size(), values.size(), "values");
    std::optional<staged<key_type>> device_keys;
    std::optional<staged<mapped_type>> device_values;
    std::optional<staged<status>> device_statuses;
    on_shard_thread(0, [&] {
      device_keys.emplace(keys);
      device_values.emplace(values);
      device_statuses.emplace(keys.size());
    });
    if (kind == detail::batch_kind::insert)
      insert(device_keys->data(), device_values->data(), keys.size(), device_statuses->data());
    else
      insert_or_assign(device_keys->data(), device_values->data(), keys.size(),
                       device_statuses->data());
    std::vector<status> statuses;
    on_shard_thread(0, [&] {
      statuses = device_statuses->to_vector();
      device_keys.reset(), device_values.reset(), device_statuses.reset();
    });
    return statuses;
  }

  // ---- Arguments ----------------------------------------------------------

  static const char* name_of(detail::batch_kind kind) {
    switch (kind) {
      case detail::batch_kind::insert: return "insert";
      case detail::batch_kind::upsert: return "insert_or_assign";
      case detail::batch_kind::find: return "find";
      case detail::batch_kind::contains: return "contains";
      case detail::batch_kind::erase: return "erase";
      case detail::batch_kind::apply: return "apply";
    }
    return "batch";
  }
  static void require_same_size(std::size_t expected, std::size_t actual, const char* what) {
    if (expected != actual)
      throw std::invalid_argument(std::string("gpuhash::sharded_map: ") + what + " has " +
                                  std::to_string(actual) + " elements, keys have " +
                                  std::to_string(expected));
  }
  void require_shard(std::size_t g, const char* call) const {
    if (g >= shard_count())
      throw std::invalid_argument(std::string("gpuhash::sharded_map::") + call + ": shard " +
                                  std::to_string(g) + " of a table of " +
                                  std::to_string(shard_count()) + " shards");
  }

  /// A batch of n keys on shard `source`, no part elsewhere.
  request on_shard(detail::batch_kind kind, std::size_t source, std::size_t n,
                   const key_type* keys) {
    require_shard(source, name_of(kind));
    request r;
    r.kind = kind;
    r.counts.assign(shard_count(), 0);
    r.counts[source] = n;
    r.keys = part_at(source, keys);
    return r;
  }
  template <class T>
  std::vector<T*> part_at(std::size_t source, T* pointer) const {
    std::vector<T*> all(shard_count(), nullptr);
    all[source] = pointer;
    return all;
  }

  request spread(detail::batch_kind kind, std::span<const std::size_t> counts,
                 std::span<const key_type* const> keys) {
    if (counts.size() != shard_count())
      throw std::invalid_argument(std::string("gpuhash::sharded_map::") + name_of(kind) + ": " +
                                  std::to_string(counts.size()) + " counts for " +
                                  std::to_string(shard_count()) + " shards");
    request r;
    r.kind = kind;
    r.counts.assign(counts.begin(), counts.end());
    r.keys = parts(keys, "keys");
    return r;
  }
  template <class T>
  std::vector<T*> parts(std::span<T* const> pointers, const char* what) const {
    if (pointers.size() != shard_count())
      throw std::invalid_argument(std::string("gpuhash::sharded_map: ") +
                                  std::to_string(pointers.size()) + " parts of " + what + " for " +
                                  std::to_string(shard_count()) + " shards");
    return std::vector<T*>(pointers.begin(), pointers.end());
  }

  /// Every part with keys has the arrays its batch kind uses.
  void check(const request& r) const {
    const auto present = [&](const auto& list, std::size_t g) {
      return list.empty() || list[g] != nullptr;
    };
    for (std::size_t g = 0; g < shard_count(); ++g) {
      if (r.counts[g] == 0) continue;
      if (!present(r.keys, g) || !present(r.values, g) || !present(r.results, g) ||
          !present(r.ops, g) || !present(r.statuses, g) || !present(r.flags, g))
        throw std::invalid_argument(std::string("gpuhash::sharded_map::") + name_of(r.kind) +
                                    ": the part on shard " + std::to_string(g) + " has " +
                                    std::to_string(r.counts[g]) +
                                    " keys but a null array among its arguments");
    }
  }

  Exchange exchange_;
  placement_type placement_;
  std::vector<std::optional<Map>> shards_;
};

}  // namespace gpuhash

#pragma once
// basic_map: the one public API of every hash table design
// (docs/architecture.md). A design supplies an *engine* (storage
// and batch execution); basic_map adds what all designs share: argument
// checks, growth before a batch, retrying keys that came back `full`,
// size bookkeeping and the host-container convenience forms.
//
// Memory: the pointer forms take backend memory (device pointers for the CUDA
// backend, host pointers for the CPU backend). The span/vector forms take host
// memory on every backend and copy as needed.
//
// Synchronous and `_async` forms: a synchronous call returns when its results
// are written, and never returns status::full: it grows the table and retries
// those keys. An `_async` call is ordered on the stream; keys that found no
// room come back `full`. One table is used from one stream at a time.
//
// Growth: before a batch that may insert n keys, if occupied slots + n would
// pass max_load_factor x capacity, the table is rebuilt larger (at least
// doubled). Occupied counts tombstones for designs that keep them. Load
// factor means keys over allocated slots. Chained designs (those whose engine
// can `reclaim`) "rebuild" without moving keys between buckets: they clean
// their chains and add pool nodes; when keys come back `full` (the pool ran
// dry) they clean first and add nodes only if that freed too few.
//
// Refs: table.ref() hands out the device-side API (map_ref.hpp) for the
// caller's own kernels and threads, between batches on the same stream.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpuhash/detail/batch.hpp"
#include "gpuhash/detail/counters.hpp"
#include "gpuhash/detail/staged.hpp"
#include "gpuhash/errors.hpp"
#include "gpuhash/map_ref.hpp"
#include "gpuhash/operation.hpp"
#include "gpuhash/status.hpp"
#include "gpuhash/table_options.hpp"

namespace gpuhash {

template <class Engine>
class basic_map {
 public:
  using engine_type = Engine;
  using key_type = typename Engine::key_type;
  using mapped_type = typename Engine::mapped_type;
  using backend_type = typename Engine::backend_type;
  using stream_type = typename backend_type::stream_type;
  /// The device-side API (map_ref.hpp); the same type on every backend.
  using ref_type = map_ref<typename Engine::view_type>;

  static constexpr std::string_view design_name = Engine::name;

  /// Keys the design reserves as sentinels; operations on them report invalid_key.
  static constexpr bool is_reserved(key_type key) noexcept { return Engine::is_reserved(key); }
  static constexpr std::span<const key_type> reserved_keys() noexcept {
    return Engine::reserved_keys();
  }

  explicit basic_map(table_options options = {}, stream_type stream = {})
      : max_load_factor_(checked_load_factor(options.max_load_factor)),
        engine_(options.capacity, options.seed, stream),
        counters_(backend_type::template allocate<detail::counter_block>(1, stream)),
        last_stream_(stream) {
    backend_type::fill_bytes(counters_.data(), sizeof(detail::counter_block), 0, stream);
  }

  ~basic_map() {
    // Buffers are freed in stream order on the stream they were allocated on;
    // waiting for the last stream used keeps that safe when streams changed.
    try {
      backend_type::synchronize(last_stream_);
    } catch (...) {  // a destructor must not throw; the error was already reported by the runtime
    }
  }
  basic_map(basic_map&&) noexcept = default;
  basic_map(const basic_map&) = delete;
  basic_map& operator=(const basic_map&) = delete;

  // ---- Batches in backend memory -------------------------------------------

  /// Inserts absent keys: inserted, exists (value left unchanged) or invalid_key.
  void insert(const key_type* keys, const mapped_type* values, std::size_t n, status* statuses,
              stream_type stream = {}) {
    run(writing(detail::batch_kind::insert, keys, values, n, statuses), stream);
  }
  void insert_async(const key_type* keys, const mapped_type* values, std::size_t n,
                    status* statuses, stream_type stream = {}) {
    run_async(writing(detail::batch_kind::insert, keys, values, n, statuses), stream);
  }

  /// Upsert: inserted or updated.
  void insert_or_assign(const key_type* keys, const mapped_type* values, std::size_t n,
                        status* statuses, stream_type stream = {}) {
    run(writing(detail::batch_kind::upsert, keys, values, n, statuses), stream);
  }
  void insert_or_assign_async(const key_type* keys, const mapped_type* values, std::size_t n,
                              status* statuses, stream_type stream = {}) {
    run_async(writing(detail::batch_kind::upsert, keys, values, n, statuses), stream);
  }

  /// found (value written to values[i]) or not_found (values[i] untouched).
  void find(const key_type* keys, std::size_t n, mapped_type* values, status* statuses,
            stream_type stream = {}) {
    run(finding(keys, n, values, statuses), stream);
  }
  void find_async(const key_type* keys, std::size_t n, mapped_type* values, status* statuses,
                  stream_type stream = {}) {
    run_async(finding(keys, n, values, statuses), stream);
  }

  /// The same with found[i] = whether keys[i] was found, in place of its
  /// status (one pass, no status to turn into a flag afterwards).
  void find(const key_type* keys, std::size_t n, mapped_type* values, bool* found,
            stream_type stream = {}) {
    run(finding(keys, n, values, found), stream);
  }
  void find_async(const key_type* keys, std::size_t n, mapped_type* values, bool* found,
                  stream_type stream = {}) {
    run_async(finding(keys, n, values, found), stream);
  }

  /// flags[i] = whether keys[i] is stored (false for reserved keys).
  void contains(const key_type* keys, std::size_t n, bool* flags, stream_type stream = {}) {
    run(checking(keys, n, flags), stream);
  }
  void contains_async(const key_type* keys, std::size_t n, bool* flags, stream_type stream = {}) {
    run_async(checking(keys, n, flags), stream);
  }

  /// erased or not_found.
  void erase(const key_type* keys, std::size_t n, status* statuses, stream_type stream = {}) {
    run(erasing(keys, n, statuses), stream);
  }
  void erase_async(const key_type* keys, std::size_t n, status* statuses, stream_type stream = {}) {
    run_async(erasing(keys, n, statuses), stream);
  }

  /// A mixed batch, run concurrently in one pass. values[i] is read by insert,
  /// update and upsert and written by a search that finds its key. For each
  /// key, the outcome equals some serial order of the batch's operations on it.
  void apply(const operation* ops, const key_type* keys, mapped_type* values, std::size_t n,
             status* statuses, stream_type stream = {}) {
    run(applying(ops, keys, values, n, statuses), stream);
  }
  void apply_async(const operation* ops, const key_type* keys, mapped_type* values, std::size_t n,
                   status* statuses, stream_type stream = {}) {
    run_async(applying(ops, keys, values, n, statuses), stream);
  }

  /// Writes every stored pair (in no particular order) to arrays of at least
  /// size() elements and returns how many were written.
  std::size_t retrieve_all(key_type* keys, mapped_type* values, stream_type stream = {}) {
    const std::size_t count = size(stream);
    engine_.retrieve_all(keys, values, count, stream);
    backend_type::synchronize(stream);
    return count;
  }

  // ---- Batches in host containers (every backend) --------------------------

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
    staged<key_type> device_keys(keys);
    staged<mapped_type> device_values(std::span<const mapped_type>(result.values));
    staged<status> device_statuses(keys.size());
    find(device_keys.data(), keys.size(), device_values.data(), device_statuses.data(), {});
    device_values.copy_to(result.values);
    result.statuses = device_statuses.to_vector();
    return result;
  }
  std::vector<bool> contains(std::span<const key_type> keys) {
    staged<key_type> device_keys(keys);
    staged<bool> device_flags(keys.size());
    contains(device_keys.data(), keys.size(), device_flags.data(), {});
    auto flags = backend_type::template allocate_host<bool>(keys.size());
    device_flags.copy_to(std::span<bool>(flags.data(), keys.size()));
    return std::vector<bool>(flags.data(), flags.data() + keys.size());
  }
  std::vector<status> erase(std::span<const key_type> keys) {
    staged<key_type> device_keys(keys);
    staged<status> device_statuses(keys.size());
    erase(device_keys.data(), keys.size(), device_statuses.data(), {});
    return device_statuses.to_vector();
  }
  /// `values` is read for writes and overwritten where a search finds its key.
  std::vector<status> apply(std::span<const operation> ops, std::span<const key_type> keys,
                            std::span<mapped_type> values) {
    require_same_size(keys.size(), ops.size(), "apply: ops");
    require_same_size(keys.size(), values.size(), "apply: values");
    staged<operation> device_ops(ops);
    staged<key_type> device_keys(keys);
    staged<mapped_type> device_values(std::span<const mapped_type>(values.data(), values.size()));
    staged<status> device_statuses(keys.size());
    apply(device_ops.data(), device_keys.data(), device_values.data(), keys.size(),
          device_statuses.data(), {});
    device_values.copy_to(values);
    return device_statuses.to_vector();
  }
  std::pair<std::vector<key_type>, std::vector<mapped_type>> retrieve_all() {
    const std::size_t count = size();
    staged<key_type> keys(count);
    staged<mapped_type> values(count);
    engine_.retrieve_all(keys.data(), values.data(), count, {});
    return {keys.to_vector(), values.to_vector()};
  }

  // ---- The device-side API --------------------------------------------------

  /// A ref for the caller's kernels (or CPU threads): valid until the next
  /// call that may rebuild or grow the table (insert, insert_or_assign,
  /// apply and their _async forms, reserve, compact, clear). Its inserts and
  /// erases count towards size(); keys it reports `full` are the caller's
  /// to insert from the host (map_ref.hpp, docs/device_api.md).
  ref_type ref() {
    refs_handed_out_ = true;
    return ref_type(engine_.view(), reinterpret_cast<detail::ref_counts*>(
                                        reinterpret_cast<unsigned char*>(counters_.data()) +
                                        offsetof(detail::counter_block, refs)));
  }

  // ---- The whole table -----------------------------------------------------

  /// Number of stored keys. Waits for the stream.
  std::size_t size(stream_type stream = {}) {
    sync_counters(stream);
    return static_cast<std::size_t>(synced_.inserted - synced_.erased);
  }
  bool empty(stream_type stream = {}) { return size(stream) == 0; }

  /// Removes every key; keeps the capacity.
  void clear(stream_type stream = {}) {
    use_stream(stream);
    engine_.clear(stream);
    backend_type::fill_bytes(counters_.data(), sizeof(detail::counter_block), 0, stream);
    refs_handed_out_ = false;
    synced_ = {};
    at_rehash_ = {};
    live_at_rehash_ = 0;
    unsynced_inserts_ = 0;
  }

  /// Makes room for `n` keys in all without growth during later batches.
  void reserve(std::size_t n, stream_type stream = {}) {
    use_stream(stream);
    if (n > slot_limit()) {
      sync_counters(stream);
      rebuild(minimum_capacity_for(n), stream);
    }
  }

  /// Reclaims the slots that erases left (tombstones) without growing:
  /// DACHash's clean, a rebuild at the same size for open addressing.
  void compact(stream_type stream = {}) {
    use_stream(stream);
    sync_counters(stream);
    rebuild(engine_.capacity(), stream);
  }

  /// Slots allocated (pool nodes included for chained designs).
  std::size_t capacity() const noexcept { return engine_.capacity(); }
  /// Bytes of backend memory held by the table.
  std::size_t memory_bytes() const noexcept {
    return engine_.memory_bytes() + sizeof(detail::counter_block);
  }
  float max_load_factor() const noexcept { return max_load_factor_; }

  /// The design's engine, for what only this design has (DACHash's mapping
  /// settings and chain statistics, for instance). No batch may run while
  /// its settings change.
  Engine& engine() noexcept { return engine_; }
  const Engine& engine() const noexcept { return engine_; }

 private:
  using batch_type = detail::batch<key_type, mapped_type>;
  template <class T>
  using buffer = typename backend_type::template buffer<T>;
  template <class T>
  using staged = detail::staged<backend_type, T>;

  /// Rounds of grow-and-retry before a synchronous insert gives up.
  static constexpr int max_retry_rounds = 8;

  static float checked_load_factor(float requested) {
    const float value = requested == 0.0f ? Engine::default_max_load_factor : requested;
    if (!(value > 0.0f && value <= 1.0f))
      throw std::invalid_argument("gpuhash: max_load_factor must be in (0, 1], got " +
                                  std::to_string(value));
    return value;
  }
  static void require(bool condition, const char* message) {
    if (!condition) throw std::invalid_argument(std::string("gpuhash: ") + message);
  }
  static void require_same_size(std::size_t expected, std::size_t actual, const char* what) {
    if (expected != actual)
      throw std::invalid_argument(std::string("gpuhash: ") + what + " has " +
                                  std::to_string(actual) + " elements, keys have " +
                                  std::to_string(expected));
  }

  static batch_type writing(detail::batch_kind kind, const key_type* keys,
                            const mapped_type* values, std::size_t n, status* statuses) {
    require(n == 0 || (keys && values && statuses), "keys, values and statuses are required");
    return {kind, n, keys, const_cast<mapped_type*>(values), nullptr, statuses, nullptr};
  }
  static batch_type finding(const key_type* keys, std::size_t n, mapped_type* values,
                            status* statuses) {
    require(n == 0 || (keys && values && statuses), "find: keys, values and statuses are required");
    return {detail::batch_kind::find, n, keys, values, nullptr, statuses, nullptr};
  }
  static batch_type finding(const key_type* keys, std::size_t n, mapped_type* values, bool* found) {
    require(n == 0 || (keys && values && found), "find: keys, values and found flags are required");
    return {detail::batch_kind::find, n, keys, values, nullptr, nullptr, found};
  }
  static batch_type checking(const key_type* keys, std::size_t n, bool* flags) {
    require(n == 0 || (keys && flags), "contains: keys and flags are required");
    return {detail::batch_kind::contains, n, keys, nullptr, nullptr, nullptr, flags};
  }
  static batch_type erasing(const key_type* keys, std::size_t n, status* statuses) {
    require(n == 0 || (keys && statuses), "erase: keys and statuses are required");
    return {detail::batch_kind::erase, n, keys, nullptr, nullptr, statuses, nullptr};
  }
  static batch_type applying(const operation* ops, const key_type* keys, mapped_type* values,
                             std::size_t n, status* statuses) {
    require(n == 0 || (ops && keys && values && statuses),
            "apply: ops, keys, values and statuses are required");
    return {detail::batch_kind::apply, n, keys, values, ops, statuses, nullptr};
  }

  // ---- Execution, growth and retries ---------------------------------------

  void run_async(const batch_type& args, stream_type stream) {
    use_stream(stream);
    if (args.n == 0) return;
    if (args.may_insert()) make_room(args.n, stream);
    engine_.execute_async(args, batch_counters(), stream);
  }

  void run(const batch_type& args, stream_type stream) {
    run_async(args, stream);
    if (!args.may_insert() || args.n == 0) {
      backend_type::synchronize(stream);
      return;
    }
    const std::uint64_t full_before = synced_.full;
    sync_counters(stream);
    if (synced_.full != full_before) retry_full(args, stream);
  }

  /// Grows the table and re-runs the keys of `args` that came back full, until
  /// none is left: a synchronous call never returns `full`.
  void retry_full(const batch_type& args, stream_type stream) {
    auto positions = backend_type::template allocate<std::size_t>(args.n, stream);
    std::size_t count = backend_type::select_positions(args.statuses, args.n, status::full,
                                                       positions.data(), stream);
    for (int round = 0; count > 0; ++round) {
      if (round == max_retry_rounds)
        throw error("gpuhash: " + std::string(design_name) + " could not place " +
                    std::to_string(count) + " keys after growing to " + std::to_string(capacity()) +
                    " slots");
      // Chained designs clean first; if the retry still comes back full,
      // the next round grows.
      if (round > 0 || !reclaimed_room(stream))
        rebuild(std::max(2 * engine_.capacity(), minimum_capacity_for(live() + count)), stream);

      const auto retry = detail::gather_batch<backend_type>(args, positions.data(), count, stream);
      engine_.execute_async(retry.args, batch_counters(), stream);
      backend_type::scatter(static_cast<const status*>(retry.statuses.data()), positions.data(),
                            count, args.statuses, stream);
      sync_counters(stream);

      // Positions (in the caller's batch) of the keys still full.
      auto still = backend_type::template allocate<std::size_t>(count, stream);
      const std::size_t remaining = backend_type::select_positions(
          retry.statuses.data(), count, status::full, still.data(), stream);
      auto next = backend_type::template allocate<std::size_t>(remaining, stream);
      backend_type::gather(static_cast<const std::size_t*>(positions.data()), still.data(),
                           remaining, next.data(), stream);
      positions = std::move(next);
      count = remaining;
    }
  }

  /// For chained designs, whose `full` means the node pool ran dry: cleans
  /// the chains and reports whether that freed any node. Other designs must
  /// grow.
  bool reclaimed_room(stream_type stream) {
    if constexpr (requires(Engine & e) { e.reclaim(stream); }) {
      const std::size_t free_nodes = engine_.reclaim(stream);
      at_rehash_ = synced_;
      live_at_rehash_ = live();
      return free_nodes > 0;
    } else {
      return false;
    }
  }

  /// Before a batch that may insert n keys: rebuilds the table if the occupied
  /// slots could pass the load limit. Uses a host-side upper bound so that a
  /// stream of async batches synchronizes only when the bound gets close.
  /// Where live keys alone would fill more than 3/4 of the limit the table
  /// grows (at least doubling); otherwise tombstones are the problem and it is
  /// rebuilt at the same size.
  void make_room(std::size_t n, stream_type stream) {
    // A kernel of the caller's may have inserted through a ref since the
    // last synchronization: the host-side bound does not know of those keys.
    if (refs_handed_out_ || occupied() + unsynced_inserts_ + n > slot_limit()) {
      sync_counters(stream);
      if (occupied() + n > slot_limit()) {
        const std::size_t needed = minimum_capacity_for(live() + n);
        const std::size_t current = engine_.capacity();
        rebuild(4 * needed > 3 * current ? std::max(needed, 2 * current) : current, stream);
      }
    }
    unsynced_inserts_ += n;
  }

  /// Rebuilds into at least `min_capacity` slots; the counters must be
  /// synchronized (they are the baseline of the occupancy that follows).
  void rebuild(std::size_t min_capacity, stream_type stream) {
    engine_.rehash(min_capacity, stream);
    at_rehash_ = synced_;
    live_at_rehash_ = live();
  }

  std::size_t minimum_capacity_for(std::size_t keys) const {
    return static_cast<std::size_t>(std::ceil(static_cast<double>(keys) / max_load_factor_));
  }
  std::size_t slot_limit() const {
    return static_cast<std::size_t>(static_cast<double>(max_load_factor_) *
                                    static_cast<double>(engine_.capacity()));
  }
  std::size_t live() const { return static_cast<std::size_t>(synced_.inserted - synced_.erased); }
  /// Slots in use at the last synchronization: live keys, plus tombstones for
  /// designs whose erase keeps the slot until a rehash.
  std::size_t occupied() const {
    std::uint64_t slots = live_at_rehash_ + (synced_.inserted - at_rehash_.inserted);
    if constexpr (Engine::erase_frees_slot) slots -= synced_.erased - at_rehash_.erased;
    return static_cast<std::size_t>(slots);
  }

  /// Reads the counters back: the batches', plus the refs' once a ref was
  /// handed out (their shards are zero before).
  void sync_counters(stream_type stream) {
    if (refs_handed_out_) {
      const auto block = std::make_unique<detail::counter_block>();
      backend_type::copy_to_host(block.get(), counters_.data(), 1, stream);
      const status_counts refs = block->refs.total();
      synced_ = block->batches;
      synced_.inserted += refs.inserted;
      synced_.erased += refs.erased;
    } else {
      backend_type::copy_to_host(&synced_, batch_counters(), 1, stream);
    }
    unsynced_inserts_ = 0;
  }

  /// Where batch kernels count (the block's first member; backend memory).
  detail::table_counters* batch_counters() {
    return reinterpret_cast<detail::table_counters*>(counters_.data());
  }

  void use_stream(stream_type stream) {
    if (stream != last_stream_) backend_type::synchronize(last_stream_);
    last_stream_ = stream;
  }

  std::vector<status> write_from_host(detail::batch_kind kind, std::span<const key_type> keys,
                                      std::span<const mapped_type> values) {
    require_same_size(keys.size(), values.size(), "values");
    staged<key_type> device_keys(keys);
    staged<mapped_type> device_values(values);
    staged<status> device_statuses(keys.size());
    run(writing(kind, device_keys.data(), device_values.data(), keys.size(),
                device_statuses.data()),
        {});
    return device_statuses.to_vector();
  }

  float max_load_factor_;
  Engine engine_;
  buffer<detail::counter_block> counters_;
  detail::table_counters synced_{};     // device counters at the last synchronization
  detail::table_counters at_rehash_{};  // ... at the last rehash
  std::uint64_t live_at_rehash_ = 0;    // keys (and occupied slots) right after it
  std::uint64_t unsynced_inserts_ = 0;  // upper bound of inserts launched since synchronizing
  bool refs_handed_out_ = false;        // since construction or clear: ref counts may be nonzero
  stream_type last_stream_{};
};

}  // namespace gpuhash

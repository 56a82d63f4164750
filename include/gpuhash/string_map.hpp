#pragma once
// gpuhash::string_map: a map from byte strings of any length to values, on
// both backends. The keys' bytes are stored once, in an arena the table
// owns; the index is linear probing over slots that hold each key's place
// in the arena, its length, a 32-bit tag of its hash and its value, and a
// hash match is always confirmed against the stored bytes
// (detail/string_map/view.hpp, docs/designs/string_map.md).
//
//   gpuhash::string_map<std::uint32_t> counts;               // CPU
//   counts.insert(std::vector<std::string_view>{"apple", "pear"},
//                 std::vector<std::uint32_t>{1, 2});         // inserted, inserted
//   auto [values, statuses] = counts.find(std::vector<std::string_view>{"pear"});
//
// Batches in backend memory take keys as Arrow's string columns (offsets +
// bytes, gpuhash/string_keys.hpp), so a column is used where it lies:
//
//   gpuhash::string_map<std::uint64_t, gpuhash::cuda_backend> map;
//   map.insert(gpuhash::string_column(d_bytes, d_offsets, n), d_values, d_statuses);
//
// Every key is valid, the empty string included; a key whose offsets are out
// of order (offsets[i + 1] < offsets[i]) or over 4 GiB gets invalid_key.
// Values: any trivially copyable type of 4, 8 or 16 bytes.
//
// Growth. Before a batch that may insert, the table makes room for all of
// its keys and all of its bytes: it rebuilds into more slots when live keys
// and tombstones could pass max_load_factor, and into a new arena, holding
// only the live keys' bytes, when the arena could run out. So a synchronous
// insert never answers `full`. A batch's bytes go into the arena as one
// copy; those of keys that were already stored stay there unused until the
// next rebuild, as do erased keys' bytes.
//
// Every call is synchronous: it returns when its results are written.
// Compiled into the library for std::uint32_t and std::uint64_t values with
// the default hash, on each backend; other value types and hash policies are
// header-only: include gpuhash/string_map_impl.hpp instead of this header,
// from a .cpp file for the CPU backend or a .cu file for the CUDA backend.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/detail/counters.hpp"
#include "gpuhash/detail/string_map/view.hpp"
#include "gpuhash/key_types.hpp"
#include "gpuhash/status.hpp"
#include "gpuhash/string_keys.hpp"
#include "gpuhash/string_map_ref.hpp"
#include "gpuhash/table_options.hpp"

namespace gpuhash {

template <class Value, class Backend = cpu_backend, class Hash = string_bytes_hash>
class string_map {
  static_assert(is_word_sized_v<Value>,
                "gpuhash::string_map stores values of 4, 8 or 16 bytes of a trivially copyable "
                "type (std::uint32_t, std::uint64_t, a struct of your own)");

 public:
  using mapped_type = Value;
  using backend_type = Backend;
  using stream_type = typename Backend::stream_type;
  using ref_type = string_map_ref<Value, Hash>;

  static constexpr std::string_view design_name = "string_map";
  static constexpr float default_max_load_factor = 0.8f;

  /// options.capacity: slots to start with (a hint: the table grows);
  /// arena_bytes: key bytes to make room for at the start.
  explicit string_map(table_options options = {}, std::size_t arena_bytes = 0,
                      stream_type stream = {});
  ~string_map();
  string_map(string_map&&) noexcept = default;
  string_map& operator=(string_map&&) noexcept = default;
  string_map(const string_map&) = delete;
  string_map& operator=(const string_map&) = delete;

  // ---- Batches in backend memory -------------------------------------------

  /// Inserts absent keys: inserted, exists (value unchanged) or invalid_key.
  void insert(const string_column& keys, const Value* values, status* statuses,
              stream_type stream = {});
  /// Upserts: inserted or updated (or invalid_key).
  void insert_or_assign(const string_column& keys, const Value* values, status* statuses,
                        stream_type stream = {});
  /// found (values[i] set) or not_found (values[i] unchanged).
  void find(const string_column& keys, Value* values, status* statuses, stream_type stream = {});
  /// erased or not_found.
  void erase(const string_column& keys, status* statuses, stream_type stream = {});

  // ---- Batches in host containers (every backend) --------------------------

  std::vector<status> insert(std::span<const std::string_view> keys, std::span<const Value> values);
  std::vector<status> insert_or_assign(std::span<const std::string_view> keys,
                                       std::span<const Value> values);
  struct find_result {
    std::vector<Value> values;  ///< Value{} where not found
    std::vector<status> statuses;
  };
  find_result find(std::span<const std::string_view> keys);
  std::vector<status> erase(std::span<const std::string_view> keys);

  /// The stored pairs, in no particular order, as a column of keys and their values.
  struct contents {
    std::vector<std::int64_t> offsets;  ///< size() + 1 of them, into bytes
    std::vector<char> bytes;
    std::vector<Value> values;
    std::size_t size() const { return values.size(); }
    std::string_view key(std::size_t i) const {
      return {bytes.data() + offsets[i], static_cast<std::size_t>(offsets[i + 1] - offsets[i])};
    }
  };
  contents retrieve_all(stream_type stream = {});

  // ---- The device-side API --------------------------------------------------

  /// A ref for the caller's kernels (or CPU threads), valid until the next
  /// call that may rebuild the table (insert, insert_or_assign, reserve,
  /// compact, clear). Its inserts and erases count towards size().
  ref_type ref();

  // ---- The whole table -----------------------------------------------------

  /// Number of stored keys.
  std::size_t size(stream_type stream = {});
  bool empty(stream_type stream = {}) { return size(stream) == 0; }
  /// Slots allocated.
  std::size_t capacity() const noexcept { return capacity_; }
  /// Bytes the arena holds; arena_used() of them are taken (by live keys,
  /// and by erased or repeated ones until the next rebuild).
  std::size_t arena_capacity() const noexcept { return arena_capacity_; }
  std::size_t arena_used(stream_type stream = {});
  /// Bytes of backend memory held by the table.
  std::size_t memory_bytes() const noexcept {
    return capacity_ * sizeof(slot_type) + arena_capacity_ + sizeof(detail::counter_block) +
           sizeof(std::uint64_t);
  }
  float max_load_factor() const noexcept { return max_load_factor_; }
  std::uint64_t seed() const noexcept { return seed_; }
  /// Times the table has rebuilt itself (to grow or to drop unused bytes).
  std::size_t rebuilds() const noexcept { return rebuilds_; }

  /// Removes every key; keeps the slots and the arena.
  void clear(stream_type stream = {});
  /// Makes room for `keys` keys in all and `bytes` more key bytes, so that
  /// batches (and refs' inserts) up to that much need no rebuild.
  void reserve(std::size_t keys, std::size_t bytes, stream_type stream = {});
  /// Rebuilds at the same size, dropping tombstones and unused arena bytes.
  void compact(stream_type stream = {});

 private:
  using view_type = detail::string_map::view<Value, Hash>;
  using slot_type = typename view_type::slot_type;
  template <class T>
  using buffer = typename Backend::template buffer<T>;

  view_type view() const;
  /// The live keys laid out one after another: per slot, 1 where it holds
  /// a live key (else 0), its length (else 0), and where its bytes start
  /// in such a layout (an exclusive scan of the lengths); and their total.
  struct live_layout {
    buffer<std::uint64_t> live;
    buffer<std::uint64_t> lengths;
    buffer<std::uint64_t> byte_offsets;
    std::uint64_t live_bytes;
  };
  live_layout lay_out_live_keys(stream_type stream) const;
  void write(const string_column& keys, const Value* values, status* statuses, bool assign,
             stream_type stream);
  std::vector<status> write_from_host(std::span<const std::string_view> keys,
                                      std::span<const Value> values, bool assign);
  void make_room(std::size_t keys, std::size_t bytes, stream_type stream);
  void rebuild(std::size_t min_capacity, std::size_t more_bytes, stream_type stream);
  void sync_counters(stream_type stream);
  void use_stream(stream_type stream);
  std::size_t live() const { return static_cast<std::size_t>(synced_.inserted - synced_.erased); }
  std::size_t occupied() const {
    return static_cast<std::size_t>(live_at_rehash_ + (synced_.inserted - at_rehash_.inserted));
  }
  std::size_t slot_limit() const;
  std::size_t minimum_capacity_for(std::size_t keys) const;
  detail::table_counters* batch_counters() {
    return reinterpret_cast<detail::table_counters*>(counters_.data());
  }

  float max_load_factor_;
  std::uint64_t seed_;
  std::size_t initial_arena_;
  std::size_t capacity_ = 0;
  buffer<slot_type> slots_;
  std::size_t arena_capacity_ = 0;
  buffer<char> arena_;
  buffer<std::uint64_t> arena_used_counter_;  // bytes taken: batches set it, refs add to it
  std::uint64_t arena_used_ = 0;              // ... as the host last knew it
  buffer<detail::counter_block> counters_;
  detail::table_counters synced_{};
  detail::table_counters at_rehash_{};
  std::uint64_t live_at_rehash_ = 0;
  bool refs_handed_out_ = false;
  std::size_t rebuilds_ = 0;
  stream_type last_stream_{};
};

}  // namespace gpuhash

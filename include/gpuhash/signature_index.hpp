#pragma once
// gpuhash::signature_index: the bucketed cuckoo index of the GPU memcached
// thesis (section 5.2), made lossless (docs/designs/signature_index.md). It
// maps a key's 32-bit signature to the locations of the items stored under
// it; the caller keeps the items and their keys, and confirms each returned
// location against the full key (two keys may share a signature).
//
//   gpuhash::signature_index<> index;                  // CPU, random seed
//   const auto sig = index.signature("user:42");       // seeded SipHash-1-3
//   index.insert(std::vector{sig}, std::vector{item});  // statuses: inserted
//   auto hits = index.find(std::vector{sig});           // hits.matches_of(0)
//
// Entries are (signature, location) pairs in 64-bit slots, 8 to a 64-byte
// bucket, two candidate buckets per signature, so a search returns at most
// 16 locations. It is a multiset: insert adds an entry and never reports
// `exists` (the caller keeps each location in one entry); erase and replace
// match the whole (signature, location) pair, so removing one item never
// removes another that shares its signature. Inserts are never lost: one
// that finds both buckets full is placed by an eviction walk, and the index
// grows (it rebuilds itself from its own entries) when it passes
// max_load_factor or a walk cannot place an entry. The one insert refused is
// a 17th entry under one signature (status full): with a random seed, 17
// keys share a 32-bit signature only by design. Signature 0 is reserved
// (status invalid_key).
//
// Every call but find_async and apply_async is synchronous: it returns when
// its results are written. Batches
// are in backend memory (device pointers for cuda_backend) or in host
// containers. Compiled into the library for cpu_backend and cuda_backend.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuhash/cpu/backend.hpp"
#include "gpuhash/detail/counters.hpp"
#include "gpuhash/detail/signature_index/batch.hpp"
#include "gpuhash/detail/signature_index/view.hpp"
#include "gpuhash/key_hash.hpp"
#include "gpuhash/operation.hpp"
#include "gpuhash/signature_index_ref.hpp"
#include "gpuhash/status.hpp"
#include "gpuhash/status_counts.hpp"

namespace gpuhash {

struct index_options {
  /// Entries to make room for at construction (a hint: the index grows).
  std::size_t capacity = 1024;
  /// Entries over slots above which the index grows before a batch. 0
  /// selects the default (0.9). Must be in (0, 1].
  float max_load_factor = 0.0f;
  /// Seed of the key hash and of the bucket hashes; absent: a random seed
  /// per instance, so keys chosen by an attacker cannot be made to collide.
  std::optional<std::uint64_t> seed;
};

template <class Backend = cpu_backend>
class signature_index {
 public:
  using backend_type = Backend;
  using stream_type = typename Backend::stream_type;
  using signature_type = detail::signature_index::signature_type;
  using location_type = detail::signature_index::location_type;

  static constexpr std::string_view design_name = "signature_index";
  /// Locations a search can return: two buckets of eight slots.
  static constexpr std::uint32_t max_matches = detail::signature_index::max_matches;
  static constexpr float default_max_load_factor = 0.9f;
  /// Exchanges an eviction walk makes before its entry counts as homeless.
  static constexpr std::uint32_t max_exchanges = 1024;

  static constexpr bool is_reserved(signature_type signature) noexcept { return signature == 0; }

  explicit signature_index(index_options options = {}, stream_type stream = {});
  ~signature_index();
  signature_index(signature_index&&) noexcept = default;
  signature_index& operator=(signature_index&&) noexcept = default;
  signature_index(const signature_index&) = delete;
  signature_index& operator=(const signature_index&) = delete;

  /// The instance's seed (given or drawn at construction).
  std::uint64_t seed() const noexcept { return seed_; }
  /// The signature of a byte-string key: SipHash-1-3 (table_key_hash) under
  /// the seed, folded to 32 bits, never 0.
  signature_type signature(std::string_view key) const noexcept;

  // ---- Batches in backend memory -------------------------------------------

  /// Adds the entries (signatures[i], locations[i]): inserted, invalid_key,
  /// or full where max_matches entries already share the signature (the
  /// entry is not stored: no slot could ever take it).
  void insert(const signature_type* signatures, const location_type* locations, std::size_t n,
              status* statuses, stream_type stream = {});
  /// Writes the locations stored under signatures[i] to
  /// matches[i * max_matches, i * max_matches + match_counts[i]).
  void find(const signature_type* signatures, std::size_t n, location_type* matches,
            std::uint32_t* match_counts, stream_type stream = {});
  /// find, returning once the search is queued on `stream` (the one
  /// asynchronous batch: a search changes nothing, so the index needs no
  /// result back). The results are there when the stream has reached them.
  void find_async(const signature_type* signatures, std::size_t n, location_type* matches,
                  std::uint32_t* match_counts, stream_type stream = {});
  /// Removes one entry equal to (signatures[i], locations[i]): erased or not_found.
  void erase(const signature_type* signatures, const location_type* locations, std::size_t n,
             status* statuses, stream_type stream = {});
  /// Changes one entry (signatures[i], old_locations[i]) to (signatures[i],
  /// new_locations[i]): updated or not_found.
  void replace(const signature_type* signatures, const location_type* old_locations,
               const location_type* new_locations, std::size_t n, status* statuses,
               stream_type stream = {});
  /// A mixed batch run concurrently in one pass: search (matches as find;
  /// found or not_found), insert, update (= replace: locations[i] is the old
  /// location, new_locations[i] the new one) and erase. Upsert is not an
  /// index operation (invalid_operation). matches/match_counts may be null
  /// when the batch has no search, new_locations when it has no update. For
  /// one signature the outcome equals some serial order of the batch's
  /// operations on it; a search never misses an entry that was stored before
  /// the batch and is not erased or replaced in it.
  ///
  /// `inserts_at_most`, when the caller knows it, bounds the batch's inserts
  /// (the growth check needs it); otherwise the batch's ops are counted, a
  /// pass over them and a wait for its result.
  void apply(const operation* ops, const signature_type* signatures, const location_type* locations,
             const location_type* new_locations, std::size_t n, location_type* matches,
             std::uint32_t* match_counts, status* statuses, stream_type stream = {},
             std::optional<std::size_t> inserts_at_most = std::nullopt);

  /// apply, queued on `stream` without waiting: phase 1 and the eviction
  /// walks of phase 2 run in stream order, and statuses, matches and counts
  /// are written when the stream gets there. The index accounts for the
  /// batch (its size, and the rare growth for an entry no walk could place:
  /// such an entry is stored then, before any later batch runs) at its next
  /// call or at settle_async(); size() includes the batch from then on. The
  /// batch's arrays must stay valid until the stream has run it.
  void apply_async(const operation* ops, const signature_type* signatures,
                   const location_type* locations, const location_type* new_locations,
                   std::size_t n, location_type* matches, std::uint32_t* match_counts,
                   status* statuses, stream_type stream = {},
                   std::optional<std::size_t> inserts_at_most = std::nullopt);
  /// Waits for the batch apply_async queued, if any, and accounts for it.
  void settle_async(stream_type stream = {});

  // ---- Batches in host containers (every backend) --------------------------

  struct find_result {
    std::vector<location_type> matches;  ///< max_matches per signature
    std::vector<std::uint32_t> counts;
    std::span<const location_type> matches_of(std::size_t i) const {
      return std::span<const location_type>(matches).subspan(i * max_matches, counts[i]);
    }
  };
  std::vector<status> insert(std::span<const signature_type> signatures,
                             std::span<const location_type> locations);
  find_result find(std::span<const signature_type> signatures);
  std::vector<status> erase(std::span<const signature_type> signatures,
                            std::span<const location_type> locations);
  std::vector<status> replace(std::span<const signature_type> signatures,
                              std::span<const location_type> old_locations,
                              std::span<const location_type> new_locations);
  struct apply_result {
    find_result searches;  ///< filled for the batch's search operations
    std::vector<status> statuses;
  };
  apply_result apply(std::span<const operation> ops, std::span<const signature_type> signatures,
                     std::span<const location_type> locations,
                     std::span<const location_type> new_locations,
                     std::optional<std::size_t> inserts_at_most = std::nullopt);
  /// Every stored entry, in no particular order (after settle_async, if a
  /// batch was queued by apply_async).
  std::vector<std::pair<signature_type, location_type>> entries(stream_type stream = {}) const;

  // ---- The whole index -----------------------------------------------------

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  /// Slots allocated.
  std::size_t capacity() const noexcept {
    return buckets_ * detail::signature_index::slots_per_bucket;
  }
  std::size_t memory_bytes() const noexcept {
    return capacity() * sizeof(detail::signature_index::slot_type);
  }
  float max_load_factor() const noexcept { return max_load_factor_; }
  /// Times the index has rebuilt itself larger.
  std::size_t rebuilds() const noexcept { return rebuilds_; }

  // ---- Batches run by the caller's own kernel ------------------------------
  // A kernel of the caller's (the server's resident kernel,
  // server/index/gpu_resident.cuh) runs a batch through ref(): make_room_for
  // before it, then the batch's inserts, erases and replaces (each with
  // its status tallied), then insert_by_eviction for the inserts that came
  // back full, once no other operation runs, and adopt_batch after it. Such
  // a batch must not overlap any other that changes the index, nor a
  // kernel's searches: settle the batch apply_async queued first, and start
  // the next only once the kernel's batch has finished.

  /// The device-side API (signature_index_ref.hpp): valid until the next
  /// call that may grow the index (insert, apply, apply_async,
  /// settle_async, reserve, make_room_for, adopt_batch, clear: growth frees
  /// the old table in stream order).
  signature_index_ref ref() const { return signature_index_ref(view()); }
  /// Grows the index, as a batch does before it runs, if `inserts` more
  /// entries could pass max_load_factor; returns once the grown table is
  /// ready (take ref() after it).
  void make_room_for(std::size_t inserts, stream_type stream = {});
  /// Accounts for such a batch once it has run: the tally of its inserts,
  /// erases and replaces (inserted, erased; full: those left for walks) and
  /// its walks' tally (inserted: placed; full: left an entry in hand), each
  /// entry left in hand in held[0, n) (backend memory; no_entry elsewhere).
  /// The held entries are stored (the index grows for them) before it
  /// returns.
  void adopt_batch(const status_counts& phase_one, const status_counts& walks,
                   const signature_index_ref::entry_type* held, std::size_t n,
                   stream_type stream = {});
  void clear(stream_type stream = {});
  /// Makes room for `n` entries in all.
  void reserve(std::size_t n, stream_type stream = {});

 private:
  using batch_args = detail::signature_index::index_batch;
  using slot_type = detail::signature_index::slot_type;
  template <class T>
  using buffer = typename Backend::template buffer<T>;

  detail::signature_index::index_view view() const;
  void run(const batch_args& args, stream_type stream);
  void insert_in_one_pass(const batch_args& args, stream_type stream);
  void apply_in_two_passes(const batch_args& args, stream_type stream);
  void settle(slot_type* entries, std::size_t n, int depth, stream_type stream);
  void require_room_for(const slot_type* homeless, std::size_t n, stream_type stream);
  void store_held(const slot_type* held, std::size_t n, std::size_t homeless, stream_type stream);
  void add_entries(const slot_type* entries, std::size_t n, int depth, stream_type stream);
  void rebuild(std::uint64_t buckets, int depth, stream_type stream);
  std::uint64_t buckets_for(std::size_t entries) const;
  void use_stream(stream_type stream);
  void check_and_grow(const batch_args& args, stream_type stream);
  bool grow_for(std::size_t inserts, stream_type stream);

  float max_load_factor_;
  std::uint64_t seed_;
  siphash_key key_;
  std::uint64_t buckets_ = 0;
  buffer<slot_type> slots_;
  detail::signature_index::tally_buffers<Backend> tally_;
  std::size_t size_ = 0;
  std::size_t rebuilds_ = 0;
  std::uint64_t walks_ = 0;  // phase-2 runs so far: varies the walks' randomness
  stream_type last_stream_{};
  // The batch apply_async queued, until settle_async: its pending positions,
  // the entries its walks could not place, and its two tallies (phase 1,
  // phase 2; then its pending count) as counted and as read back.
  bool queued_ = false;
  std::size_t queued_n_ = 0;
  buffer<std::size_t> queued_pending_;
  buffer<slot_type> queued_held_;
  buffer<detail::table_counters> queued_counted_;
  typename Backend::template host_buffer<detail::table_counters> queued_read_;
};

}  // namespace gpuhash

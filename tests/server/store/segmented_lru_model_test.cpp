// A differential test of the item store's segmented LRU (item_store.hpp)
// against a reference model: memcached 1.6's HOT, WARM, COLD and TEMP lists
// of one class written as plainly as memcached states them, a std::list per
// segment and a juggle that pulls every segment's tail in every round until
// a round moves nothing (lru_maintainer_juggle, lru_pull_tail), with the
// store's fixed points: a juggle after each link and unlink, at the end of
// a batch whose reads marked an item active (or moved one to WARM), and
// over the class at each new second. Random stores (new keys and
// replacements, some expiring, some within temporary_ttl), reads, touches,
// incrs in place, deletes, batch ends, clock steps and `lru mode` changes
// run on both; after each, every segment's items in order, their marks and
// times, and the class's counts (moves, reclaims, juggles) must agree.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "store/item_store.hpp"
#include "tests/support/random.hpp"

namespace gpuhash::server::store {
namespace {

using gpuhash::testing::scaled;
using gpuhash::testing::seeded_random;

constexpr std::int64_t start_time = 1000;
constexpr std::size_t key_space = 200;
/// Values of 0 to 29 bytes keep every item in class 1 (96-byte chunks) with
/// sizes that differ, so that the shares are shares of bytes.
constexpr std::size_t value_bytes_max = 29;
/// memcached's lru_pull_tail looks at this many items from a tail.
constexpr int tail_items_searched = 5;
/// memcached's ITEM_UPDATE_INTERVAL (a flat LRU's reads).
constexpr std::int64_t update_interval = 60;

std::string key_of(std::size_t k) {
  const std::string digits = std::to_string(k);
  return "key" + std::string(5 - digits.size(), '0') + digits;
}

/// memcached's segmented LRU of one class, one std::list per segment (front:
/// the head), juggled to the end at the store's fixed points.
class lru_model {
 public:
  struct entry {
    std::string key;
    std::size_t bytes = 0;  ///< memcached's size of the item
    std::int64_t expires_at = 0;
    std::int64_t accessed_at = 0;
    bool fetched = false;
    bool active = false;
    lru_segment segment = lru_segment::hot;
  };
  using list = std::list<entry>;
  struct counts {
    std::uint64_t moves_to_cold = 0;
    std::uint64_t moves_to_warm = 0;
    std::uint64_t moves_within_lru = 0;
    std::uint64_t reclaimed = 0;
    std::uint64_t juggles = 0;
  };

  explicit lru_model(const lru_settings& settings) : settings_(settings) {}

  /// An allocation: without segments, memcached's do_item_alloc_pull first
  /// reclaims the dead items at COLD's tail (there is room: no eviction).
  void allocate() {
    if (!settings_.segmented) pull(lru_segment::cold, 0, 0, std::nullopt);
  }
  /// Links a new item at its segment's head, unlinking `replaced` first.
  void link(entry fresh, std::optional<list::iterator> replaced) {
    if (replaced) take_out(*replaced);
    fresh.accessed_at = now_;
    if (is_temporary(fresh)) {
      fresh.segment = lru_segment::temp;
    } else {
      fresh.segment = settings_.segmented ? lru_segment::hot : lru_segment::cold;
    }
    list& to = segments_[segment_index(fresh.segment)];
    to.push_front(std::move(fresh));
    juggle(to.begin());
  }
  /// A delete: the item leaves its segment, then the class is juggled.
  void unlink(list::iterator it) {
    take_out(it);
    juggle(std::nullopt);
  }
  /// memcached's do_item_bump; the store moves an active COLD item at once,
  /// and leaves the juggle after a read to the batch's end.
  void bump(list::iterator it) {
    if (!settings_.segmented) {
      it->fetched = true;
      update(it);
      return;
    }
    if (it->active) return;
    if (!it->fetched) {
      it->fetched = true;
      return;
    }
    it->active = true;
    if (it->segment == lru_segment::cold) {
      update(it);
      return;
    }
    it->accessed_at = now_;
    if (it->segment != lru_segment::temp) juggle_due_ = true;
  }
  /// memcached's do_item_update.
  void update(list::iterator it) {
    if (!settings_.segmented) {
      if (it->accessed_at >= now_ - update_interval) return;
      it->accessed_at = now_;
      move(it, lru_segment::cold);
      return;
    }
    it->accessed_at = now_;
    if (it->segment != lru_segment::cold || !it->active) return;
    it->active = false;
    ++counts_.moves_to_warm;
    move(it, lru_segment::warm);
    juggle_due_ = true;
  }
  /// The batch ends: the juggle its reads left, if no juggle ran since.
  void end_batch() {
    if (juggle_due_) juggle(std::nullopt);
  }
  void set_now(std::int64_t now) {
    if (now == now_) return;
    now_ = now;
    juggle_all();
  }
  void set_lru(const lru_settings& settings) {
    settings_ = settings;
    juggle_all();
  }

  /// Finds the linked item with `key`.
  std::optional<list::iterator> find(const std::string& key) {
    for (list& segment : segments_) {
      const auto found = std::find_if(segment.begin(), segment.end(),
                                      [&](const entry& e) { return e.key == key; });
      if (found != segment.end()) return found;
    }
    return std::nullopt;
  }
  const std::array<list, lru_segments>& segments() const { return segments_; }
  const counts& totals() const { return counts_; }
  std::int64_t now() const { return now_; }
  bool dead(const entry& e) const { return e.expires_at != 0 && e.expires_at < now_; }

 private:
  bool is_temporary(const entry& e) const {
    return settings_.temp_lru && e.expires_at != 0 && e.expires_at >= now_ &&
           e.expires_at - now_ <= std::int64_t{settings_.temporary_ttl};
  }
  std::size_t bytes_of(lru_segment segment) const {
    std::size_t bytes = 0;
    for (const entry& e : segments_[segment_index(segment)]) bytes += e.bytes;
    return bytes;
  }
  list::iterator move(list::iterator it, lru_segment to) {
    list& into = segments_[segment_index(to)];
    into.splice(into.begin(), segments_[segment_index(it->segment)], it);
    it->segment = to;
    return it;
  }
  void take_out(list::iterator it) { segments_[segment_index(it->segment)].erase(it); }
  void juggle_all() {
    if (std::any_of(segments_.begin(), segments_.end(), [](const list& l) { return !l.empty(); }))
      juggle(std::nullopt);
  }

  /// lru_maintainer_juggle: TEMP's dead tail first, then rounds over HOT,
  /// WARM and COLD until one moves nothing. `keep` is passed over when dead.
  void juggle(std::optional<list::iterator> keep) {
    if (!settings_.maintainer) return;
    juggle_due_ = false;
    ++counts_.juggles;
    if (settings_.temp_lru) {
      while (pull(lru_segment::temp, 0, 0, keep) > 0) {
      }
    }
    std::int64_t hot_age = 0;
    std::int64_t warm_age = 0;
    std::size_t total = 0;
    if (settings_.segmented) {
      const list& cold = segments_[segment_index(lru_segment::cold)];
      const std::int64_t cold_age =
          cold.empty() ? 0 : std::max<std::int64_t>(0, now_ - cold.back().accessed_at);
      hot_age = static_cast<std::int64_t>(static_cast<double>(cold_age) * settings_.hot_max_factor);
      warm_age =
          static_cast<std::int64_t>(static_cast<double>(cold_age) * settings_.warm_max_factor);
      total =
          bytes_of(lru_segment::hot) + bytes_of(lru_segment::warm) + bytes_of(lru_segment::cold);
    }
    for (;;) {
      int moved = 0;
      if (pull(lru_segment::hot, total, hot_age, keep) != 0 ||
          pull(lru_segment::warm, total, warm_age, keep) != 0)
        ++moved;
      if (settings_.segmented) moved += pull(lru_segment::cold, total, 0, keep);
      if (moved == 0) return;
    }
  }

  /// lru_pull_tail without eviction: up to 5 items from the tail; dead ones
  /// reclaimed (but `keep`), the first live one moved as its segment says.
  int pull(lru_segment from, std::size_t total, std::int64_t max_age,
           std::optional<list::iterator> keep) {
    list& segment = segments_[segment_index(from)];
    const auto before = [&](list::iterator it) -> std::optional<list::iterator> {
      if (it == segment.begin()) return std::nullopt;
      return std::prev(it);
    };
    int moved = 0;
    std::optional<list::iterator> search = before(segment.end());
    for (int tries = tail_items_searched; tries > 0 && search; --tries) {
      const list::iterator it = *search;
      search = before(it);  // the next to look at, taken before `it` moves
      const bool is_dead = dead(*it);
      if (keep && *keep == it && is_dead) continue;
      if (is_dead) {
        ++counts_.reclaimed;
        ++moved;
        segment.erase(it);
        continue;
      }
      if (from == lru_segment::temp) break;
      if (from == lru_segment::cold) {
        if (it->active && settings_.segmented) {
          it->active = false;
          ++counts_.moves_to_warm;
          move(it, lru_segment::warm);
          ++moved;
        }
        break;
      }
      const std::size_t pct =
          from == lru_segment::hot ? settings_.hot_lru_pct : settings_.warm_lru_pct;
      if (it->active) {
        it->active = false;
        ++moved;
        if (from == lru_segment::warm) {
          ++counts_.moves_within_lru;
          move(it, lru_segment::warm);  // to WARM's head; the walk goes on
          continue;
        }
        ++counts_.moves_to_warm;
        move(it, lru_segment::warm);
      } else if (bytes_of(from) > total * pct / 100 || now_ - it->accessed_at > max_age) {
        ++counts_.moves_to_cold;
        move(it, lru_segment::cold);
        ++moved;
      }
      break;
    }
    return moved;
  }

  lru_settings settings_;
  std::array<list, lru_segments> segments_;
  counts counts_;
  std::int64_t now_ = 0;
  bool juggle_due_ = false;  ///< a read left the class to the batch's end
};

/// A store and the model driven by the same random operations.
class model_run {
 public:
  explicit model_run(const lru_settings& settings)
      : ledger_(config_for(settings)), store_(ledger_), model_(settings) {
    store_.on_dead_check(
        [this](const item& it) { return it.expires_at != 0 && it.expires_at < store_.now(); });
    store_.set_now(start_time);
    model_.set_now(start_time);
  }

  void step(seeded_random& random) {
    const std::uint64_t choice = random.below(100);
    const std::string key = key_of(random.below(key_space));
    std::optional<lru_model::list::iterator> found = model_.find(key);
    if (found && model_.dead(**found)) {
      // as the cache finds a key (do_item_get): a dead item is unlinked
      unlink(*found);
      found.reset();
    }
    if (choice < 30) {
      store(random, key, found);
    } else if (choice < 70) {
      if (found) read(*found);
    } else if (choice < 75) {
      if (found) touch(*found, expiry(random));
    } else if (choice < 80) {
      if (found) update(*found);
    } else if (choice < 88) {
      if (found) unlink(*found);
    } else if (choice < 98) {
      const std::int64_t now = model_.now() + static_cast<std::int64_t>(random.below(4));
      store_.set_now(now);
      model_.set_now(now);
    } else if (mode_changes_) {
      lru_settings settings = store_.lru();
      settings.segmented = !settings.segmented;
      store_.set_lru(settings);
      model_.set_lru(settings);
    }
    if (random.below(4) == 0) {  // a batch of a few operations ends
      store_.end_batch();
      model_.end_batch();
      forget_reclaimed();
    }
  }

  /// The store's segments, items, marks, times and counts are the model's.
  void check() const {
    std::array<std::vector<std::string>, lru_segments> keys;
    store_.for_each_linked([&](location, const item& it) {
      ASSERT_EQ(it.size_class, 1u);
      keys[segment_index(it.segment)].emplace_back(it.key());
    });
    const class_stats stats = store_.classes().front();
    std::size_t linked = 0;
    for (std::size_t s = 0; s < lru_segments; ++s) {
      SCOPED_TRACE("segment " + std::to_string(s));
      const lru_model::list& expected = model_.segments()[s];
      std::vector<std::string> expected_keys;
      for (const lru_model::entry& e : expected) expected_keys.push_back(e.key);
      ASSERT_EQ(keys[s], expected_keys);
      for (const lru_model::entry& e : expected) {
        const item& it = store_.at(locations_.at(e.key));
        ASSERT_EQ(it.fetched, e.fetched) << e.key;
        ASSERT_EQ(it.active, e.active) << e.key;
        ASSERT_EQ(it.accessed_at, e.accessed_at) << e.key;
        ASSERT_EQ(it.expires_at, e.expires_at) << e.key;
      }
      ASSERT_EQ(stats.segment_items[s], expected.size());
      linked += expected.size();
    }
    ASSERT_EQ(stats.linked_items, linked);
    const lru_model::counts& counts = model_.totals();
    ASSERT_EQ(stats.moves_to_cold, counts.moves_to_cold);
    ASSERT_EQ(stats.moves_to_warm, counts.moves_to_warm);
    ASSERT_EQ(stats.moves_within_lru, counts.moves_within_lru);
    ASSERT_EQ(stats.reclaimed, counts.reclaimed);
    ASSERT_EQ(store_.juggles(), counts.juggles);
  }

  void allow_mode_changes() { mode_changes_ = true; }
  const lru_model::counts& totals() const { return model_.totals(); }

 private:
  static store_config config_for(const lru_settings& settings) {
    store_config config;
    config.item_size_max = 1024;
    config.memory_limit = std::size_t{64} << 20;  // no evictions: the model has none
    config.lru = settings;
    return config;
  }
  /// Never (0) seven times in ten, else a few seconds either side of now.
  std::int64_t expiry(seeded_random& random) const {
    if (random.below(10) < 7) return 0;
    return model_.now() - 2 + static_cast<std::int64_t>(random.below(20));
  }

  void store(seeded_random& random, const std::string& key,
             std::optional<lru_model::list::iterator> found) {
    const std::size_t value_bytes = random.below(value_bytes_max + 1);
    const std::int64_t expires_at = expiry(random);
    allocation_error error = allocation_error::none;
    const location where = store_.allocate(key, value_bytes, 0, error);
    ASSERT_EQ(error, allocation_error::none);
    model_.allocate();  // (`found` is live: never reclaimed)
    item& it = store_.at(where);
    ASSERT_EQ(it.size_class, 1u);
    it.expires_at = expires_at;
    it.accessed_at = store_.now();  // as the engine links an item
    const location replaced = found ? locations_.at(key) : no_location;
    store_.link(where, replaced);
    locations_[key] = where;
    lru_model::entry fresh;
    fresh.key = key;
    fresh.bytes = store_.reported_size(it);
    fresh.expires_at = expires_at;
    model_.link(fresh, found);
    forget_reclaimed();
  }
  void read(lru_model::list::iterator found) {
    store_.bump(locations_.at(found->key));
    model_.bump(found);
    forget_reclaimed();
  }
  /// A touch: a new expiry, then a read (as gat and touch run).
  void touch(lru_model::list::iterator found, std::int64_t expires_at) {
    store_.at(locations_.at(found->key)).expires_at = expires_at;
    found->expires_at = expires_at;
    read(found);
  }
  void update(lru_model::list::iterator found) {
    store_.update(locations_.at(found->key));
    model_.update(found);
    forget_reclaimed();
  }
  void unlink(lru_model::list::iterator found) {
    const std::string key = found->key;
    store_.unlink(locations_.at(key));
    locations_.erase(key);
    model_.unlink(found);
    forget_reclaimed();
  }
  /// Drops the locations of the items the juggles reclaimed.
  void forget_reclaimed() {
    std::erase_if(locations_, [&](const auto& named) { return !model_.find(named.first); });
  }

  slab_ledger ledger_;
  item_store store_;
  lru_model model_;
  std::map<std::string, location> locations_;  ///< the linked items'
  bool mode_changes_ = false;
};

/// The keys of each of the model's segments, each from its head.
std::array<std::vector<std::string>, lru_segments> keys_of(const lru_model& model) {
  std::array<std::vector<std::string>, lru_segments> keys;
  for (std::size_t s = 0; s < lru_segments; ++s) {
    for (const lru_model::entry& e : model.segments()[s]) keys[s].push_back(e.key);
  }
  return keys;
}

// The model itself, on steps whose outcome memcached's numbers fix (the
// same steps as segmented_lru_test.cpp's).
TEST(segmented_lru_model, the_model_keeps_memcacheds_segments) {
  lru_model model{lru_settings{}};
  model.set_now(start_time);
  for (std::size_t i = 0; i < 10; ++i) {
    lru_model::entry fresh;
    fresh.key = key_of(i);
    fresh.bytes = 100;
    model.link(fresh, std::nullopt);
  }
  // after each store HOT's tail goes to COLD while HOT holds more than 20%
  std::array<std::vector<std::string>, lru_segments> expected;
  expected[segment_index(lru_segment::hot)] = {key_of(9), key_of(8)};
  for (std::size_t i = 8; i-- > 0;) expected[segment_index(lru_segment::cold)].push_back(key_of(i));
  EXPECT_EQ(keys_of(model), expected);
  EXPECT_EQ(model.totals().moves_to_cold, 8u);
  EXPECT_EQ(model.totals().juggles, 10u);
  // two reads of COLD's 0 move it to WARM, within WARM's share
  const auto zero = *model.find(key_of(0));
  model.bump(zero);
  model.bump(zero);
  EXPECT_EQ(model.totals().moves_to_warm, 1u);
  EXPECT_EQ(keys_of(model)[segment_index(lru_segment::warm)], std::vector<std::string>{key_of(0)})
      << "one item of ten is within WARM's 40%";
  // idle HOT items leave once older than a fifth of COLD's tail age
  model.set_now(start_time + 5);
  EXPECT_TRUE(keys_of(model)[segment_index(lru_segment::hot)].empty());
}

void run_against_model(const lru_settings& settings, bool mode_changes) {
  seeded_random random;
  model_run run(settings);
  if (mode_changes) run.allow_mode_changes();
  const std::size_t operations = scaled(20000);
  for (std::size_t step = 0; step < operations; ++step) {
    run.step(random);
    if (::testing::Test::HasFatalFailure()) return;
    run.check();
    if (::testing::Test::HasFatalFailure()) {
      ADD_FAILURE() << "after step " << step;
      return;
    }
  }
  const lru_model::counts& totals = run.totals();
  EXPECT_GT(totals.moves_to_cold, 0u) << "the test should move items to COLD";
  EXPECT_GT(totals.moves_to_warm, 0u) << "the test should move items to WARM";
  EXPECT_GT(totals.moves_within_lru, 0u) << "the test should move items within WARM";
  EXPECT_GT(totals.reclaimed, 0u) << "the test should reclaim dead items";
}

TEST(segmented_lru_model, random_operations_match_the_model) {
  run_against_model(lru_settings{}, false);
}

TEST(segmented_lru_model, random_operations_with_temp_lru_match_the_model) {
  lru_settings settings;
  settings.temp_lru = true;
  settings.temporary_ttl = 10;
  run_against_model(settings, false);
}

TEST(segmented_lru_model, random_operations_with_lru_mode_changes_match_the_model) {
  run_against_model(lru_settings{}, true);
}

TEST(segmented_lru_model, random_operations_with_other_shares_and_ages_match_the_model) {
  lru_settings settings;
  settings.hot_lru_pct = 5;
  settings.warm_lru_pct = 70;
  settings.hot_max_factor = 1.0;
  settings.warm_max_factor = 0.5;
  run_against_model(settings, false);
}

}  // namespace
}  // namespace gpuhash::server::store

// The item store's segmented LRU (item_store.hpp): memcached's HOT, WARM,
// COLD and TEMP lists of a class, its do_item_bump and do_item_update, its
// lru_pull_tail and its LRU maintainer's juggle, run at fixed points instead
// of on a thread.

#include <algorithm>
#include <cassert>
#include <cstdint>

#include "store/item_store.hpp"

namespace gpuhash::server::store {
namespace {

/// memcached's lru_pull_tail: items looked at from the tail.
constexpr int tail_items_searched = 5;
/// memcached's ITEM_UPDATE_INTERVAL: without the segmented LRU, a read
/// moves an item to its LRU's head only when its last move is older.
constexpr std::int64_t update_interval = 60;

}  // namespace

void item_store::set_now(std::int64_t now) {
  const bool new_second = now != now_;
  now_ = now;
  if (new_second) juggle_all();
}

void item_store::set_lru(const lru_settings& lru) {
  lru_ = lru;
  juggle_all();
}

void item_store::juggle_all() {
  if (!lru_.maintainer) return;
  for (std::size_t c = 1; c <= size_classes_.size(); ++c)
    if (!class_is_empty(size_classes_[c - 1])) juggle(c, no_location);
}

void item_store::bump(location where) {
  item& it = at(where);
  assert(it.linked && "bump: the item is not linked");
  if (!lru_.segmented) {
    it.fetched = true;
    update(where);
    return;
  }
  // memcached's do_item_bump: a second read makes an item active, and a
  // read of an active one changes nothing
  if (it.active) return;
  if (!it.fetched) {
    it.fetched = true;
    return;
  }
  it.active = true;
  if (it.segment != lru_segment::cold) {
    it.accessed_at = now_;
    // the maintainer moves an active tail: HOT's to WARM, WARM's to its head
    if (it.segment != lru_segment::temp) mark_unsettled(it.size_class);
    return;
  }
  // memcached queues this item for its maintainer (lru_bump_async), which
  // runs do_item_update on it a moment later; here it runs now
  update(where);
}

void item_store::update(location where) {
  item& it = at(where);
  assert(it.linked && "update: the item is not linked");
  size_class_state& state = size_classes_[it.size_class - 1];
  if (!lru_.segmented) {
    if (it.accessed_at >= now_ - update_interval) return;
    it.accessed_at = now_;
    move_to(state, where, it, lru_segment::cold);
    return;
  }
  it.accessed_at = now_;
  if (it.segment != lru_segment::cold || !it.active) return;
  it.active = false;
  ++state.counts.moves_to_warm;
  move_to(state, where, it, lru_segment::warm);
  mark_unsettled(it.size_class);
}

/// memcached's lru_pull_tail on one segment of a class: up to 5 items from
/// its tail. A dead one is reclaimed and the walk goes on. The first live
/// one ends it: in TEMP it stays where it is; in HOT or WARM, an active
/// item goes to WARM's head (from WARM the walk goes on), an idle one to
/// COLD when the segment holds more than its share of `total_bytes` or the
/// item is older than `max_age` seconds; in COLD it is evicted with
/// pull_mode::evict (not under -M), or moved to WARM when active. `keep` is
/// never removed: passed over as memcached passes over an item a worker
/// holds locked, though it may move. Returns the items removed or moved.
int item_store::pull_tail(std::size_t size_class, lru_segment from, pull_mode mode,
                          std::size_t total_bytes, std::int64_t max_age, location keep) {
  size_class_state& state = size_classes_[size_class - 1];
  lru_list& list = state.lru[segment_index(from)];
  int removed = 0;
  location search = list.tail;
  for (int tries = tail_items_searched; tries > 0 && search != no_location; --tries) {
    item& it = at(search);
    const location next = it.lru_prev;  // before `search` moves
    const bool dead = dead_check_ && dead_check_(it);
    if (search == keep && (dead || mode == pull_mode::evict)) {
      search = next;
      continue;
    }
    if (dead) {
      remove_from_tail(state, search, it, true);
      ++removed;
      search = next;
      continue;
    }
    if (from == lru_segment::temp) break;  // TEMP's live items are never moved or evicted
    if (from == lru_segment::cold) {
      if (mode == pull_mode::evict) {
        if (classes_.config().evict) {
          remove_from_tail(state, search, it, false);
          ++removed;
        }
      } else if (it.active && lru_.segmented) {
        it.active = false;
        ++state.counts.moves_to_warm;
        move_to(state, search, it, lru_segment::warm);
        ++removed;
      }
      break;
    }
    const std::size_t share = from == lru_segment::hot ? lru_.hot_lru_pct : lru_.warm_lru_pct;
    if (it.active) {
      // memcached rescues active items aggressively
      it.active = false;
      ++removed;
      if (from == lru_segment::warm) {
        ++state.counts.moves_within_lru;
        move_to(state, search, it, lru_segment::warm);
        search = next;
        continue;
      }
      ++state.counts.moves_to_warm;
      move_to(state, search, it, lru_segment::warm);
    } else if (list.bytes > total_bytes * share / 100 || now_ - it.accessed_at > max_age) {
      ++state.counts.moves_to_cold;
      move_to(state, search, it, lru_segment::cold);
      ++removed;
    }
    break;
  }
  return removed;
}

/// Whether pull_tail(pull_mode::move) of the segment `list` would move
/// nothing because its tail is live and stays where it is; false also where
/// it leaves the answer to pull_tail's walk (a tail that is `keep`). Most of
/// a juggle's pulls move nothing: this answers them inline. The owner's dead
/// check comes last, as a tail that moves anyway is left to pull_tail,
/// which checks it.
inline bool item_store::tail_stays(const lru_list& list, lru_segment from, std::size_t total_bytes,
                                   std::int64_t max_age, location keep) const {
  if (list.tail == no_location) return true;
  if (list.tail == keep) return false;
  const item& it = at(list.tail);
  switch (from) {
    case lru_segment::temp: break;
    case lru_segment::cold:
      if (it.active && lru_.segmented) return false;
      break;
    case lru_segment::hot:
    case lru_segment::warm: {
      const std::size_t share = from == lru_segment::hot ? lru_.hot_lru_pct : lru_.warm_lru_pct;
      if (it.active || list.bytes > total_bytes * share / 100 || now_ - it.accessed_at > max_age)
        return false;
      break;
    }
  }
  return !(dead_check_ && dead_check_(it));
}

/// Unlinks an item at a tail, counts it, tells the owner and frees it.
void item_store::remove_from_tail(size_class_state& state, location where, item& it, bool dead) {
  lru_detach(state, it);
  count_unlinked(state, it);
  if (dead) {
    ++state.counts.reclaimed;
  } else {
    ++state.counts.evictions;
    if (it.active) ++state.counts.evicted_active;
  }
  if (removal_handler_)
    removal_handler_(where, it, dead ? tail_removal::reclaimed : tail_removal::evicted);
  free_item(where, it);
}

/// memcached's lru_maintainer_juggle for one class: with temp_lru, TEMP's
/// tail is pulled for dead items until a pull reclaims none; then HOT's and
/// WARM's tails are pulled against their shares of the bytes of HOT, WARM
/// and COLD and against ages of hot_max_factor and warm_max_factor times
/// COLD's tail age, and COLD's tail for active items (and, in all three,
/// dead ones), until a round moves nothing. A flat LRU (`lru mode flat`)
/// drains HOT and WARM into COLD instead: shares of no bytes, ages of 0, and
/// COLD left alone. memcached's juggle stops after 500 rounds, and its
/// maintainer calls it again at once while it moves items: so here the
/// rounds go on to the end. `keep` is never removed.
///
/// A round pulls only the segments whose pull may move something. Within a
/// juggle the shares' total, the ages, `keep` and which items are dead stay
/// as they are, and only pulls change the segments: a pull that moved
/// nothing would move nothing again until an item enters its segment, and
/// nothing enters HOT, WARM and COLD but from a pull that moved something.
/// So the pulls skipped are pulls that would move nothing, and the rounds
/// move what they would move if each pulled every segment
/// (tests/server/store/segmented_lru_model_test.cpp holds them to such a
/// juggle).
void item_store::juggle(std::size_t size_class, location keep) {
  size_class_state& state = size_classes_[size_class - 1];
  state.unsettled = false;
  if (!lru_.maintainer) return;
  ++juggles_;
  if (lru_.temp_lru) {
    // TEMP first, for its dead items only
    const lru_list& temp = state.lru[segment_index(lru_segment::temp)];
    while (!tail_stays(temp, lru_segment::temp, 0, 0, keep) &&
           pull_tail(size_class, lru_segment::temp, pull_mode::move, 0, 0, keep) > 0) {
    }
  }
  std::int64_t hot_age = 0;
  std::int64_t warm_age = 0;
  std::size_t total_bytes = 0;
  if (lru_.segmented) {
    const location cold_tail = state.lru[segment_index(lru_segment::cold)].tail;
    const std::int64_t cold_age =
        cold_tail == no_location ? 0 : std::max<std::int64_t>(0, now_ - at(cold_tail).accessed_at);
    // memcached keeps these ages in whole seconds (rel_time_t)
    hot_age = static_cast<std::int64_t>(static_cast<double>(cold_age) * lru_.hot_max_factor);
    warm_age = static_cast<std::int64_t>(static_cast<double>(cold_age) * lru_.warm_max_factor);
    for (const lru_segment segment : {lru_segment::hot, lru_segment::warm, lru_segment::cold})
      total_bytes += state.lru[segment_index(segment)].bytes;
  }
  constexpr unsigned hot = 1u << segment_index(lru_segment::hot);
  constexpr unsigned warm = 1u << segment_index(lru_segment::warm);
  constexpr unsigned cold = 1u << segment_index(lru_segment::cold);
  // COLD is pulled (and entered) only with segments; a flat LRU's pulls
  // send HOT's and WARM's tails to COLD, which is never pulled
  const unsigned pulled = hot | warm | (lru_.segmented ? cold : 0u);
  unsigned may_move = pulled;
  // Pulls `segment` if it may move; `enters`: the segments its moves may enter.
  const auto pull = [&](lru_segment segment, std::int64_t max_age, unsigned enters) {
    const unsigned bit = 1u << segment_index(segment);
    if ((may_move & bit) == 0) return 0;
    const int moved =
        tail_stays(state.lru[segment_index(segment)], segment, total_bytes, max_age, keep)
            ? 0
            : pull_tail(size_class, segment, pull_mode::move, total_bytes, max_age, keep);
    may_move = moved == 0 ? may_move & ~bit : may_move | ((enters | bit) & pulled);
    return moved;
  };
  for (;;) {
    int moved = 0;
    if (pull(lru_segment::hot, hot_age, warm | cold) != 0 ||
        pull(lru_segment::warm, warm_age, cold) != 0)
      ++moved;
    if (lru_.segmented) moved += pull(lru_segment::cold, 0, warm);
    if (moved == 0) break;
  }
}

/// Marks a class for juggle_unsettled: an allocation pulled its tails, or
/// a read made one of its items active.
void item_store::mark_unsettled(std::size_t size_class) {
  size_class_state& state = size_classes_[size_class - 1];
  if (state.unsettled || !lru_.maintainer) return;
  state.unsettled = true;
  unsettled_classes_.push_back(size_class);
}

/// Juggles the marked classes no juggle has seen since: memcached's
/// maintainer catches up with them after the request (after an
/// allocation's pulls) or the batch (after its reads: end_batch).
void item_store::juggle_unsettled() {
  for (const std::size_t size_class : unsettled_classes_)
    if (size_classes_[size_class - 1].unsettled) juggle(size_class, no_location);
  unsettled_classes_.clear();
}

/// memcached's do_item_alloc: with temp_lru, an item goes to TEMP when its
/// expiry minus now, in unsigned seconds, is at most temporary_ttl. With
/// temporary_ttl below 2^31 that leaves out items that never expire (0)
/// and those already expired.
bool item_store::is_temporary(const item& it) const noexcept {
  return lru_.temp_lru && it.expires_at != 0 && it.expires_at >= now_ &&
         it.expires_at - now_ <= std::int64_t{lru_.temporary_ttl};
}

bool item_store::class_is_empty(const size_class_state& state) const noexcept {
  return state.counts.linked_items == 0;
}

}  // namespace gpuhash::server::store

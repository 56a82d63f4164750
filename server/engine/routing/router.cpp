// Which shard runs what (router.hpp); the replies are put back together in
// assemble.cpp.

#include "engine/routing/router.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/routing/split_state.hpp"
#include "engine/stats/cachedump.hpp"
#include "engine/stats/render.hpp"

namespace gpuhash::server::engine {

namespace {

/// What route_whole found, for make_parts (per thread: both run on the
/// submitting thread, one right after the other).
struct routed_keys {
  std::vector<std::uint8_t> key_shards;       ///< of each key it hashed, in order
  std::vector<std::uint64_t> request_shards;  ///< of each request's keys (a bit each)
};
routed_keys& routed_now() {
  static thread_local routed_keys routed;
  return routed;
}

/// A part's share of its group's reply budget: parts run at once on their
/// shards, so together they gather no more than the group may.
std::size_t part_budget(std::size_t group_budget, std::size_t shards) {
  return std::max<std::size_t>(group_budget / shards, 1);
}

/// The first key of item i of a group a batch goes on with (a multi-get
/// answered in part by an earlier batch goes on from where it stopped).
std::size_t first_key(const request_group& group, std::size_t i) {
  return i == group.done ? group.items[i].resume_at : 0;
}

}  // namespace

router::router(std::size_t shards, bool dumping_enabled, key_hasher hasher)
    : shards_(std::clamp<std::size_t>(shards, 1, max_shards)),
      dumping_enabled_(dumping_enabled),
      hasher_(hasher) {}

bool router::route(request_group& group, shard_queues& queued) {
  if (shards_ == 1) {
    queued[0].push_back(&group);
    return true;
  }
  if (group.split && group.split->active) return resume(group, queued);
  if (route_whole(group, queued)) return true;
  make_parts(group);
  const request_group::split_state& split = *group.split;
  for (std::size_t s = 0; s < shards_; ++s)
    if ((split.involved >> s & 1) != 0) queued[s].push_back(split.parts[s].get());
  return true;
}

bool router::resume(request_group& group, shard_queues& queued) {
  // back unfinished: the parts that stopped go on
  request_group::split_state& split = *group.split;
  std::size_t resumed = 0;
  for (std::size_t s = 0; s < shards_; ++s)
    if ((split.involved >> s & 1) != 0 && !split.parts[s]->finished()) ++resumed;
  split.pending.store(resumed, std::memory_order_relaxed);
  if (resumed == 0) {  // not expected: every part had answered all
    return false;
  }
  for (std::size_t s = 0; s < shards_; ++s) {
    if ((split.involved >> s & 1) == 0 || split.parts[s]->finished()) continue;
    split.compact(s);
    request_group& part = *split.parts[s];
    part.budget = part_budget(group.budget, shards_);
    part.room_wanted = 0;
    queued[s].push_back(&part);
  }
  return true;
}

bool router::route_whole(request_group& group, shard_queues& queued) {
  // The common case first: every key in one shard (a lone get or set). The
  // shards found are kept, in order, for make_parts, and each key's index
  // signature with its request, for the batch (a key is hashed once).
  bool every = false;
  std::uint64_t group_shards = 0;
  routed_keys& routed = routed_now();
  routed.key_shards.clear();
  routed.request_shards.clear();
  for (std::size_t i = group.done; i < group.used; ++i) {
    work_item& item = group.items[i];
    const protocol::request& request = item.request;
    std::uint64_t shards = 0;
    const auto hash = [&](std::string_view key, std::size_t k) {
      const std::uint64_t hashed = hasher_.hash(key);
      item.signatures[k] = key_hasher::signature_of(hashed);
      const std::size_t s = key_hasher::shard_of(hashed, shards_);
      routed.key_shards.push_back(static_cast<std::uint8_t>(s));
      shards |= std::uint64_t{1} << s;
    };
    if (item.is_error()) {
      if (item.drops_key) {
        item.signatures.resize(protocol::item_key_positions(request));
        protocol::for_each_item_key_at(request, 0, hash);
      }
    } else if (protocol::scope_of(request.kind) == protocol::key_scope::every) {
      every = true;
    } else {
      item.signatures.resize(protocol::item_key_positions(request));
      protocol::for_each_item_key_at(request, first_key(group, i), hash);
    }
    routed.request_shards.push_back(shards);
    group_shards |= shards;
  }
  const bool several = (group_shards & (group_shards - 1)) != 0;  // more than one bit
  if (every || several) return false;
  queued[group_shards == 0 ? 0 : std::countr_zero(group_shards)].push_back(&group);
  return true;
}

void router::make_parts(request_group& group) {
  if (!group.split) group.split = std::make_unique<request_group::split_state>();
  request_group::split_state& split = *group.split;
  split.active = true;
  split.involved = 0;
  split.routes.clear();
  split.key_shards.clear();
  split.next_segment.assign(shards_, 0);
  split.next_numbers.assign(shards_, 0);
  split.next_dumps.assign(shards_, 0);
  split.first_item = group.done;
  split.next_route = split.key = split.key_base = 0;
  split.dumps_done = 0;
  split.parts.resize(shards_);
  make_routes(group);
  fill_parts(group);
  std::size_t parts = 0;
  for (std::size_t s = 0; s < shards_; ++s) parts += split.involved >> s & 1;
  split.pending.store(parts, std::memory_order_relaxed);
}

/// The routes of the group's requests, in order: the shards of their keys
/// as route_whole hashed them; a request for no key goes with the first
/// shard that has others.
void router::make_routes(request_group& group) {
  using request_route = request_group::split_state::request_route;
  request_group::split_state& split = *group.split;
  const routed_keys& routed = routed_now();
  const std::uint64_t all = shards_ == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << shards_) - 1;
  std::size_t next_routed = 0;
  constexpr std::uint32_t anywhere = static_cast<std::uint32_t>(-1);
  std::uint32_t first_shard = anywhere;
  for (std::size_t i = group.done; i < group.used; ++i) {
    const work_item& item = group.items[i];
    const protocol::request& request = item.request;
    request_route r;
    r.shard = anywhere;
    const auto one_key = [&](std::string_view) { r.shard = routed.key_shards[next_routed++]; };
    const protocol::key_scope scope = protocol::scope_of(request.kind);
    if (item.is_error()) {
      if (item.drops_key) protocol::for_each_item_key(request, 0, one_key);
    } else if (scope == protocol::key_scope::one) {
      protocol::for_each_item_key(request, 0, one_key);
    } else if (scope == protocol::key_scope::many) {
      // its keys from the first to go on (none left: answered "END" anywhere)
      const std::size_t keys =
          request.keys.size() - std::min(first_key(group, i), request.keys.size());
      const auto first = routed.key_shards.begin() + static_cast<std::ptrdiff_t>(next_routed);
      split.key_shards.insert(split.key_shards.end(), first,
                              first + static_cast<std::ptrdiff_t>(keys));
      next_routed += keys;
      r.keys = static_cast<std::uint32_t>(keys);
      r.shards = routed.request_shards[i - group.done];
      if (keys != 0) r.kind = route_kind::keys;
    } else if (scope == protocol::key_scope::every) {
      r = {route_kind::every, 0, 0, all};
      const std::string_view argument = request.argument;
      if (request.kind == protocol::command::stats && adds_up(argument))
        r.kind = route_kind::every_stats;
      // a refused cachedump has the same reply from every shard
      if (request.kind == protocol::command::stats && argument == "cachedump" && dumping_enabled_ &&
          request.dump_refusal.empty())
        r.kind = route_kind::every_cachedump;
      if (request.kind == protocol::command::lru_crawler_metadump && dumping_enabled_) {
        r.kind = argument == "all" ? route_kind::every_dump : route_kind::every_keys;
        r.keys = static_cast<std::uint32_t>(request.keys.size());
      }
    }
    if (r.kind == route_kind::one && r.shard != anywhere && first_shard == anywhere)
      first_shard = r.shard;
    split.routes.push_back(r);
  }
  if (first_shard == anywhere) first_shard = 0;
  for (request_route& r : split.routes)
    if (r.kind == route_kind::one && r.shard == anywhere) r.shard = first_shard;
}

namespace {

/// Puts a multi-get's keys and signatures, set aside while its copies are
/// made, back into the item when it goes.
struct set_aside {
  std::vector<std::string_view>& keys;
  std::vector<std::uint32_t>& signatures;
  work_item& item;
  set_aside(std::vector<std::string_view>& k, std::vector<std::uint32_t>& s, work_item& i)
      : keys(k), signatures(s), item(i) {}
  set_aside(const set_aside&) = delete;
  set_aside& operator=(const set_aside&) = delete;
  ~set_aside() {
    keys.swap(item.request.keys);
    signatures.swap(item.signatures);
  }
};

}  // namespace

/// Each shard's part: its requests, in order.
void router::fill_parts(request_group& group) {
  request_group::split_state& split = *group.split;
  const auto part = [&](std::size_t s) -> request_group& {
    std::unique_ptr<request_group>& made = split.parts[s];
    if (!made) {
      made = std::make_unique<request_group>();
      made->part = std::make_unique<request_group::part_of>();
    }
    if ((split.involved >> s & 1) == 0) {
      split.involved |= std::uint64_t{1} << s;
      made->reset();
      made->part->whole = &group;
      made->budget = part_budget(group.budget, shards_);
    }
    return *made;
  };
  std::size_t key_base = 0;
  std::array<work_item*, max_shards> copies{};
  std::vector<std::string_view> keys;
  std::vector<std::uint32_t> signatures;
  for (std::size_t r = 0; r < split.routes.size(); ++r) {
    const auto& how = split.routes[r];
    work_item& item = group.items[group.done + r];
    if (how.kind == route_kind::one) {
      part(how.shard).next_item() = item;
      continue;
    }
    if (how.kind != route_kind::keys) {
      for (std::size_t s = 0; s < shards_; ++s)
        if ((how.shards >> s & 1) != 0) part(s).next_item() = item;
      continue;
    }
    // A multi-get's copies take the request but its keys, which then go to
    // them in one pass: its keys and signatures are set aside meanwhile
    // (and put back however the block is left).
    keys.swap(item.request.keys);
    signatures.swap(item.signatures);
    const set_aside restore{keys, signatures, item};
    for (std::size_t s = 0; s < shards_; ++s) {
      if ((how.shards >> s & 1) == 0) continue;
      work_item& copy = part(s).next_item();
      copy = item;
      copy.resume_at = 0;
      copies[s] = &copy;
    }
    const std::size_t first = keys.size() - how.keys;
    for (std::size_t k = 0; k < how.keys; ++k) {
      work_item& copy = *copies[split.key_shards[key_base + k]];
      copy.request.keys.push_back(keys[first + k]);
      copy.signatures.push_back(signatures[first + k]);
    }
    key_base += how.keys;
  }
}

bool router::part_done(request_group& part) {
  // The last part back (its batch's writes to the other parts are seen
  // through pending) puts the replies together.
  request_group& whole = *part.part->whole;
  return whole.split->pending.fetch_sub(1, std::memory_order_acq_rel) == 1;
}

void router::fail(request_group& group) {
  group.done = group.used;
  group.replies.assign("SERVER_ERROR out of memory\r\n");
  group.close_after = true;
  if (group.part) group.part->whole->split->failed = true;
}

}  // namespace gpuhash::server::engine

// A group in parts gets its replies back in request order (router.hpp).

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "engine/routing/router.hpp"
#include "engine/routing/split_state.hpp"
#include "engine/stats/cachedump.hpp"
#include "engine/stats/numbers.hpp"
#include "engine/stats/render.hpp"

namespace gpuhash::server::engine {

namespace {

/// Takes the replies of the group's routes from its parts' segments, in
/// order, as far as the parts have answered.
class reassembly {
 public:
  reassembly(request_group& group, std::size_t shards, const server_stats& server)
      : split_(*group.split), out_(group.replies), shards_(shards), server_(server) {}

  /// Takes the replies of `request`'s route; false if its parts have not
  /// all answered.
  bool take(const request_group::split_state::request_route& how,
            const protocol::request& request) {
    switch (how.kind) {
      case route_kind::one:
        if (!split_.has_segment(how.shard)) return false;
        out_.append(split_.take_segment(how.shard));
        return true;
      case route_kind::keys: return take_keys(how);
      case route_kind::every_dump: return take_dump(how);
      case route_kind::every_keys: return take_dumped_keys(how);
      case route_kind::every_stats: return take_stats(how, request);
      case route_kind::every_cachedump: return take_cachedump(how, request);
      case route_kind::every: return take_first(how);
    }
    return false;
  }

 private:
  template <class Action>
  void each_shard(std::uint64_t mask, Action&& action) {
    for (std::size_t s = 0; s < shards_; ++s)
      if ((mask >> s & 1) != 0) action(s);
  }
  bool all_have(std::uint64_t mask, std::size_t count) {
    bool ready = true;
    each_shard(mask, [&](std::size_t s) { ready = ready && split_.has_segment(s, count); });
    return ready;
  }

  /// Each key's VALUE (or nothing) from its shard, in the keys' order: the
  /// segments of a run of keys of one shard are taken at once.
  bool take_keys(const request_group::split_state::request_route& how) {
    const std::uint8_t* shards = split_.key_shards.data() + split_.key_base;
    while (split_.key < how.keys) {
      const std::size_t s = shards[split_.key];
      const std::size_t most =
          std::min<std::size_t>(how.keys - split_.key, split_.segments_left(s));
      std::size_t run = 0;
      while (run < most && shards[split_.key + run] == s) ++run;
      if (run == 0) return false;
      out_.append(split_.take_segment(s, run));
      split_.key += run;
    }
    if (!all_have(how.shards, 1)) return false;
    each_shard(how.shards, [&](std::size_t s) { split_.take_segment(s); });  // their END
    out_.append("END\r\n");
    split_.key_base += how.keys;
    split_.key = 0;
    return true;
  }

  /// Each shard's dump comes in pieces (a piece a batch, within the part's
  /// budget), the last one ending in END: they are passed on as they come,
  /// in any order (a dump has none), and one END closes them.
  bool take_dump(const request_group::split_state::request_route& how) {
    each_shard(how.shards, [&](std::size_t s) {
      const std::uint64_t bit = std::uint64_t{1} << s;
      while ((split_.dumps_done & bit) == 0 && split_.has_segment(s)) {
        std::string_view lines = split_.take_segment(s);
        if (lines.ends_with("END\r\n")) {  // the shard's last piece
          lines.remove_suffix(5);
          split_.dumps_done |= bit;
        }
        out_.append(lines);
      }
    });
    if ((split_.dumps_done & how.shards) != how.shards) return false;
    split_.dumps_done = 0;
    out_.append("END\r\n");
    return true;
  }

  /// Every shard looked each key up: a key's line comes from its shard.
  bool take_dumped_keys(const request_group::split_state::request_route& how) {
    if (!all_have(how.shards, how.keys + 1)) return false;
    for (std::size_t k = 0; k < how.keys; ++k)
      each_shard(how.shards, [&](std::size_t s) { out_.append(split_.take_segment(s)); });
    each_shard(how.shards, [&](std::size_t s) { split_.take_segment(s); });
    out_.append("END\r\n");
    return true;
  }

  /// The shards' numbers, merged, rendered once.
  bool take_stats(const request_group::split_state::request_route& how,
                  const protocol::request& request) {
    if (!all_have(how.shards, 1)) return false;
    shard_numbers merged;
    bool first = true;
    each_shard(how.shards, [&](std::size_t s) {
      split_.take_segment(s);  // empty: the numbers stand for it
      const shard_numbers& each = split_.take_numbers(s);
      if (first) {
        merged = each;
      } else {
        merged.merge(each);
      }
      first = false;
    });
    render_numbers(request.argument, merged, server_, out_);
    return true;
  }

  /// The shards' items of the class, merged, rendered once.
  bool take_cachedump(const request_group::split_state::request_route& how,
                      const protocol::request& request) {
    if (!all_have(how.shards, 1)) return false;
    std::vector<dumped_item> merged;
    each_shard(how.shards, [&](std::size_t s) {
      split_.take_segment(s);  // empty: the items stand for it
      std::vector<dumped_item>& each = split_.take_dump(s);
      std::ranges::move(each, std::back_inserter(merged));
    });
    render_cachedump(std::move(merged), request.dump_limit, out_);
    return true;
  }

  /// Every shard ran it alike; the first shard's reply is the reply.
  bool take_first(const request_group::split_state::request_route& how) {
    if (!all_have(how.shards, 1)) return false;
    bool first = true;
    each_shard(how.shards, [&](std::size_t s) {
      const std::string_view reply = split_.take_segment(s);
      if (first) out_.append(reply);
      first = false;
    });
    return true;
  }

  request_group::split_state& split_;
  std::string& out_;
  std::size_t shards_;
  const server_stats& server_;
};

}  // namespace

void router::assemble(request_group& group, const server_stats& server) const {
  request_group::split_state& split = *group.split;
  if (split.failed.exchange(false)) {
    group.replies.assign("SERVER_ERROR out of memory\r\n");
    group.close_after = true;
    group.done = group.used;
    split.active = false;
    return;
  }
  reassembly taking(group, shards_, server);
  for (; split.next_route < split.routes.size(); ++split.next_route) {
    const protocol::request& request = group.items[split.first_item + split.next_route].request;
    if (!taking.take(split.routes[split.next_route], request)) break;
  }
  const auto each_part = [&](auto&& action) {
    for (std::size_t s = 0; s < shards_; ++s)
      if ((split.involved >> s & 1) != 0) action(*split.parts[s]);
  };
  each_part([&](const request_group& part) {
    group.close_after = group.close_after || part.close_after;
    // a part holds its share of the budget: the group needs that many shares
    group.room_wanted = std::max(group.room_wanted, part.room_wanted * shards_);
  });
  if (split.next_route == split.routes.size()) {
    group.done = group.used;
    split.active = false;
    // a large multi-get's buffers are not kept with the connection
    each_part([](request_group& part) {
      if (part.replies.capacity() > (256u << 10)) part.replies = {};
    });
  } else {
    group.done = split.first_item + split.next_route;  // back unfinished; the parts go on
  }
}

}  // namespace gpuhash::server::engine

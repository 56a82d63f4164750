// Routes request groups to the shards, whose batches run one at a time
// each (shard.hpp: who runs them, and when a batch goes).
//
// A group that names keys of several shards runs in parts, one a shard,
// each a request_group of its own holding that shard's requests (a multi-get
// holds the shard's keys only; `stats` and `flush_all` go to every shard).
// A part marks where each reply ends (request_group::mark: each answered
// request, and each key of a multi-get); when the last part is back,
// assemble() takes the segments in request order. A part stops at its share
// of the reply budget like any group; the group then goes back unfinished
// with what is in order so far, and its unfinished parts run again when the
// client has read it.

#include "engine/engine.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <exception>
#include <map>
#include <random>

#include "engine/core.hpp"
#include "engine/shard.hpp"
#include "gpuhash/hash.hpp"
#include "gpuhash/key_hash.hpp"

namespace gpuhash::server::engine {

namespace {

/// How a request's replies come from the parts of a group in parts.
enum class route_kind : std::uint8_t {
  one,         ///< one shard's (a request for one key, or for none)
  keys,        ///< a multi-get: each key's from its shard, then one END
  every,       ///< every shard runs it; the first shard's reply is the reply
  every_dump,  ///< metadump all: every shard's lines, then one END
  every_keys,  ///< metadump of keys: every shard looks each key up
  every_stats  ///< stats: every shard's numbers, merged
};

/// The shard every `stats` line takes its value from, by name (others sum).
bool same_in_every_shard(std::string_view name) {
  static constexpr std::string_view names[] = {"pid",
                                               "uptime",
                                               "time",
                                               "version",
                                               "pointer_size",
                                               "rusage_user",
                                               "rusage_system",
                                               "max_connections",
                                               "threads",
                                               "curr_connections",
                                               "total_connections",
                                               "rejected_connections",
                                               "bytes_read",
                                               "bytes_written",
                                               "auth_cmds",
                                               "auth_errors",
                                               "ssl_handshake_errors",
                                               "ssl_proto_errors",
                                               "time_since_server_cert_refresh",
                                               "read_buf_bytes",
                                               "read_buf_oom",
                                               "index"};
  for (const std::string_view same : names)
    if (name == same) return true;
  return name.ends_with(":chunk_size") || name.ends_with(":chunks_per_page");
}

/// The size class a `stats items` or `stats slabs` line is about ("items:3:age",
/// "3:chunk_size"), or none: merged lines are ordered by class.
std::size_t class_of(std::string_view name) {
  if (name.starts_with("items:")) name.remove_prefix(6);
  std::size_t number = 0;
  const auto parsed = std::from_chars(name.data(), name.data() + name.size(), number);
  if (parsed.ec != std::errc{} || parsed.ptr == name.data() || *parsed.ptr != ':')
    return static_cast<std::size_t>(-1);
  return number;
}

/// `stats`, `stats items` and `stats slabs` of several shards as one: counts
/// add up, the process's own lines come from the first shard, ages are the
/// oldest, active_slabs counts classes with pages in any shard.
void merge_stats(std::span<const std::string_view> replies, std::string& out) {
  struct line {
    std::string name;
    std::string text;       // the first shard's value
    std::uint64_t sum = 0;  // numbers: their sum (or largest)
    bool number = true;
    std::size_t order = 0;
  };
  std::vector<line> lines;
  std::map<std::string, std::size_t, std::less<>> by_name;
  std::uint64_t weighted_mean_ns = 0;  // index_batch_mean_ns times index_batches, summed
  std::uint64_t shard_batches = 0;     // index_batches of the shard being read
  for (std::string_view reply : replies) {
    while (reply.starts_with("STAT ")) {
      const std::size_t end = reply.find("\r\n");
      const std::string_view stat = reply.substr(5, end - 5);
      reply.remove_prefix(end + 2);
      const std::size_t space = stat.find(' ');
      const std::string_view name = stat.substr(0, space);
      const std::string_view text = space == std::string_view::npos ? "" : stat.substr(space + 1);
      std::uint64_t value = 0;
      const auto parsed = std::from_chars(text.data(), text.data() + text.size(), value);
      const bool number = parsed.ec == std::errc{} && parsed.ptr == text.data() + text.size();
      if (name == "index_batches") shard_batches = value;
      if (name == "index_batch_mean_ns") weighted_mean_ns += value * shard_batches;
      auto found = by_name.find(name);
      if (found == by_name.end()) {
        found = by_name.emplace(std::string(name), lines.size()).first;
        lines.push_back({std::string(name), std::string(text), 0, number, lines.size()});
      }
      line& merged = lines[found->second];
      merged.number = merged.number && number;
      if (name.ends_with(":age") || name == "index_batch_max_operations") {
        merged.sum = std::max(merged.sum, value);
      } else {
        merged.sum += value;
      }
    }
  }
  std::uint64_t batches = 0;
  std::size_t active_slabs = 0;
  for (const line& merged : lines) {
    if (merged.name == "index_batches") batches = merged.sum;
    if (merged.name.ends_with(":chunk_size") && !merged.name.starts_with("items:")) ++active_slabs;
  }
  std::stable_sort(lines.begin(), lines.end(), [](const line& a, const line& b) {
    return class_of(a.name) < class_of(b.name);
  });
  for (const line& merged : lines) {
    out.append("STAT ").append(merged.name).push_back(' ');
    if (merged.name == "active_slabs") {
      out.append(std::to_string(active_slabs));
    } else if (merged.name == "index_batch_mean_ns") {
      out.append(std::to_string(batches == 0 ? 0 : weighted_mean_ns / batches));
    } else if (!merged.number || same_in_every_shard(merged.name)) {
      out.append(merged.text);
    } else {
      out.append(std::to_string(merged.sum));
    }
    out.append("\r\n");
  }
  out.append("END\r\n");
}

}  // namespace

// ---- request groups ------------------------------------------------------------

/// A group's parts and how its replies are put back together (see the top
/// of this file). Kept with the group, for reuse, once it has been in parts.
struct request_group::split_state {
  struct request_route {
    route_kind kind = route_kind::one;
    std::uint32_t shard = 0;   ///< one: the shard
    std::uint32_t keys = 0;    ///< keys, every_keys: the request's keys
    std::uint64_t shards = 0;  ///< keys: the shards its keys are in (a bit each)
  };

  bool active = false;                                ///< the group's requests are in parts now
  std::vector<std::unique_ptr<request_group>> parts;  ///< by shard; null until needed
  std::uint64_t involved = 0;                         ///< shards with a part (a bit each)
  std::vector<request_route> routes;                  ///< per request, from the group's done
  std::vector<std::uint8_t> key_shards;   ///< the shard of each key of the `keys` routes
  std::vector<std::size_t> next_segment;  ///< per shard: its part's next unread segment
  std::atomic<std::size_t> pending{0};    ///< parts not yet back from their batch
  std::atomic<bool> failed{false};        ///< a part's batch failed (out of memory)
  // where assemble() goes on from
  std::size_t first_item = 0;  ///< the group's done when the parts were made
  std::size_t next_route = 0;
  std::size_t key = 0;           ///< of a multi-get answered in part
  std::size_t key_base = 0;      ///< key_shards' index of the route's first key
  std::uint64_t dumps_done = 0;  ///< of a metadump: the shards whose dump has ended

  bool has_segment(std::size_t shard, std::size_t count = 1) const {
    return next_segment[shard] + count <= parts[shard]->segment_ends.size();
  }
  /// The next segment of a part's replies, consumed.
  std::string_view take_segment(std::size_t shard) {
    const request_group& part = *parts[shard];
    const std::size_t index = next_segment[shard]++;
    const std::size_t begin = index == 0 ? 0 : part.segment_ends[index - 1];
    return std::string_view(part.replies).substr(begin, part.segment_ends[index] - begin);
  }
  std::size_t memory_bytes() const noexcept {
    std::size_t bytes = parts.capacity() * sizeof(parts[0]) +
                        routes.capacity() * sizeof(routes[0]) + key_shards.capacity() +
                        next_segment.capacity() * sizeof(std::size_t);
    for (const auto& part : parts)
      if (part) bytes += sizeof(request_group) + part->memory_bytes();
    return bytes;
  }
  /// Drops the segments read from a part, before it runs again.
  void compact(std::size_t shard) {
    request_group& part = *parts[shard];
    const std::size_t read = next_segment[shard];
    if (read == 0) return;
    const std::size_t bytes = part.segment_ends[read - 1];
    part.replies.erase(0, bytes);
    part.segment_ends.erase(part.segment_ends.begin(),
                            part.segment_ends.begin() + static_cast<std::ptrdiff_t>(read));
    for (std::size_t& end : part.segment_ends) end -= bytes;
    next_segment[shard] = 0;
  }
};

request_group::request_group() = default;
request_group::~request_group() = default;

void request_group::reset() {
  used = 0;
  done = 0;
  replies.clear();
  close_after = false;
  room_wanted = 0;
  segment_ends.clear();
  if (split) split->active = false;
}

std::size_t request_group::memory_bytes() const noexcept {
  const std::size_t inline_key = std::string().capacity();  // a decoded key this short is inline
  std::size_t bytes = replies.capacity() + segment_ends.capacity() * sizeof(std::size_t) +
                      items.capacity() * sizeof(work_item);
  for (const work_item& item : items) {
    bytes += item.request.keys.capacity() * sizeof(std::string_view) +
             item.request.meta_flags.capacity() * sizeof(protocol::meta_flag) +
             (item.request.decoded_key.capacity() > inline_key ? item.request.decoded_key.capacity()
                                                               : 0);
  }
  if (split) bytes += split->memory_bytes();
  return bytes;
}

void request_group::release_memory() {
  constexpr std::size_t kept_items = 16;
  std::string().swap(replies);
  std::vector<std::size_t>().swap(segment_ends);
  if (items.size() > kept_items) {
    items.resize(kept_items);
    items.shrink_to_fit();
  }
  for (work_item& item : items) {
    std::vector<std::string_view>().swap(item.request.keys);
    std::vector<protocol::meta_flag>().swap(item.request.meta_flags);
    std::string().swap(item.request.decoded_key);
  }
  if (split && !split->active) split.reset();
}

// ---- the engine ----------------------------------------------------------------

engine::engine(engine_config config, server_stats& stats, completion_handler on_complete)
    : config_(std::move(config)), stats_(stats), on_complete_(std::move(on_complete)) {
  config_.shards = std::clamp<std::size_t>(config_.shards, 1, engine_config::max_shards);
  std::random_device device;
  routing_seed_[0] = (std::uint64_t{device()} << 32) ^ device();
  routing_seed_[1] = (std::uint64_t{device()} << 32) ^ device();
  for (std::size_t s = 0; s < config_.shards; ++s) {
    engine_config own = config_;
    own.shard = s;
    own.memory_limit = config_.memory_limit / config_.shards;
    shards_.push_back(std::make_unique<shard>(*this, std::move(own), stats_));
  }
  inline_ = shards_.front()->runs_inline();
  may_run_on_submitter_ = shards_.front()->may_run_on_submitter();
}

engine::~engine() {
  stop();
}

std::size_t engine::shard_of(std::string_view key) const noexcept {
  const std::uint64_t hash = siphash(siphash_key{routing_seed_[0], routing_seed_[1]}, key);
  return static_cast<std::size_t>(reduce_range(hash, shards_.size()));
}

namespace {

/// route()'s shards of the keys it hashed, for make_parts (per thread: both
/// run on the submitting thread, one right after the other).
std::vector<std::uint8_t>& routed_keys() {
  static thread_local std::vector<std::uint8_t> routed;
  return routed;
}

/// A part's share of its group's reply budget: parts run at once on their
/// shards, so together they gather no more than the group may.
std::size_t part_budget(std::size_t group_budget, std::size_t shards) {
  return std::max<std::size_t>(group_budget / shards, 1);
}

}  // namespace

void engine::submit(std::span<request_group* const> groups) {
  if (groups.empty()) return;
  if (shards_.size() == 1) {
    shards_.front()->submit(groups);
    return;
  }
  std::array<std::vector<request_group*>, engine_config::max_shards> queued;
  for (request_group* group : groups) {
    request_group::split_state* split = group->split.get();
    if (split != nullptr && split->active) {
      // back unfinished: the parts that stopped go on
      std::size_t resumed = 0;
      for (std::size_t s = 0; s < shards_.size(); ++s)
        if ((split->involved >> s & 1) != 0 && !split->parts[s]->finished()) ++resumed;
      split->pending.store(resumed, std::memory_order_relaxed);
      if (resumed == 0) {  // not expected: every part had answered all
        assemble(*group);
        group->completer_idle = false;
        on_complete_(group);
        continue;
      }
      for (std::size_t s = 0; s < shards_.size(); ++s) {
        if ((split->involved >> s & 1) == 0 || split->parts[s]->finished()) continue;
        split->compact(s);
        request_group& part = *split->parts[s];
        part.budget = part_budget(group->budget, shards_.size());
        part.room_wanted = 0;
        queued[s].push_back(&part);
      }
      continue;
    }
    std::size_t to = 0;
    if (route(*group, to)) {
      queued[to].push_back(group);
      continue;
    }
    split = group->split.get();
    for (std::size_t s = 0; s < shards_.size(); ++s)
      if ((split->involved >> s & 1) != 0) queued[s].push_back(split->parts[s].get());
  }
  submit_shards(queued, 0);
}

/// The shards after one that may run its batch on the submitting thread:
/// submitted while that batch waits for its index (or once it needs none),
/// so that where they run here too their round trips overlap instead of
/// following one another. An exception from them is kept for the submitter
/// (as if they had been submitted after the batch) rather than taken for
/// the batch's own failure.
class engine::later_shards final : public batch_side_work {
 public:
  /// `in_wait`: the batch they follow runs inside yet another's round trip.
  later_shards(engine& owner, std::span<std::vector<request_group*>> queued, std::size_t from,
               bool in_wait)
      : owner_(owner), queued_(queued), from_(from), in_wait_(in_wait) {}

  bool step() override {
    submit(true);
    return false;
  }
  void index_answered() override { submit(false); }
  /// Submits them if the batch did not, and passes on their exception.
  void finish() {
    submit(false);
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void submit(bool in_wait) {
    if (submitted_) return;
    submitted_ = true;
    try {
      owner_.submit_shards(queued_, from_, in_wait || in_wait_);
    } catch (...) {
      error_ = std::current_exception();
    }
  }

  engine& owner_;
  std::span<std::vector<request_group*>> queued_;
  std::size_t from_;
  bool in_wait_;
  bool submitted_ = false;
  std::exception_ptr error_;
};

void engine::submit_shards(std::span<std::vector<request_group*>> queued, std::size_t from,
                           bool in_wait) {
  std::size_t s = from;
  while (s < shards_.size() && queued[s].empty()) ++s;
  if (s == shards_.size()) return;
  // Batches on the CPU index gain nothing from overlapping: one after the other.
  if (inline_ || !may_run_on_submitter_) {
    for (; s < shards_.size(); ++s)
      if (!queued[s].empty()) shards_[s]->submit(queued[s]);
    return;
  }
  later_shards rest(*this, queued, s + 1, in_wait);
  shards_[s]->submit(queued[s], &rest, in_wait);
  rest.finish();
}

bool engine::route(request_group& group, std::size_t& to) {
  // The common case first: every key in one shard (a lone get or set). The
  // shards found are kept, in order, for make_parts (a key is hashed once).
  constexpr std::size_t none = static_cast<std::size_t>(-1);
  std::size_t only = none;
  bool several = false;
  std::vector<std::uint8_t>& routed = routed_keys();
  routed.clear();
  const auto see = [&](std::size_t s) {
    routed.push_back(static_cast<std::uint8_t>(s));
    if (only == none) only = s;
    several = several || s != only;
  };
  const auto hash = [&](std::string_view key) { see(shard_of(key)); };
  for (std::size_t i = group.done; i < group.used; ++i) {
    const work_item& item = group.items[i];
    const protocol::request& request = item.request;
    if (item.is_error()) {
      if (item.drops_key) protocol::for_each_item_key(request, 0, hash);
    } else if (protocol::scope_of(request.kind) == protocol::key_scope::every) {
      several = true;
    } else {
      protocol::for_each_item_key(request, i == group.done ? item.keys_done : 0, hash);
    }
  }
  if (!several) {
    to = only == none ? 0 : only;
    return true;
  }
  make_parts(group, routed);
  return false;
}

void engine::make_parts(request_group& group, std::span<const std::uint8_t> routed) {
  if (!group.split) group.split = std::make_unique<request_group::split_state>();
  using request_route = request_group::split_state::request_route;
  // how the replies of a request every shard runs are put together
  const auto every_route = [&](const protocol::request& request) {
    using protocol::command;
    request_route r;
    r.kind = route_kind::every;
    const std::string_view argument = request.argument;
    if (request.kind == command::stats &&
        (argument.empty() || argument == "items" || argument == "slabs"))
      r.kind = route_kind::every_stats;
    if (request.kind == command::lru_crawler_metadump && config_.dumping_enabled) {
      r.kind = argument == "all" ? route_kind::every_dump : route_kind::every_keys;
      if (r.kind == route_kind::every_keys)
        r.keys = static_cast<std::uint32_t>(request.keys.size());
    }
    return r;
  };
  request_group::split_state& split = *group.split;
  const std::size_t shards = shards_.size();
  split.active = true;
  split.involved = 0;
  split.routes.clear();
  split.key_shards.clear();
  split.next_segment.assign(shards, 0);
  split.first_item = group.done;
  split.next_route = split.key = split.key_base = 0;
  split.dumps_done = 0;
  split.parts.resize(shards);
  const std::uint64_t all = shards == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << shards) - 1;

  // First the routes, so that the requests for no key can go with the first
  // shard that has others.
  std::size_t next_routed = 0;  // route() hashed the keys in this order
  const auto routed_shard = [&] { return routed[next_routed++]; };
  constexpr std::uint32_t anywhere = static_cast<std::uint32_t>(-1);
  std::uint32_t first_shard = anywhere;
  for (std::size_t i = group.done; i < group.used; ++i) {
    const work_item& item = group.items[i];
    const protocol::request& request = item.request;
    request_route r;
    r.shard = anywhere;
    const auto one_key = [&](std::string_view) { r.shard = routed_shard(); };
    if (item.is_error()) {
      if (item.drops_key) protocol::for_each_item_key(request, 0, one_key);
    } else {
      switch (protocol::scope_of(request.kind)) {
        case protocol::key_scope::many: {
          const std::size_t first_key = i == group.done ? item.keys_done : 0;
          if (first_key == request.keys.size()) break;  // no key: answered "END" anywhere
          r.kind = route_kind::keys;
          for (std::size_t k = first_key; k < request.keys.size(); ++k) {
            const std::size_t s = routed_shard();
            split.key_shards.push_back(static_cast<std::uint8_t>(s));
            r.shards |= std::uint64_t{1} << s;
            ++r.keys;
          }
          break;
        }
        case protocol::key_scope::one: protocol::for_each_item_key(request, 0, one_key); break;
        case protocol::key_scope::every: r = every_route(request); break;
        case protocol::key_scope::none: break;
      }
    }
    if (r.kind != route_kind::one) r.shards = r.kind == route_kind::keys ? r.shards : all;
    if (r.kind == route_kind::one && r.shard != anywhere && first_shard == anywhere)
      first_shard = r.shard;
    split.routes.push_back(r);
  }
  if (first_shard == anywhere) first_shard = 0;

  // Then each shard's part: its requests, in order.
  const auto part = [&](std::size_t s) -> request_group& {
    std::unique_ptr<request_group>& made = split.parts[s];
    if (!made) made = std::make_unique<request_group>();
    if ((split.involved >> s & 1) == 0) {
      split.involved |= std::uint64_t{1} << s;
      made->reset();
      made->owner = group.owner;
      made->parent = &group;
      made->records_segments = true;
      made->budget = part_budget(group.budget, shards);
    }
    return *made;
  };
  std::size_t key_base = 0;
  for (std::size_t r = 0; r < split.routes.size(); ++r) {
    request_route& how = split.routes[r];
    const std::size_t i = group.done + r;
    if (how.kind == route_kind::one) {
      if (how.shard == anywhere) how.shard = first_shard;
      part(how.shard).next_item() = group.items[i];
      continue;
    }
    for (std::size_t s = 0; s < shards; ++s) {
      if ((how.shards >> s & 1) == 0) continue;
      work_item& copy = part(s).next_item();
      copy = group.items[i];
      if (how.kind != route_kind::keys) continue;
      copy.keys_done = 0;
      copy.request.keys.clear();
      const auto& keys = group.items[i].request.keys;
      for (std::size_t k = 0; k < how.keys; ++k)
        if (split.key_shards[key_base + k] == s)
          copy.request.keys.push_back(keys[keys.size() - how.keys + k]);
    }
    if (how.kind == route_kind::keys) key_base += how.keys;
  }
  std::size_t parts = 0;
  for (std::size_t s = 0; s < shards; ++s) parts += split.involved >> s & 1;
  split.pending.store(parts, std::memory_order_relaxed);
}

void engine::fail(request_group& group) {
  group.done = group.used;
  group.replies.assign("SERVER_ERROR out of memory\r\n");
  group.close_after = true;
  if (group.parent != nullptr) group.parent->split->failed = true;
}

void engine::completed(request_group* group, bool idle) {
  request_group* const whole = group->parent;
  if (whole == nullptr) {
    group->completer_idle = idle;
    on_complete_(group);
    return;
  }
  // The last part back (its batch's writes to the other parts are seen
  // through pending) puts the replies together.
  if (whole->split->pending.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  assemble(*whole);
  whole->completer_idle = idle;
  on_complete_(whole);
}

void engine::assemble(request_group& group) {
  request_group::split_state& split = *group.split;
  std::string& out = group.replies;
  if (split.failed.exchange(false)) {
    out.assign("SERVER_ERROR out of memory\r\n");
    group.close_after = true;
    group.done = group.used;
    split.active = false;
    return;
  }
  const std::size_t shards = shards_.size();
  const auto each_shard = [&](std::uint64_t mask, auto&& action) {
    for (std::size_t s = 0; s < shards; ++s)
      if ((mask >> s & 1) != 0) action(s);
  };
  const auto all_have = [&](std::uint64_t mask, std::size_t count) {
    bool ready = true;
    each_shard(mask, [&](std::size_t s) { ready = ready && split.has_segment(s, count); });
    return ready;
  };
  std::vector<std::string_view> replies;
  for (; split.next_route < split.routes.size(); ++split.next_route) {
    const auto& how = split.routes[split.next_route];
    if (how.kind == route_kind::one) {
      if (!split.has_segment(how.shard)) break;
      out.append(split.take_segment(how.shard));
      continue;
    }
    if (how.kind == route_kind::keys) {
      // each key's VALUE (or nothing) from its shard, in the keys' order
      for (; split.key < how.keys; ++split.key) {
        const std::size_t s = split.key_shards[split.key_base + split.key];
        if (!split.has_segment(s)) break;
        out.append(split.take_segment(s));
      }
      if (split.key < how.keys || !all_have(how.shards, 1)) break;
      each_shard(how.shards, [&](std::size_t s) { split.take_segment(s); });  // their END
      out.append("END\r\n");
      split.key_base += how.keys;
      split.key = 0;
      continue;
    }
    if (how.kind == route_kind::every_dump) {
      // each shard's dump comes in pieces (a piece a batch, within the
      // part's budget), the last one ending in END: they are passed on as
      // they come, in any order (a dump has none), and one END closes them
      each_shard(how.shards, [&](std::size_t s) {
        const std::uint64_t bit = std::uint64_t{1} << s;
        while ((split.dumps_done & bit) == 0 && split.has_segment(s)) {
          std::string_view lines = split.take_segment(s);
          if (lines.ends_with("END\r\n")) {  // the shard's last piece
            lines.remove_suffix(5);
            split.dumps_done |= bit;
          }
          out.append(lines);
        }
      });
      if ((split.dumps_done & how.shards) != how.shards) break;
      split.dumps_done = 0;
      out.append("END\r\n");
      continue;
    }
    const std::size_t count = how.kind == route_kind::every_keys ? how.keys + 1 : 1;
    if (!all_have(how.shards, count)) break;
    switch (how.kind) {
      case route_kind::every_keys:
        for (std::size_t k = 0; k < how.keys; ++k)
          each_shard(how.shards, [&](std::size_t s) { out.append(split.take_segment(s)); });
        each_shard(how.shards, [&](std::size_t s) { split.take_segment(s); });
        out.append("END\r\n");
        break;
      case route_kind::every_stats:
        replies.clear();
        each_shard(how.shards, [&](std::size_t s) { replies.push_back(split.take_segment(s)); });
        if (replies.front().starts_with("STAT ") || replies.front() == "END\r\n") {
          merge_stats(replies, out);
        } else {
          out.append(replies.front());
        }
        break;
      default: {
        bool first = true;
        each_shard(how.shards, [&](std::size_t s) {
          const std::string_view reply = split.take_segment(s);
          if (first) out.append(reply);
          first = false;
        });
        break;
      }
    }
  }
  each_shard(split.involved, [&](std::size_t s) {
    const request_group& part = *split.parts[s];
    group.close_after = group.close_after || part.close_after;
    // a part holds its share of the budget: the group needs that many shares
    group.room_wanted = std::max(group.room_wanted, part.room_wanted * shards);
  });
  if (split.next_route == split.routes.size()) {
    group.done = group.used;
    split.active = false;
    // a large multi-get's buffers are not kept with the connection
    each_shard(split.involved, [&](std::size_t s) {
      if (split.parts[s]->replies.capacity() > (256u << 10)) split.parts[s]->replies = {};
    });
  } else {
    group.done = split.first_item + split.next_route;  // back unfinished; the parts go on
  }
}

std::string engine::index_description() const {
  return shards_.front()->index_description();
}

void engine::stop() {
  for (auto& each : shards_) each->stop();
}

}  // namespace gpuhash::server::engine

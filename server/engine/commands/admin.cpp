// The commands about the whole cache: flush_all, cache_memlimit, lru, stats
// and shutdown.

#include <algorithm>
#include <cstdio>

#include "engine/commands/command_set.hpp"
#include "engine/commands/reply.hpp"
#include "engine/stats/cachedump.hpp"
#include "engine/stats/render.hpp"

namespace gpuhash::server::engine {

void run_flush_all(shard_state& state, const protocol::request& request, std::string& out) {
  ++state.counts.cmd_flush;  // a refused one too, as memcached counts it
  if (!state.settings.flush_enabled) {
    if (!request.noreply) out.append("CLIENT_ERROR flush_all not allowed\r\n");
    return;
  }
  state.items.flush(request.delay);
  if (!request.noreply) out.append("OK\r\n");
}

/// As memcached's process_memlimit_command: the limit of the pages taken
/// from now on (every shard sets the one ledger they share).
void run_cache_memlimit(shard_state& state, const protocol::request& request, std::string& out) {
  std::string_view reply = "OK\r\n";
  if (request.delta < 8) {
    reply = "MEMLIMIT_TOO_SMALL cannot set maxbytes to less than 8m\r\n";
  } else if (request.delta > 1000000000) {
    reply = "MEMLIMIT_ADJUST_FAILED input value is megabytes not bytes\r\n";
  } else {
    state.items.store().ledger().set_memory_limit(static_cast<std::size_t>(request.delta) << 20);
  }
  if (!request.noreply) out.append(reply);
}

/// As memcached's process_lru_command, its arguments checked by the parser:
/// each shard's store takes the change. mode and temp_ttl need the LRU
/// maintainer; without it memcached answers ERROR.
void run_lru(shard_state& state, const protocol::request& request, std::string& out) {
  store::item_store& store = state.items.store();
  store::lru_settings lru = store.lru();
  const protocol::lru_change& change = request.lru;
  using setting = protocol::lru_change::setting;
  if (change.what != setting::tune && !lru.maintainer) {
    if (!request.noreply) out.append("ERROR\r\n");
    return;
  }
  if (change.what == setting::tune) {
    lru.hot_lru_pct = change.hot_lru_pct;
    lru.warm_lru_pct = change.warm_lru_pct;
    lru.hot_max_factor = change.hot_max_factor;
    lru.warm_max_factor = change.warm_max_factor;
  } else if (change.what == setting::mode) {
    lru.segmented = change.segmented;
  } else {
    // a negative ttl turns TEMP off and keeps the last ttl, as memcached's
    lru.temp_lru = change.temporary_ttl >= 0;
    if (lru.temp_lru) lru.temporary_ttl = static_cast<std::uint32_t>(change.temporary_ttl);
  }
  store.set_lru(lru);
  if (!request.noreply) out.append("OK\r\n");
}

namespace {

/// `stats reset`: the counts, not what is current (items, connections).
void reset_counts(shard_state& state) {
  state.counts = {};
  state.batches = {};
  item_counts& counts = state.items.counts();
  counts = item_counts{.index_failovers = counts.index_failovers};
  state.items.class_counts() = {};
  state.items.store().reset_counts();
  state.items.index().reset_counts();
  state.server.connections.reset();
}

/// The sub-statistics of features gpuhash-server does not have, answered as
/// memcached 1.6.18 answers them with the feature off; false for another.
bool answer_feature_off(std::string_view argument, std::string_view subargument, std::string& out) {
  if (argument == "detail") {  // per-prefix statistics are not kept
    if (subargument == "on" || subargument == "off") {
      out.append("OK\r\n");
    } else if (subargument == "dump") {
      out.append("END\r\n");
    } else {
      out.append("CLIENT_ERROR usage: stats detail on|off|dump\r\n");
    }
  } else if (argument == "sizes") {  // no size histogram is kept
    out.append("STAT sizes_status disabled\r\nEND\r\n");
  } else if (argument == "sizes_enable") {
    // memcached's reply to a histogram it cannot enable (without END, as memcached's)
    out.append("STAT sizes_status error\r\nSTAT sizes_error not_supported\r\n");
  } else if (argument == "sizes_disable") {
    out.append("STAT sizes_status disabled\r\n");
  } else if (argument == "extstore") {  // no external storage
    out.append("END\r\n");
  } else {
    return false;
  }
  return true;
}

/// `stats settings`' oldest: memcached's settings.oldest_live, when the last
/// flush_all takes effect on memcached's clock, a second earlier with CAS on;
/// 0 before any flush_all. memcached's clock counts seconds from 60 s
/// (ITEM_UPDATE_INTERVAL) before its uptime's zero, and never reads below 1
/// for a time given; so here it is the uptime plus 60, and oldest agrees
/// with uptime as memcached's does.
std::int64_t oldest_flushed(const shard_state& state) {
  const std::int64_t flushed_at = state.items.flushed_at();
  if (flushed_at == 0) return 0;
  constexpr std::int64_t item_update_interval = 60;
  const std::int64_t clock =
      std::max<std::int64_t>(flushed_at - state.server.started_at + item_update_interval, 1);
  return state.settings.store.cas_enabled ? clock - 1 : clock;
}

/// The `stats settings` lines the `lru` command changes, as the store has
/// them now, in memcached's formats; false for another name.
bool append_lru_setting(std::string_view name, const store::lru_settings& lru, std::string& out) {
  const auto yes_no = [](bool value) { return value ? "yes" : "no"; };
  if (name == "lru_segmented") {
    out.append(yes_no(lru.segmented));
  } else if (name == "hot_lru_pct") {
    append_number(out, lru.hot_lru_pct);
  } else if (name == "warm_lru_pct") {
    append_number(out, lru.warm_lru_pct);
  } else if (name == "hot_max_factor" || name == "warm_max_factor") {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f",
                  name == "hot_max_factor" ? lru.hot_max_factor : lru.warm_max_factor);
    out.append(text);
  } else if (name == "temp_lru") {
    out.append(yes_no(lru.temp_lru));
  } else if (name == "temporary_ttl") {
    append_number(out, lru.temporary_ttl);
  } else {
    return false;
  }
  return true;
}

/// `stats cachedump <class> <limit>`: memcached refuses it under -X before it
/// reads the arguments. A part keeps its items for the engine to merge.
void run_cachedump(shard_state& state, const protocol::request& request, request_group& group) {
  std::string& out = group.replies;
  if (!state.settings.dumping_enabled) {
    out.append("CLIENT_ERROR stats cachedump not allowed\r\n");
    return;
  }
  if (!request.dump_refusal.empty()) {
    out.append(request.dump_refusal);
    return;
  }
  std::vector<dumped_item> dumped = dump_class(state.items, request.dump_class, request.dump_limit);
  if (group.part) {
    group.part->dumps.push_back(std::move(dumped));
  } else {
    render_cachedump(std::move(dumped), request.dump_limit, out);
  }
}

}  // namespace

/// `stats` and its sub-statistics. Those that add up over shards are this
/// shard's numbers: rendered at once in a whole group, kept as numbers in a
/// part of one that runs on several shards, for the engine to merge.
void run_stats(shard_state& state, const protocol::request& request, request_group& group) {
  std::string& out = group.replies;
  const std::string_view argument = request.argument;
  if (adds_up(argument)) {
    shard_numbers numbers = numbers_of(state.items, state.counts, state.batches);
    if (group.part) {
      group.part->numbers.push_back(std::move(numbers));
    } else {
      render_numbers(argument, numbers, state.server, out);
    }
    return;
  }
  if (argument == "reset") {
    reset_counts(state);
    out.append("RESET\r\n");
    return;
  }
  if (answer_feature_off(argument, request.subargument, out)) return;
  if (argument == "cachedump") {
    run_cachedump(state, request, group);
    return;
  }
  if (argument == "settings") {
    for (const auto& [name, value] : state.server.settings) {
      out.append("STAT ").append(name).append(" ");
      if (name == "oldest") {
        append_number(out, oldest_flushed(state));
      } else if (name == "maxbytes") {  // as cache_memlimit last set it
        append_number(out, state.items.store().ledger().memory_limit());
      } else if (!append_lru_setting(name, state.items.store().lru(), out)) {
        out.append(value);  // as at start
      }
      out.append("\r\n");
    }
  } else if (argument == "conns") {
    if (state.server.describe_connections) out.append(state.server.describe_connections());
  } else {
    out.append("ERROR\r\n");
    return;
  }
  out.append("END\r\n");
}

void run_shutdown(shard_state& state, const protocol::request& request, request_group& group) {
  std::string& out = group.replies;
  if (!state.settings.shutdown_enabled) {
    out.append("ERROR: shutdown not enabled\r\n");
    return;
  }
  if (!request.argument.empty() && request.argument != "graceful") {
    out.append("CLIENT_ERROR invalid shutdown mode\r\n");
    return;
  }
  state.shutdown_accepted = true;
  group.close_after = true;
}

}  // namespace gpuhash::server::engine

#pragma once
// memcached's commands, as functions over one shard's state: its cache
// (items and index), its counts and the settings. The batch pipeline
// (engine/batch/) calls run_request for each request of a batch, in order,
// once the batch's finds are answered.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/cache/cache.hpp"
#include "engine/engine_settings.hpp"
#include "engine/request_group.hpp"
#include "engine/stats/numbers.hpp"
#include "engine/stats/server_stats.hpp"

namespace gpuhash::server::engine {

/// One shard, as its commands see it. Only the thread running the shard's
/// batch touches it.
struct shard_state {
  /// `ledger`: the slab accounting all shards share.
  shard_state(const engine_settings& settings, std::size_t shard, server_stats& server,
              std::unique_ptr<index::index_port> index, store::slab_ledger& ledger);

  const engine_settings& settings;
  server_stats& server;
  cache items;
  command_counts counts;
  batch_counts batches;
  bool shutdown_accepted = false;  ///< a client's `shutdown` was accepted
};

/// Runs one request; false when it was answered only in part or not at all
/// (past the reply budget, or a value that does not fit in it: a multi-get's
/// or a metadump's work.resume_at says how far it got; an mg is run again
/// whole). `first_search` is the batch's find for the request's first key.
bool run_request(shard_state& state, work_item& work, std::size_t first_search,
                 request_group& group);
/// Answers a request the parser refused; one refused as too large drops its
/// key's value, as memcached does (`search`: its key's find).
void answer_refusal(shard_state& state, const work_item& work, std::size_t search,
                    request_group& group);

}  // namespace gpuhash::server::engine

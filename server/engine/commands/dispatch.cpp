// Which function runs each command (commands.hpp).

#include "engine/commands/command_set.hpp"
#include "engine/commands/reply.hpp"

namespace gpuhash::server::engine {

namespace {

/// The classic commands that answer whole in one go.
void run_command(shard_state& state, const protocol::request& request, std::size_t search,
                 request_group& group) {
  std::string& out = group.replies;
  const key_ref key{request.item_key(), search};
  using protocol::command;
  switch (request.kind) {
    case command::set:
    case command::add:
    case command::replace:
    case command::append:
    case command::prepend:
    case command::cas: run_storage(state, request, key, out); return;
    case command::delete_: run_delete(state, request, key, out); return;
    case command::incr:
    case command::decr:
      run_arithmetic(state, key, request.kind == command::incr, request.delta, request.noreply,
                     out);
      return;
    case command::touch: run_touch(state, request, key, out); return;
    case command::flush_all: run_flush_all(state, request, out); return;
    case command::version: out.append("VERSION ").append(server_version).append("\r\n"); return;
    case command::verbosity:
      if (!request.noreply) out.append("OK\r\n");
      return;
    case command::stats: run_stats(state, request, group); return;
    case command::quit: group.close_after = true; return;
    case command::shutdown: run_shutdown(state, request, group); return;
    case command::cache_memlimit: run_cache_memlimit(state, request, out); return;
    case command::lru: run_lru(state, request, out); return;
    default: return;  // run_request's
  }
}

}  // namespace

shard_state::shard_state(const engine_settings& shared, std::size_t shard, server_stats& stats,
                         std::unique_ptr<index::index_port> index, store::slab_ledger& ledger)
    : settings(shared),
      server(stats),
      items(ledger, std::move(index), cas_sequence{shard, shared.shards},
            key_hasher(shared.key_hash_key)) {}

bool run_request(shard_state& state, work_item& work, std::size_t first_search,
                 request_group& group) {
  const protocol::request& request = work.request;
  using protocol::command;
  switch (request.kind) {
    case command::get:
    case command::gets:
    case command::gat:
    case command::gats: return run_retrieval(state, work, first_search, group);
    case command::lru_crawler_metadump: return run_metadump(state, work, first_search, group);
    case command::meta_get:
    case command::meta_set:
    case command::meta_delete:
    case command::meta_arithmetic:
    case command::meta_noop:
    case command::meta_debug: return run_meta(state, request, first_search, group);
    default: run_command(state, request, first_search, group); return true;
  }
}

void answer_refusal(shard_state& state, const work_item& work, std::size_t search,
                    request_group& group) {
  // a set (or ms) refused as too large drops the key's old value, as
  // memcached does; the batch found the key if it could decode it
  const std::string_view key = work.request.item_key();
  if (work.drops_key && !key.empty()) {
    const location old = state.items.find_item(key, search);
    if (old != store::no_location) state.items.unlink(old);
  }
  if (work.error_reply.starts_with("SERVER_ERROR object too large"))
    ++state.items.counts().store_too_large;
  if (!work.silent) group.replies.append(work.error_reply);
}

}  // namespace gpuhash::server::engine

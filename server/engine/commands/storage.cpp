// memcached's classic storage commands (set add replace append prepend cas),
// delete and touch.

#include "engine/commands/command_set.hpp"

namespace gpuhash::server::engine {

namespace {

store_mode mode_of(protocol::command kind) {
  using protocol::command;
  switch (kind) {
    case command::add: return store_mode::add;
    case command::replace: return store_mode::replace;
    case command::append: return store_mode::append;
    case command::prepend: return store_mode::prepend;
    case command::cas: return store_mode::cas;
    default: return store_mode::set;
  }
}

}  // namespace

std::string_view reply_of(store_result result) {
  switch (result) {
    case store_result::stored: return "STORED\r\n";
    case store_result::not_stored: return "NOT_STORED\r\n";
    case store_result::exists: return "EXISTS\r\n";
    case store_result::not_found: return "NOT_FOUND\r\n";
    case store_result::too_large: return "SERVER_ERROR object too large for cache\r\n";
    case store_result::no_memory: return "SERVER_ERROR out of memory storing object\r\n";
    case store_result::no_memory_reading: return "SERVER_ERROR Out of memory during read\r\n";
  }
  return "SERVER_ERROR internal\r\n";
}

void count_compare_and_swap(shard_state& state, store_result result, std::size_t old_class) {
  if (result == store_result::stored) {
    ++state.counts.cas_hits;
    count_in_class(state, old_class, &class_command_counts::cas_hits);
  } else if (result == store_result::exists) {
    ++state.counts.cas_badval;
    count_in_class(state, old_class, &class_command_counts::cas_badval);
  } else if (result == store_result::not_found) {
    ++state.counts.cas_misses;
  }
}

void run_storage(shard_state& state, const protocol::request& request, key_ref key,
                 std::string& out) {
  cache& items = state.items;
  ++state.counts.cmd_set;
  count_in_class(state, class_of_store(state, key.key, request.data, request.client_flags),
                 &class_command_counts::cmd_set);
  const location existing = items.find_item(key.key, key.search);
  const store_mode mode = mode_of(request.kind);
  // a compare-and-swap counts in its old item's class
  const std::size_t old_class = existing == store::no_location ? 0 : items.at(existing).size_class;
  const store_result result =
      items.store_value(key, existing, request.data, request.client_flags,
                        items.expiry_of(request.exptime), mode, request.cas_unique, nullptr);
  if (mode == store_mode::cas) count_compare_and_swap(state, result, old_class);
  // noreply silences the errors too, as in memcached: a client that asked
  // for no reply reads none, so an error line would put it out of step
  if (!request.noreply) out.append(reply_of(result));
}

void run_delete(shard_state& state, const protocol::request& request, key_ref key,
                std::string& out) {
  const location where = state.items.find_item(key.key, key.search);
  if (where != store::no_location) {
    count_in_class(state, state.items.at(where).size_class, &class_command_counts::delete_hits);
    state.items.unlink(where);
    ++state.counts.delete_hits;
  } else {
    ++state.counts.delete_misses;
  }
  if (!request.noreply) out.append(where != store::no_location ? "DELETED\r\n" : "NOT_FOUND\r\n");
}

void run_touch(shard_state& state, const protocol::request& request, key_ref key,
               std::string& out) {
  cache& items = state.items;
  ++state.counts.cmd_touch;
  const location where = items.find_item(key.key, key.search);
  if (where != store::no_location) {
    store::item& item = items.at(where);
    item.expires_at = items.expiry_of(request.exptime);
    items.bump(where);
    ++state.counts.touch_hits;
    count_in_class(state, item.size_class, &class_command_counts::touch_hits);
  } else {
    ++state.counts.touch_misses;
  }
  if (!request.noreply) out.append(where != store::no_location ? "TOUCHED\r\n" : "NOT_FOUND\r\n");
}

}  // namespace gpuhash::server::engine

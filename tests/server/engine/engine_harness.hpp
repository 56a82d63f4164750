#pragma once
// Drives an engine as the network layer does: text is parsed into request
// groups with protocol::parse_request, the groups are submitted, and the
// completion handler (on the batch thread) hands them back. The harness also
// tells which groups one batch answered, and can hold the batch thread so
// that groups submitted meanwhile all land in the next batch.

#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/engine.hpp"
#include "index_doubles.hpp"
#include "protocol/request.hpp"

namespace gpuhash::server::engine::testing {

/// A fixed seed of the key hash and the index, so that tests can build keys
/// that share a signature (signature_index<>{test_seed}.signature hashes a
/// key as the engine's key hash does under it: engine/key_hash.hpp).
inline constexpr std::uint64_t test_seed = 0x5eed;

/// The settings with the key hash under test_seed, unless a test chose.
inline engine_settings with_test_seed(engine_settings settings) {
  if (!settings.key_seed) settings.key_seed = test_seed;
  return settings;
}

/// An engine as a test sets it up: its settings, and its index.
struct harness_config : engine_settings {
  /// The CPU index gives the statuses of inserts and erases one batch late,
  /// as the GPU's does (index_doubles.hpp).
  bool statuses_late = false;
  /// Each shard's index; none: on the CPU under test_seed, its statuses as
  /// statuses_late says.
  index::index_factory index;
};

/// The engine with the index on the CPU, a fixed seed, and a batch thread:
/// the harness decides which groups share a batch by holding that thread
/// (engine_test.cpp tests batches on the submitting threads apart).
inline harness_config cpu_config() {
  harness_config config;
  config.runner = batch_runner::batch_thread;
  return config;
}

/// One connection's requests, parsed from text that stays here (the requests'
/// views point into it), with the replies once the engine hands it back.
class parsed_group {
 public:
  parsed_group(std::string text, std::size_t item_size_max) : text_(std::move(text)) {
    group.owner = this;
    parse(item_size_max);
  }

  /// The group, which knows its parsed_group (the engine hands back the
  /// group alone).
  struct owned_group : request_group {
    parsed_group* owner = nullptr;
  };
  parsed_group(const parsed_group&) = delete;
  parsed_group& operator=(const parsed_group&) = delete;

  const std::string& text() const noexcept { return text_; }
  const std::string& replies() const noexcept { return group.replies; }

  owned_group group;
  // Written under the harness's mutex:
  bool done = false;
  std::size_t batch = 0;            ///< ordinal of the batch that answered it (from 1)
  std::size_t submitted = 0;        ///< ordinal of its submission (from 1)
  parsed_group* next = nullptr;     ///< submitted by the batch thread when this one is done
  bool holds_batch_thread = false;  ///< its completion waits for release()
  bool completer_idle = false;      ///< it came back from an idle thread (engine::completer)
  std::size_t completion = 0;       ///< ordinal of its completion (from 1)

 private:
  /// As the network layer's parse_and_submit: an error is answered in order,
  /// and a set refused as too large drops the key's old value.
  void parse(std::size_t item_size_max) {
    const protocol::parser_limits limits{.item_size_max = item_size_max};
    const std::string_view input = text_;
    std::size_t position = 0;
    while (position < input.size()) {
      work_item& item = group.next_item();
      const protocol::parse_result result =
          protocol::parse_request(input.substr(position), limits, item.request);
      if (result.outcome == protocol::parse_outcome::need_more) {
        ADD_FAILURE() << "incomplete request in the test's text: " << input.substr(position);
        --group.used;
        return;
      }
      if (result.outcome == protocol::parse_outcome::error) {
        item.error_reply = result.error_reply;
        item.silent = result.silent;
        item.drops_key = item.request.kind == protocol::command::set &&
                         result.error_reply == "SERVER_ERROR object too large for cache\r\n" &&
                         protocol::valid_key(item.request.key, limits);
        if (result.close_connection) {
          group.close_after = true;
          return;
        }
      }
      position += std::min(result.consumed, input.size() - position);
    }
  }

  std::string text_;
};

class engine_harness {
 public:
  explicit engine_harness(harness_config config = cpu_config())
      : item_size_max_(config.store.item_size_max),
        one_shard_(config.shards <= 1),
        engine_(with_test_seed(config), stats_,
                config.index
                    ? config.index
                    : index::test_doubles::cpu_index_factory(test_seed, config.statuses_late),
                [this](request_group& group, completer by) { completed(group, by); }) {}

  ~engine_harness() {
    {
      std::lock_guard lock(mutex_);
      released_ = true;  // a test that stopped between hold() and release()
    }
    changed_.notify_all();
    engine_.stop();
  }

  std::unique_ptr<parsed_group> parse(std::string text) const {
    return std::make_unique<parsed_group>(std::move(text), item_size_max_);
  }

  void submit(parsed_group& parsed) {
    std::unique_lock lock(mutex_);
    if (!engine_.may_run_on_submitter()) {
      submit_locked(parsed);
      return;
    }
    // Batches on the submitting thread: the engine may call completed() on
    // this thread before submit returns, so it is not called under mutex_
    // (hold() and the queue's submission order need the batch thread).
    prepare(parsed);
    lock.unlock();
    request_group* const group = &parsed.group;
    engine_.submit({&group, 1});
  }

  /// Whether the engine runs batches on the submitting threads.
  bool runs_inline() const noexcept { return engine_.runs_inline(); }
  /// Whether it may run one there (engine::may_run_on_submitter).
  bool may_run_on_submitter() const noexcept { return engine_.may_run_on_submitter(); }

  void wait(parsed_group& parsed) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return parsed.done; });
  }

  /// Runs the text as one group and returns its replies.
  std::string run(std::string text) {
    const auto parsed = parse(std::move(text));
    submit(*parsed);
    wait(*parsed);
    return parsed->replies();
  }

  /// Runs the texts as groups of one batch, in order; returns their replies.
  std::vector<std::string> run_together(const std::vector<std::string>& texts) {
    std::vector<std::unique_ptr<parsed_group>> groups;
    for (const std::string& text : texts) groups.push_back(parse(text));
    hold();
    for (auto& parsed : groups) submit(*parsed);
    release();
    std::vector<std::string> replies;
    for (auto& parsed : groups) {
      wait(*parsed);
      EXPECT_EQ(parsed->batch, groups.front()->batch) << "not one batch: " << parsed->text();
      replies.push_back(parsed->replies());
    }
    return replies;
  }

  /// Holds the batch thread (in a completion handler) until release(): the
  /// groups submitted meanwhile are all taken by the next batch.
  void hold() {
    gate_ = parse("mn\r\n");
    gate_->holds_batch_thread = true;
    std::unique_lock lock(mutex_);
    held_ = false;
    released_ = false;
    submit_locked(*gate_);
    changed_.wait(lock, [&] { return held_; });
  }

  void release() {
    {
      std::lock_guard lock(mutex_);
      released_ = true;
    }
    changed_.notify_all();
  }

  /// `stats` as name -> value; every line must read "STAT <name> <value>\r\n".
  std::map<std::string, std::string> stats() {
    const std::string text = run("stats\r\n");
    std::map<std::string, std::string> values;
    std::string_view rest = text;
    while (rest.starts_with("STAT ")) {
      const std::size_t end = rest.find("\r\n");
      if (end == std::string_view::npos) break;
      const std::string_view line = rest.substr(5, end - 5);
      const std::size_t space = line.find(' ');
      EXPECT_NE(space, std::string_view::npos) << "stats line without a value: " << line;
      values[std::string(line.substr(0, space))] = std::string(line.substr(space + 1));
      rest.remove_prefix(end + 2);
    }
    EXPECT_EQ(rest, "END\r\n") << "stats reply ends badly";
    return values;
  }

  /// One numeric `stats` line.
  std::uint64_t stat(const std::string& name) {
    const auto values = stats();
    const auto found = values.find(name);
    if (found == values.end()) {
      ADD_FAILURE() << "no stats line " << name;
      return 0;
    }
    return std::stoull(found->second);
  }

  /// Index entries are exactly the linked items, once the inserts and
  /// erases left by the last batch have run and been counted. A batch with
  /// no index work (`stats` alone) does neither, and an index that gives
  /// its statuses late (the GPU's) counts a batch's entries at the next
  /// batch: so first two multi-gets of keys that are not stored, with keys
  /// enough that every shard has a part of each.
  void expect_index_matches_items() {
    std::string missing = "get";
    for (int k = 0; k < 64; ++k) missing += " never-stored:" + std::to_string(k);
    for (int round = 0; round < 2; ++round) EXPECT_EQ(run(missing + "\r\n"), "END\r\n");
    const auto values = stats();
    EXPECT_EQ(values.at("index_erase_misses"), "0");
    EXPECT_EQ(values.at("index_overflow"), "0");
    EXPECT_EQ(values.at("index_entries"), values.at("curr_items"));
  }

  /// Batches that answered groups so far.
  std::size_t batches_seen() {
    std::lock_guard lock(mutex_);
    return batches_seen_;
  }

 private:
  void prepare(parsed_group& parsed) {
    parsed.group.replies.clear();  // not reset(): that drops the parsed requests
    parsed.done = false;
    parsed.batch = 0;
    parsed.submitted = ++submissions_;
    waiting_.insert(&parsed);
  }

  void submit_locked(parsed_group& parsed) {
    prepare(parsed);
    // under mutex_, so that the engine's queue order is the submission order
    // (with batches on the submitting thread, completed() calls this from
    // inside a batch, and the engine only queues the group)
    request_group* const group = &parsed.group;
    engine_.submit({&group, 1});
  }

  /// On the thread that ran the batch. The groups of one batch are completed one after
  /// another once all of them have their replies, while the groups of later
  /// batches still have none: the first completion of a batch finds the
  /// batch's groups by their replies (so a group that answers nothing at all
  /// counts as a batch of its own).
  void completed(request_group& group, completer by) {
    auto& parsed = *static_cast<parsed_group::owned_group&>(group).owner;
    std::unique_lock lock(mutex_);
    if (parsed.batch == 0) {
      ++batches_seen_;
      // (with several shards, other shards' batches may be writing the
      // other groups' replies now: batches are told apart with one only)
      if (one_shard_)
        for (parsed_group* other : waiting_)
          if (other->batch == 0 && !other->group.replies.empty()) other->batch = batches_seen_;
      parsed.batch = batches_seen_;
    }
    waiting_.erase(&parsed);
    parsed.completer_idle = by == completer::idle;
    parsed.completion = ++completions_;
    parsed.done = true;
    if (parsed.next != nullptr) submit_locked(*parsed.next);
    if (parsed.holds_batch_thread) {
      held_ = true;
      changed_.notify_all();
      changed_.wait(lock, [&] { return released_; });
    }
    changed_.notify_all();
  }

  std::size_t item_size_max_;
  bool one_shard_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::set<parsed_group*> waiting_;
  std::size_t submissions_ = 0;
  std::size_t batches_seen_ = 0;
  std::size_t completions_ = 0;
  std::unique_ptr<parsed_group> gate_;
  bool held_ = false;
  bool released_ = false;
  server_stats stats_;
  engine engine_;  // last: stopped and destroyed before what its handler uses
};

/// A storage command's text: "<verb> <key> <flags> <exptime> <bytes>\r\n<value>\r\n".
inline std::string store_text(std::string_view verb, std::string_view key, std::string_view value,
                              std::uint32_t flags = 0, std::int64_t exptime = 0) {
  return std::string(verb) + " " + std::string(key) + " " + std::to_string(flags) + " " +
         std::to_string(exptime) + " " + std::to_string(value.size()) + "\r\n" +
         std::string(value) + "\r\n";
}

/// `get`'s reply for one key holding `value`.
inline std::string value_reply(std::string_view key, std::string_view value,
                               std::uint32_t flags = 0) {
  return "VALUE " + std::string(key) + " " + std::to_string(flags) + " " +
         std::to_string(value.size()) + "\r\n" + std::string(value) + "\r\nEND\r\n";
}

/// `get`'s reply for several keys holding values (flags 0), in order.
inline std::string values_reply(const std::vector<std::pair<std::string, std::string>>& items) {
  std::string reply;
  for (const auto& [key, value] : items)
    reply += "VALUE " + key + " 0 " + std::to_string(value.size()) + "\r\n" + value + "\r\n";
  return reply + "END\r\n";
}

/// Test data: the n-th key and a value that tells which n it belongs to.
inline std::string key_of(std::size_t n) {
  return "k" + std::to_string(n);
}
inline std::string value_of(std::size_t n) {
  return "value-" + std::to_string(n * 7919);
}

/// One round of sets, a delete and a get against `model`, each reply checked
/// against it: sets of the keys of n in [first, first + count) (a key of n,
/// or, for every third n past `reuse_gap`, the key of n - reuse_gap again
/// with another value), then `delete gone` if given, then one get of every
/// key the model holds. Call it under ASSERT_NO_FATAL_FAILURE.
inline void churn_round(engine_harness& harness, std::map<std::string, std::string>& model,
                        std::size_t first, std::size_t count, std::size_t reuse_gap,
                        const std::optional<std::string>& gone) {
  std::string text;
  std::string expected;
  for (std::size_t n = first; n < first + count; ++n) {
    const std::size_t key = n % 3 == 2 && n > reuse_gap ? n - reuse_gap : n;
    text += store_text("set", key_of(key), value_of(n));
    expected += "STORED\r\n";
    model[key_of(key)] = value_of(n);
  }
  if (gone) {
    text += "delete " + *gone + "\r\n";
    expected += model.erase(*gone) != 0 ? "DELETED\r\n" : "NOT_FOUND\r\n";
  }
  ASSERT_EQ(harness.run(text), expected);
  std::string get = "get";
  std::vector<std::pair<std::string, std::string>> items;
  for (const auto& [key, value] : model) {
    get += " " + key;
    items.emplace_back(key, value);
  }
  ASSERT_EQ(harness.run(get + "\r\n"), values_reply(items));
}

}  // namespace gpuhash::server::engine::testing

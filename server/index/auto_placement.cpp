// --index=auto for one shard's index port (auto_placement.hpp).

#include "index/auto_placement.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

namespace gpuhash::server::index {

namespace {

std::uint64_t rounded(double value) {
  return value <= 0 ? 0 : static_cast<std::uint64_t>(std::llround(value));
}

const char* where(index_site site) {
  return site == index_site::gpu ? "the GPU" : "the CPU";
}

}  // namespace

auto_placement::auto_placement(std::unique_ptr<placement_policy> policy, index_site start,
                               bool log_moves, std::size_t shard)
    : policy_(std::move(policy)), site_(start), log_moves_(log_moves), shard_(shard) {
  epoch_ = clock_type::now();
  start_window(epoch_);
}

std::uint64_t auto_placement::ns_since(clock_type::time_point then,
                                       clock_type::time_point now) const noexcept {
  if (now <= then) return 0;
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(now - then).count());
}

void auto_placement::start_window(clock_type::time_point now) noexcept {
  window_start_ = now;
  window_ = {};
}

std::optional<index_site> auto_placement::wanted_move(std::size_t entries,
                                                      clock_type::time_point now) {
  const std::uint64_t wall_ns = ns_since(window_start_, now);
  if (wall_ns < policy_->window_ns()) return std::nullopt;
  window_.wall_ns = wall_ns;
  window_.entries = entries;
  const placement_decision decision = policy_->judge(window_, ns_since(epoch_, now));
  start_window(now);
  if (!decision.judged()) return std::nullopt;
  last_ = decision;
  numbers_.windows += 1;
  numbers_.cpu_ns_per_s = rounded(decision.cpu_ns_per_s);
  numbers_.gpu_ns_per_s = rounded(decision.gpu_ns_per_s);
  numbers_.keys = decision.keys;
  numbers_.batches = decision.batches;
  numbers_.cpu_ns_per_key = rounded(decision.cpu_ns_per_key);
  numbers_.gpu_ns_per_batch = rounded(decision.gpu_ns_per_batch);
  numbers_.judged = 1;
  if (decision.what != placement_decision::verdict::move) return std::nullopt;
  return site_ == index_site::cpu ? index_site::gpu : index_site::cpu;
}

void auto_placement::moved(index_site to, clock_type::time_point now, bool device_failed) {
  if (device_failed) {
    policy_->device_lost();
  } else {
    ++(to == index_site::gpu ? numbers_.moves_to_gpu : numbers_.moves_to_cpu);
    if (log_moves_)
      std::fprintf(stderr, "gpuhash-server: --index=auto: shard %zu's index moves to %s: %s\n",
                   shard_, where(to), last_.explain().c_str());
  }
  site_ = to;
  policy_->moved(to, ns_since(epoch_, now));
  start_window(now);
}

void auto_placement::move_failed(clock_type::time_point now) {
  policy_->device_lost();
  start_window(now);
}

}  // namespace gpuhash::server::index

// --index=auto's rule (placement_rule.hpp).

#include "index/placement_rule.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpuhash::server::index {

namespace {

constexpr double ns_per_s = 1e9;

/// ns of a core per second of a window of `wall_ns`.
double per_second(double ns, std::uint64_t wall_ns) {
  return wall_ns == 0 ? 0 : ns * ns_per_s / static_cast<double>(wall_ns);
}

}  // namespace

const char* site_name(index_site site) noexcept {
  return site == index_site::gpu ? "gpu" : "cpu";
}

// ---- the CPU index's cost of a key, by size ---------------------------------------

void key_cost_curve::add(std::size_t entries, double ns_per_key) {
  points_.emplace_back(std::max<std::size_t>(entries, 1), ns_per_key);
}

double key_cost_curve::at(std::size_t entries) const noexcept {
  if (points_.empty()) return 0;
  if (entries <= points_.front().first) return points_.front().second;
  if (entries >= points_.back().first) return points_.back().second;
  const auto above =
      std::ranges::find_if(points_, [&](const auto& point) { return point.first >= entries; });
  const auto below = above - 1;
  const double low = std::log2(static_cast<double>(below->first));
  const double high = std::log2(static_cast<double>(above->first));
  const double at = std::log2(static_cast<double>(entries));
  const double t = high > low ? (at - low) / (high - low) : 1.0;
  return below->second + t * (above->second - below->second);
}

// ---- a decision, told ----------------------------------------------------------------

std::string placement_decision::explain() const {
  char text[256];
  const double cpu_ms = cpu_ns_per_s / 1e6;
  const double gpu_ms = gpu_ns_per_s / 1e6;
  const double gpu_us = gpu_ns_per_batch / 1e3;
  if (site == index_site::gpu) {
    std::snprintf(text, sizeof text,
                  "the GPU index polls %.1f ms a second (%.1f us a batch of %.1f keys); the "
                  "CPU index would take %.1f ms a second (%.0f ns a key)",
                  gpu_ms, gpu_us, keys_per_batch, cpu_ms, cpu_ns_per_key);
  } else {
    std::snprintf(text, sizeof text,
                  "the CPU index takes %.1f ms a second (%.0f ns a key, %.1f keys a batch); the "
                  "GPU index would poll %.1f ms a second (%.1f us a batch)",
                  cpu_ms, cpu_ns_per_key, keys_per_batch, gpu_ms, gpu_us);
  }
  return text;
}

// ---- the rule -------------------------------------------------------------------------

placement_rule::placement_rule(placement_rule_settings settings, key_cost_curve key_cost,
                               index_site start)
    : settings_(settings),
      key_cost_(std::move(key_cost)),
      site_(start),
      dwell_ns_(settings.dwell_ns) {}

double placement_rule::cpu_ns_per_key(std::size_t entries) const noexcept {
  if (measured_ns_per_key_ <= 0) return key_cost_.at(entries);
  // The level is the shard's own (its table, its caches, the other shards
  // beside it); the calibrated curve says how it changes with the size.
  const double then = key_cost_.at(measured_at_entries_);
  if (then <= 0) return measured_ns_per_key_;
  return measured_ns_per_key_ * key_cost_.at(entries) / then;
}

placement_decision placement_rule::costs_on_cpu(const load_window& window) {
  placement_decision decision;
  decision.site = index_site::cpu;
  if (window.keys != 0) {
    measured_ns_per_key_ = static_cast<double>(window.index_ns) / static_cast<double>(window.keys);
    measured_at_entries_ = window.entries;
  }
  decision.cpu_ns_per_key = measured_ns_per_key_;
  decision.cpu_ns_per_s = per_second(static_cast<double>(window.index_ns), window.wall_ns);
  decision.gpu_ns_per_batch = gpu_ns_per_batch_;
  if (gpu_ns_per_batch_ > 0 && device_usable_) {
    // On the GPU each group would cost at most one batch's polls (a batch
    // takes one group at least), and the batch thread could poll no longer
    // than the batches' own work leaves it (the work is the same there).
    const std::uint64_t work = window.busy_ns - std::min(window.busy_ns, window.index_ns);
    const double room = static_cast<double>(window.wall_ns - std::min(window.wall_ns, work));
    const double polls = std::min(static_cast<double>(window.groups) * gpu_ns_per_batch_, room);
    decision.gpu_ns_per_s = per_second(polls, window.wall_ns);
  }
  return decision;
}

placement_decision placement_rule::costs_on_gpu(const load_window& window) {
  placement_decision decision;
  decision.site = index_site::gpu;
  const double polls = static_cast<double>(window.index_ns + window.poll_ns);
  gpu_ns_per_batch_ = polls / static_cast<double>(window.batches);
  decision.gpu_ns_per_batch = gpu_ns_per_batch_;
  decision.gpu_ns_per_s = per_second(polls, window.wall_ns);
  decision.cpu_ns_per_key = cpu_ns_per_key(window.entries);
  decision.cpu_ns_per_s =
      per_second(static_cast<double>(window.keys) * decision.cpu_ns_per_key, window.wall_ns);
  return decision;
}

placement_decision placement_rule::judge(const load_window& window, std::uint64_t now_ns) {
  if (settling_ || window.batches < settings_.min_batches || window.wall_ns == 0) {
    // The window after a move holds the move itself (and cold caches);
    // an idle one says nothing about the load.
    settling_ = false;
    placement_decision idle;
    idle.site = site_;
    return idle;
  }
  placement_decision decision =
      site_ == index_site::cpu ? costs_on_cpu(window) : costs_on_gpu(window);
  decision.batches = window.batches;
  decision.keys = window.keys;
  decision.keys_per_batch = static_cast<double>(window.keys) / static_cast<double>(window.batches);
  const bool other_known = site_ == index_site::cpu
                               ? decision.gpu_ns_per_batch > 0 && device_usable_
                               : decision.cpu_ns_per_key > 0;
  const bool favours_move =
      other_known &&
      (site_ == index_site::cpu ? decision.cpu_ns_per_s > decision.gpu_ns_per_s * settings_.margin
                                : decision.cpu_ns_per_s * settings_.margin < decision.gpu_ns_per_s);
  favouring_ = favours_move ? favouring_ + 1 : 0;
  const bool dwelt = !has_moved_ || now_ns - moved_at_ns_ >= dwell_ns_;
  using verdict = placement_decision::verdict;
  if (favouring_ >= settings_.windows_to_move && dwelt) {
    decision.what = verdict::move;
  } else {
    decision.what = favours_move ? verdict::leaning : verdict::stay;
  }
  return decision;
}

void placement_rule::moved(index_site to, std::uint64_t now_ns) {
  // Moves that follow each other closely mean the load sits near the
  // break-even point (or moves across it): each waits twice as long as the
  // last, so the moves' own cost stays small.
  const bool soon = has_moved_ && now_ns - moved_at_ns_ < 2 * dwell_ns_;
  dwell_ns_ = soon ? std::min(2 * dwell_ns_, settings_.longest_dwell_ns) : settings_.dwell_ns;
  has_moved_ = true;
  moved_at_ns_ = now_ns;
  site_ = to;
  favouring_ = 0;
  settling_ = true;
}

}  // namespace gpuhash::server::index

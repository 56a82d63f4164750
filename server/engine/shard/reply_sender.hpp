#pragma once
// The groups a busy batch thread keeps from one batch to send their replies
// itself while the next batch's round trip runs, instead of spinning.
// Under load the workers' time bounds the server, and a send is the
// largest part of a request's cost there; a group handed back to its
// worker also waits for it (measured: docs/results/server.md). It keeps as
// many as the last round trips had time for: one more after a round trip
// that sent them all, as many as it sent after one that did not. What the
// round trip leaves unsent goes straight back to the workers once the index
// has answered.

#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

#include "engine/batch/pipeline.hpp"

namespace gpuhash::server::engine {

class reply_sender final : public batch_side_work {
 public:
  static constexpr std::size_t most = 16;
  /// `hand_back(group, idle)` completes a group: `idle` when this thread
  /// may spend its time on the group's replies (during a round trip).
  reply_sender(std::function<void(request_group*, bool idle)> hand_back, batch_counts& counts)
      : hand_back_(std::move(hand_back)), counts_(counts) {}

  /// How many of a batch's last `groups` to keep.
  std::size_t room(std::size_t groups) const noexcept { return std::min(groups, limit_); }
  void hold(request_group* group) { held_.push_back(group); }

  bool step() override {
    if (sent_ == held_.size()) return false;
    hand_back_(held_[sent_++], true);
    return sent_ != held_.size();
  }
  void index_answered() override {
    if (held_.empty()) return;
    counts_.wait_groups_held += held_.size();
    counts_.wait_groups_sent += sent_;
    if (sent_ == held_.size()) {
      if (held_.size() == limit_) limit_ = std::min(limit_ + 1, most);
    } else {
      limit_ = std::max<std::size_t>(sent_, 1);
      for (std::size_t i = sent_; i < held_.size(); ++i) hand_back_(held_[i], false);
    }
    held_.clear();
    sent_ = 0;
  }

 private:
  std::function<void(request_group*, bool idle)> hand_back_;
  batch_counts& counts_;  // the pipeline's, touched by the thread running its batch
  std::vector<request_group*> held_;
  std::size_t sent_ = 0;   // held_[0, sent_) are handed back, replies sent
  std::size_t limit_ = 2;  // how many to keep from the next batch
};

}  // namespace gpuhash::server::engine

#pragma once
// A shard's queue of request groups, first in first out. Groups are taken
// from the front and added at the back; the vector keeps its capacity, so a
// queue that keeps emptying and filling allocates nothing once it has grown
// (a std::deque allocates and frees a block every 64 groups that pass).

#include <cstddef>
#include <span>
#include <vector>

namespace gpuhash::server::engine {

struct request_group;

class group_queue {
 public:
  bool empty() const noexcept { return head_ == groups_.size(); }
  std::size_t size() const noexcept { return groups_.size() - head_; }
  request_group* front() const noexcept { return groups_[head_]; }

  void push(std::span<request_group* const> groups) {
    if (head_ != 0 && head_ >= size()) {
      // at least as many taken as queued: drop them, so that a queue that
      // never empties (batches at batch_max) holds at most twice its groups
      groups_.erase(groups_.begin(), groups_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    groups_.insert(groups_.end(), groups.begin(), groups.end());
  }
  void pop_front() noexcept {
    if (++head_ < groups_.size()) return;
    groups_.clear();
    head_ = 0;
  }

 private:
  // groups_[head_, end) are queued; those before head_ were taken
  std::vector<request_group*> groups_;
  std::size_t head_ = 0;
};

}  // namespace gpuhash::server::engine

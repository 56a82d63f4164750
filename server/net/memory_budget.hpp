#pragma once
// The memory all connections' buffers hold together: what they have read and
// not yet parsed, the replies the engine assembles for them, and the output
// their clients have not yet read. Values are copied into replies, so a
// client that asks for large values and never reads would otherwise pin
// memory outside -m without bound. The model is memcached's
// -o read_buf_mem_limit; the limit here covers replies and output too.
//
// Every connection may hold `allowance` bytes whatever the others hold, so a
// small request is always read and answered; beyond that it grows only
// while the total stays under `limit`. A connection that may not grow is
// stalled: it is read no further and its next requests wait (network.cpp),
// until its client reads or other connections give memory back. So the
// total stays under limit + connections x allowance, up to one buffer's
// growth per worker thread (each checks before it grows and counts after).
//
// Charges are the capacities of the buffers (what malloc holds), counted by
// the connection after each step that can change them.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace gpuhash::server::net {

class memory_budget {
 public:
  /// limit 0: no limit (memcached's read_buf_mem_limit=0). `used` and
  /// `stalls` are counters of `stats` (engine/stats.hpp).
  memory_budget(std::size_t limit, std::size_t allowance, std::atomic<std::uint64_t>& used,
                std::atomic<std::uint64_t>& stalls)
      : limit_(limit), allowance_(allowance), used_(used), stalls_(stalls) {}

  /// Records that a connection charged `charged` bytes now holds `now`.
  void recharge(std::size_t& charged, std::size_t now) noexcept {
    if (now == charged) return;
    if (now > charged) {
      used_.fetch_add(now - charged, std::memory_order_relaxed);
    } else {
      used_.fetch_sub(charged - now, std::memory_order_relaxed);
      given_back_.fetch_add(1, std::memory_order_relaxed);
    }
    charged = now;
  }

  /// Changes each time a connection gives memory back: a connection that
  /// waits for memory need not look again before this changes.
  std::uint64_t given_back() const noexcept { return given_back_.load(std::memory_order_relaxed); }

  /// Whether a connection holding `charged` bytes may take `more`.
  bool may_grow(std::size_t charged, std::size_t more) const noexcept {
    if (limit_ == 0 || charged + more <= allowance_) return true;
    return used_.load(std::memory_order_relaxed) + more <= limit_;
  }

  /// The most a connection holding `charged` bytes may take now, up to `wanted`.
  std::size_t room(std::size_t charged, std::size_t wanted) const noexcept {
    if (limit_ == 0) return wanted;
    const std::size_t own = charged < allowance_ ? allowance_ - charged : 0;
    const std::size_t used = used_.load(std::memory_order_relaxed);
    const std::size_t shared = used < limit_ ? limit_ - static_cast<std::size_t>(used) : 0;
    return std::min(wanted, std::max(own, shared));
  }

  /// More than half the limit is held: connections give back what they
  /// hold beyond their allowance as soon as they are idle.
  bool pressed() const noexcept {
    return limit_ != 0 && used_.load(std::memory_order_relaxed) > limit_ / 2;
  }

  void count_stall() noexcept { stalls_.fetch_add(1, std::memory_order_relaxed); }

  std::size_t limit() const noexcept { return limit_; }
  std::size_t allowance() const noexcept { return allowance_; }
  std::size_t used() const noexcept { return used_.load(std::memory_order_relaxed); }
  std::uint64_t stalls() const noexcept { return stalls_.load(std::memory_order_relaxed); }

 private:
  std::size_t limit_;
  std::size_t allowance_;
  std::atomic<std::uint64_t>& used_;
  std::atomic<std::uint64_t>& stalls_;
  std::atomic<std::uint64_t> given_back_{0};
};

}  // namespace gpuhash::server::net

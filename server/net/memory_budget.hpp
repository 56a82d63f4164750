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
// until its client reads or other connections give memory back. Room is
// taken before it is used (take: checked and charged in one compare-and-swap
// of the total; take_input: one of the input's counter, then one of the
// total, what the second could not get given back at once), so the total
// stays under limit + connections x allowance, up to
// what grows without a take and is charged after (connection_memory.cpp):
// a group's parsed requests, a reply buffer's growth past its room. The
// takes take no lock: every request takes room for its input and its
// replies.
//
// Input may not take the last `reply_reserve` bytes of the limit (one
// largest reply). Input is given back only once its requests are answered,
// so without the reserve the clients' pipelined input could hold the whole
// budget while its own replies wait for room: a stall no one ends. With it,
// the replies of read requests always find room once the output before them
// is read.
//
// Charges are the capacities of the buffers (what malloc holds), measured by
// the connection after each step that can change them (recharge), which
// also gives back what was taken and not used.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace gpuhash::server::net {

/// What one connection is charged: all its buffers, and its input's among them.
struct memory_charge {
  std::size_t total = 0;
  std::size_t input = 0;
};

class memory_budget {
 public:
  /// limit 0: no limit (memcached's read_buf_mem_limit=0). `used` and
  /// `stalls` are counters of `stats` (engine/stats.hpp).
  memory_budget(std::size_t limit, std::size_t allowance, std::size_t reply_reserve,
                std::atomic<std::uint64_t>& used, std::atomic<std::uint64_t>& stalls)
      : limit_(limit),
        input_limit_(limit > reply_reserve ? limit - reply_reserve : 0),
        allowance_(allowance),
        used_(used),
        stalls_(stalls) {}

  /// Records that a connection charged `charged` now holds `total` bytes,
  /// `input` of them in its input.
  void recharge(memory_charge& charged, std::size_t total, std::size_t input) noexcept {
    const bool gave_back = total < charged.total || input < charged.input;
    move(used_, charged.total, total);
    move(input_used_, charged.input, input);
    // Release, and acquire in given_back(): a connection that sees the
    // change also sees the counters it gave back.
    if (gave_back) given_back_.fetch_add(1, std::memory_order_release);
  }

  /// Changes each time a connection gives memory back: a connection that
  /// waits for memory need not look again before this changes.
  std::uint64_t given_back() const noexcept { return given_back_.load(std::memory_order_acquire); }

  /// Takes for a connection's replies as much as it may now, up to `most`,
  /// and charges it; takes nothing when it may take less than `least`.
  /// A take is checked and charged in one atomic step, so that two workers
  /// cannot both take the last of the budget.
  std::size_t take(memory_charge& charged, std::size_t least, std::size_t most) {
    return take(charged, least, most, false);
  }

  /// The same for its input, which stays out of the reply reserve.
  std::size_t take_input(memory_charge& charged, std::size_t least, std::size_t most) {
    return take(charged, least, most, true);
  }

  /// More than half the limit is held: connections give back what they
  /// hold beyond their allowance as soon as they are idle.
  bool pressed() const noexcept {
    return limit_ != 0 && used_.load(std::memory_order_relaxed) > limit_ / 2;
  }

  void count_stall() noexcept { stalls_.fetch_add(1, std::memory_order_relaxed); }

  std::size_t limit() const noexcept { return limit_; }
  /// What all connections' input may hold together: the limit less the
  /// reply reserve.
  std::size_t input_ceiling() const noexcept { return input_limit_; }
  std::size_t allowance() const noexcept { return allowance_; }
  std::size_t used() const noexcept { return used_.load(std::memory_order_relaxed); }
  std::size_t input_used() const noexcept { return input_used_.load(std::memory_order_relaxed); }
  std::uint64_t stalls() const noexcept { return stalls_.load(std::memory_order_relaxed); }

 private:
  std::size_t take(memory_charge& charged, std::size_t least, std::size_t most, bool input) {
    std::size_t taken = most;
    if (limit_ == 0) {
      used_.fetch_add(taken, std::memory_order_relaxed);
      if (input) input_used_.fetch_add(taken, std::memory_order_relaxed);
    } else {
      const std::size_t own = own_room(charged.total);
      taken = input ? take_input_room(own, least, most) : take_room(own, least, most);
    }
    charged.total += taken;
    if (input) charged.input += taken;
    return taken;
  }
  /// A take from the total (a reply's): checked and charged in one step,
  /// a compare-and-swap that fails if another take or a recharge moved the
  /// total since it was read.
  std::size_t take_room(std::size_t own, std::size_t least, std::size_t most) noexcept {
    std::uint64_t used = used_.load(std::memory_order_relaxed);
    for (;;) {
      const std::size_t taken = std::min(most, std::max(own, left(used, limit_)));
      if (taken < least || taken == 0) return 0;
      if (used_.compare_exchange_weak(used, used + taken, std::memory_order_relaxed)) return taken;
    }
  }
  /// A take for input: the input's share is checked and charged in one
  /// step, then the total's, each as take_room does. Between the two the
  /// input holds what it may not get from the total (when the total has
  /// filled meanwhile), given back at once; it is given back as memory is
  /// given back (given_back_), so that a connection refused meanwhile looks
  /// again, as it would after a take that gave back what it did not use.
  std::size_t take_input_room(std::size_t own, std::size_t least, std::size_t most) noexcept {
    std::uint64_t input_used = input_used_.load(std::memory_order_relaxed);
    std::size_t held = 0;
    for (;;) {
      const std::size_t shared = std::min(left(used_.load(std::memory_order_relaxed), limit_),
                                          left(input_used, input_limit_));
      held = std::min(most, std::max(own, shared));
      if (held < least || held == 0) return 0;
      if (input_used_.compare_exchange_weak(input_used, input_used + held,
                                            std::memory_order_relaxed))
        break;
    }
    std::uint64_t used = used_.load(std::memory_order_relaxed);
    std::size_t taken = 0;
    for (;;) {
      taken = std::min(held, std::max(own, left(used, limit_)));
      if (taken < least || taken == 0) {
        taken = 0;
        break;
      }
      if (used_.compare_exchange_weak(used, used + taken, std::memory_order_relaxed)) break;
    }
    if (taken < held) {
      input_used_.fetch_sub(held - taken, std::memory_order_relaxed);
      given_back_.fetch_add(1, std::memory_order_release);  // as recharge's
    }
    return taken;
  }
  static void move(std::atomic<std::uint64_t>& counter, std::size_t& from,
                   std::size_t to) noexcept {
    if (to > from) counter.fetch_add(to - from, std::memory_order_relaxed);
    if (to < from) counter.fetch_sub(from - to, std::memory_order_relaxed);
    from = to;
  }
  static std::size_t left(std::uint64_t used, std::size_t limit) noexcept {
    return used < limit ? limit - static_cast<std::size_t>(used) : 0;
  }
  std::size_t own_room(std::size_t charged) const noexcept {
    return charged < allowance_ ? allowance_ - charged : 0;
  }

  std::size_t limit_;
  std::size_t input_limit_;
  std::size_t allowance_;
  std::atomic<std::uint64_t>& used_;
  std::atomic<std::uint64_t> input_used_{0};
  std::atomic<std::uint64_t>& stalls_;
  std::atomic<std::uint64_t> given_back_{0};
};

}  // namespace gpuhash::server::net

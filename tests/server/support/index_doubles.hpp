#pragma once
// Index services for tests, given to the engine through its index factory
// (index/index_factory.hpp) as the server's own are:
//  - one that gives the statuses of inserts and erases one batch late, as
//    the GPU's does, so that the engine's side of that is tested on any
//    machine (and the GPU index is checked against it: gpu_index_test.cpp);
//  - one that fails from a given batch on, as a GPU that fails while
//    serving does, so that the engine's move to the CPU is tested;
//  - one that pretends to be on a device, and a placement policy that
//    moves every few batches, so that --index=auto's moves between the CPU
//    and a device, and the shards' runners following them, are tested.

#include <cstddef>
#include <cstdint>
#include <memory>

#include "index/index_factory.hpp"
#include "index/index_service.hpp"
#include "index/placement_rule.hpp"

namespace gpuhash::server::index::test_doubles {

/// Forwards to `index`, with the statuses of a batch's inserts and erases
/// given by the next batch that has any (index_service::defers_mutations):
/// the finds run first, then the inserts and erases behind them, as on
/// the GPU; one step of the caller's wait_work is done, as if waiting. As
/// the GPU's, it counts a batch's entries (entries()) at the next batch.
std::unique_ptr<index_service> make_late_statuses_index(std::unique_ptr<index_service> index);

/// Forwards to `index`, and throws, as a failed GPU call does, from its
/// `fail_at`-th batch on (counted from 1).
std::unique_ptr<index_service> make_failing_index(std::unique_ptr<index_service> index,
                                                  std::size_t fail_at);

/// An index factory for tests: every shard's index on the CPU under `seed`,
/// its statuses given one batch late if `late_statuses`.
index_factory cpu_index_factory(std::uint64_t seed, bool late_statuses = false);

/// The CPU index under `seed`, with its statuses one batch late (as
/// make_late_statuses_index), saying it is on a device: the engine runs it
/// as it runs the GPU's (a batch thread, a submitter on an idle shard).
std::unique_ptr<index_service> make_pretend_device_index(std::size_t capacity, std::uint64_t seed);

/// A placement policy that judges every batch and moves the index to the
/// other side every `batches_per_stay` batches, `most_moves` times at most;
/// never to the device once it was lost. `start`: where the index starts.
std::unique_ptr<placement_policy> make_alternating_policy(
    index_site start, std::size_t batches_per_stay,
    std::size_t most_moves = static_cast<std::size_t>(-1));

/// An index factory for tests of moves (--index=auto): every shard's index
/// under `seed`, on a pretend device (make_pretend_device_index) or the CPU
/// as `start` says, moving as make_alternating_policy says.
index_factory moving_index_factory(std::uint64_t seed, index_site start,
                                   std::size_t batches_per_stay,
                                   std::size_t most_moves = static_cast<std::size_t>(-1));

}  // namespace gpuhash::server::index::test_doubles

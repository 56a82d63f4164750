#pragma once
// Index services for tests, given to the engine through its index factory
// (index/index_factory.hpp) as the server's own are:
//  - one that gives the statuses of inserts and erases one batch late, as
//    the GPU's does, so that the engine's side of that is tested on any
//    machine (and the GPU index is checked against it: gpu_index_test.cpp);
//  - one that fails from a given batch on, as a GPU that fails while
//    serving does, so that the engine's move to the CPU is tested.

#include <cstddef>
#include <cstdint>
#include <memory>

#include "index/index_factory.hpp"
#include "index/index_service.hpp"

namespace gpuhash::server::index::test_doubles {

/// Forwards to `index`, with the statuses of a batch's inserts and erases
/// given by the next batch that has any (index_service::defers_mutations):
/// the finds run first, then the inserts and erases behind them, as on
/// the GPU; one step of the caller's wait_work is done, as if waiting.
std::unique_ptr<index_service> make_late_statuses_index(std::unique_ptr<index_service> index);

/// Forwards to `index`, and throws, as a failed GPU call does, from its
/// `fail_at`-th batch on (counted from 1).
std::unique_ptr<index_service> make_failing_index(std::unique_ptr<index_service> index,
                                                  std::size_t fail_at);

/// An index factory for tests: every shard's index on the CPU under `seed`,
/// its statuses given one batch late if `late_statuses`.
index_factory cpu_index_factory(std::uint64_t seed, bool late_statuses = false);

}  // namespace gpuhash::server::index::test_doubles

#pragma once
// node_pool: the preallocated nodes of the chained designs, handed out by a
// concurrent stack (DACHash thesis section 4.3; Cuckoo Node Hashing reuses
// it). Included by engine implementations only (it launches work through
// exec).
//
// Storage. Nodes live in chunks; chunk k holds first_chunk << k nodes, so a
// node's index names its chunk by its leading bit, and the pool grows by a
// chunk without moving a node: indices stored in chains stay valid and
// nothing is rebuilt.
//
// The stack is an array of free node indices and a top counter:
//  * pop (allocate) is one fetch_sub of the top (coalesced over the threads
//    of a warp that pop together: atomic.hpp says why); a count that was
//    already 0 means the pool is empty (the decrement is undone). Pops run
//    concurrently with pops: a batch only allocates.
//  * push (free) is one fetch_add and a store. Pushes run concurrently with
//    pushes (clean frees), never with pops: a pop could read an entry of the
//    array before the push that owns it has written it. Both papers free
//    nodes only in a phase of their own (clean), and so do we.
// Every node on the stack is empty (all bytes 0xff: empty slots and no next
// node): chunks start so, and whoever pushes a node empties it first. A
// popped node is therefore ready to be linked into a chain.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gpuhash/detail/atomic.hpp"
#include "gpuhash/detail/exec.hpp"
#include "gpuhash/errors.hpp"
#include "gpuhash/host_device.hpp"

namespace gpuhash::detail {

/// Index of a pool node; the two largest values are markers.
using node_index = std::uint32_t;
/// No next node (the end of a chain), or an empty pool.
inline constexpr node_index no_node = ~node_index{0};
/// A next-node word being set by the thread that is attaching a node.
inline constexpr node_index linking_node = ~node_index{0} - 1;

/// Position of the highest set bit of x (x > 0).
GPUHASH_HD GPUHASH_FORCEINLINE int highest_bit(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return 63 - __clzll(static_cast<long long>(x));
#else
  return 63 - std::countl_zero(x);
#endif
}

/// The trivially copyable handle of a pool, used inside batches.
template <class Node>
struct node_pool_view {
  /// Chunks a pool may have: with a first chunk of at least 32 nodes the
  /// last one would pass the 2^32 - 2 indices a node_index can name.
  static constexpr int max_chunks = 27;

  Node* chunks[max_chunks] = {};
  std::uint32_t first_chunk_log2 = 0;
  std::int64_t* top = nullptr;  ///< nodes on the stack; top[1] counts pops that
                                ///< read no node from below the top (see pop)
  node_index* free = nullptr;   ///< the stack: free[0, *top) are free nodes

  GPUHASH_HD Node& node(node_index index) const {
    // Chunk k holds indices [first * (2^k - 1), first * (2^(k+1) - 1)).
    const std::uint64_t scaled = (std::uint64_t{index} >> first_chunk_log2) + 1;
    const int chunk = highest_bit(scaled);
    const std::uint64_t base = ((std::uint64_t{1} << chunk) - 1) << first_chunk_log2;
    return chunks[chunk][index - base];
  }

  /// A free, empty node, or no_node when the pool is empty. Not concurrent
  /// with push().
  GPUHASH_HD node_index pop() const {
    const std::int64_t before = fetch_add_coalesced(top, std::int64_t{-1});
    if (before <= 0) {
      fetch_add_relaxed(top, std::int64_t{1});
      return no_node;
    }
    // Written by a push or by the host before this phase began.
    const node_index index = load_relaxed(free + (before - 1));
    // Never expected: an entry below the top that holds no node. Counted so
    // that tests can see it.
    if (index == no_node) fetch_add_relaxed(top + 1, std::int64_t{1});
    return index;
  }

  /// Returns an emptied node to the pool. Not concurrent with pop().
  GPUHASH_HD void push(node_index index) const {
    const std::int64_t at = fetch_add_coalesced(top, std::int64_t{1});
    store_relaxed(free + at, index);
  }
};

/// Writes free[offset + j] = last - j: the stack entries of nodes
/// [first, last], so that pops hand them out in increasing order.
struct stack_range {
  node_index* free;
  std::int64_t offset;
  node_index last;
  GPUHASH_HD void operator()(std::uint64_t j) const {
    free[offset + static_cast<std::int64_t>(j)] = last - static_cast<node_index>(j);
  }
};

/// The owning pool: chunks of nodes in backend memory and the free stack.
template <class Node, class Backend>
class node_pool {
 public:
  using view_type = node_pool_view<Node>;
  using stream_type = typename Backend::stream_type;

  /// A pool whose first chunk holds at least `min_nodes` nodes (rounded up to
  /// a power of two, at least 32), all free.
  node_pool(std::size_t min_nodes, stream_type stream)
      : first_chunk_log2_(static_cast<std::uint32_t>(
            highest_bit(std::bit_ceil(std::max<std::uint64_t>(min_nodes, 32))))),
        top_(Backend::template allocate<std::int64_t>(2, stream)) {
    Backend::fill_bytes(top_.data(), 2 * sizeof(std::int64_t), 0, stream);
    add_chunk(stream);
  }

  /// Nodes in all chunks, free or in use.
  std::size_t nodes() const noexcept {
    return ((std::size_t{1} << chunks_.size()) - 1) << first_chunk_log2_;
  }
  std::size_t chunks() const noexcept { return chunks_.size(); }
  std::size_t memory_bytes() const noexcept {
    return nodes() * (sizeof(Node) + sizeof(node_index)) + sizeof(std::int64_t);
  }

  /// Nodes on the stack now (waits for the stream).
  std::size_t free_nodes(stream_type stream) const {
    std::int64_t top = 0;
    Backend::copy_to_host(&top, top_.data(), 1, stream);
    return static_cast<std::size_t>(top);
  }

  /// Pops so far that found an entry holding no node below the top (never
  /// expected; waits for the stream).
  std::size_t empty_entries_popped(stream_type stream) const {
    std::int64_t counts[2] = {};
    Backend::copy_to_host(counts, top_.data(), 2, stream);
    return static_cast<std::size_t>(counts[1]);
  }

  /// Adds the next chunk (the first chunk's size times 2^k: as many nodes as
  /// the pool had, plus the first chunk's), every node of it free. Runs
  /// between batches.
  void add_chunk(stream_type stream) {
    const std::size_t size = std::size_t{1} << (first_chunk_log2_ + chunks_.size());
    const std::size_t first = nodes();
    if (chunks_.size() == view_type::max_chunks || first + size >= linking_node)
      throw error("gpuhash: node pool of " + std::to_string(first) +
                  " nodes cannot grow further (node indices are 32-bit)");
    auto chunk = Backend::template allocate<Node>(size, stream);
    Backend::fill_bytes(chunk.data(), size * sizeof(Node), 0xff, stream);
    // The stack array grows with the pool; the entries on it are kept.
    const std::size_t on_stack = chunks_.empty() ? 0 : free_nodes(stream);
    auto grown = Backend::template allocate<node_index>(first + size, stream);
    if (on_stack > 0) Backend::copy(grown.data(), free_.data(), on_stack, stream);
    exec<Backend>::for_each(size,
                            stack_range{grown.data(), static_cast<std::int64_t>(on_stack),
                                        static_cast<node_index>(first + size - 1)},
                            stream);
    const auto top = static_cast<std::int64_t>(on_stack + size);
    Backend::copy_from_host(top_.data(), &top, 1, stream);
    free_ = std::move(grown);
    chunks_.push_back(std::move(chunk));
  }

  /// Empties every node and puts all of them on the stack (clear).
  void reset(stream_type stream) {
    for (auto& chunk : chunks_)
      Backend::fill_bytes(chunk.data(), chunk.size() * sizeof(Node), 0xff, stream);
    exec<Backend>::for_each(
        nodes(), stack_range{free_.data(), 0, static_cast<node_index>(nodes() - 1)}, stream);
    const auto top = static_cast<std::int64_t>(nodes());
    Backend::copy_from_host(top_.data(), &top, 1, stream);
  }

  view_type view() const {
    view_type v;
    for (std::size_t k = 0; k < chunks_.size(); ++k)
      v.chunks[k] = const_cast<Node*>(chunks_[k].data());
    v.first_chunk_log2 = first_chunk_log2_;
    v.top = const_cast<std::int64_t*>(top_.data());
    v.free = const_cast<node_index*>(free_.data());
    return v;
  }

 private:
  template <class T>
  using buffer = typename Backend::template buffer<T>;

  std::uint32_t first_chunk_log2_;
  std::vector<buffer<Node>> chunks_;
  buffer<std::int64_t> top_;
  buffer<node_index> free_;
};

}  // namespace gpuhash::detail

#pragma once
// The memory of a shard's host maps (cache.hpp): their nodes, which each
// store and each batch add and drop by the few, come from free lists, one
// for each size of node, carved from blocks that are kept until the pool
// goes; anything larger (the maps' bucket arrays) comes from the heap.
// std::pmr::unsynchronized_pool_resource does the same, but finds a size's
// pool with a search and its free block with a bitmap, several times the
// instructions of a list's pop or push (docs/results/server.md).
//
// One thread at a time: the one running the shard's batch.

#include <cstddef>
#include <memory>
#include <memory_resource>
#include <new>
#include <vector>

namespace gpuhash::server::engine {

class node_pool final : public std::pmr::memory_resource {
 public:
  /// Nodes up to this size (in multiples of `granule`) come from the lists.
  static constexpr std::size_t largest_node = 128;
  static constexpr std::size_t granule = alignof(std::max_align_t);

  node_pool() = default;
  node_pool(const node_pool&) = delete;
  node_pool& operator=(const node_pool&) = delete;

 private:
  /// A free node holds the next free node of its size.
  struct free_node {
    free_node* next;
  };
  static constexpr std::size_t sizes = largest_node / granule;
  static constexpr std::size_t block_bytes = 16u << 10;

  static std::size_t list_of(std::size_t bytes) noexcept {
    return (bytes + granule - 1) / granule - 1;
  }
  static bool pooled(std::size_t bytes, std::size_t alignment) noexcept {
    return bytes != 0 && bytes <= largest_node && alignment <= granule;
  }

  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    if (!pooled(bytes, alignment)) return ::operator new (bytes, std::align_val_t{alignment});
    free_node*& head = free_[list_of(bytes)];
    if (head == nullptr) return carve((list_of(bytes) + 1) * granule);
    free_node* const node = head;
    head = node->next;
    return node;
  }
  void do_deallocate(void* memory, std::size_t bytes, std::size_t alignment) override {
    if (!pooled(bytes, alignment)) {
      ::operator delete (memory, bytes, std::align_val_t{alignment});
      return;
    }
    free_node*& head = free_[list_of(bytes)];
    head = ::new (memory) free_node{head};
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }

  /// A new node of `bytes` (a multiple of granule) from the current block,
  /// or from a new one.
  void* carve(std::size_t bytes) {
    if (left_ < bytes) {
      blocks_.push_back(std::make_unique_for_overwrite<block>());
      next_ = blocks_.back()->bytes;
      left_ = block_bytes;
    }
    void* const node = next_;
    next_ += bytes;
    left_ -= bytes;
    return node;
  }

  struct block {
    alignas(granule) std::byte bytes[block_bytes];
  };
  free_node* free_[sizes] = {};
  std::vector<std::unique_ptr<block>> blocks_;
  std::byte* next_ = nullptr;
  std::size_t left_ = 0;
};

}  // namespace gpuhash::server::engine

// The page-locked pool of pinned_memory.hpp, on the CUDA runtime.

#include "index/pinned_memory.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <mutex>
#include <new>
#include <vector>

namespace gpuhash::server::index {

namespace {

class pinned_pool final : public std::pmr::memory_resource {
 private:
  static constexpr std::size_t header = alignof(std::max_align_t);
  enum : unsigned char { from_cuda = 1, from_heap = 2 };
  static constexpr std::size_t size_classes = 64;

  /// The size class (a power of two) a block of `bytes` (header included) comes from.
  static std::size_t size_class(std::size_t bytes) {
    return static_cast<std::size_t>(std::bit_width(std::max<std::size_t>(bytes, 64) - 1));
  }

  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    if (alignment > header) throw std::bad_alloc();
    const std::size_t size = size_class(bytes + header);
    if (size >= size_classes) throw std::bad_alloc();
    void* block = nullptr;
    {
      std::lock_guard lock(mutex_);
      if (!free_[size].empty()) {
        block = free_[size].back();
        free_[size].pop_back();
      }
    }
    unsigned char kind = from_cuda;
    if (block == nullptr) {
      if (cudaMallocHost(&block, std::size_t{1} << size) != cudaSuccess) {
        cudaGetLastError();  // clear it: the heap will do
        block = ::operator new(bytes + header);
        kind = from_heap;
      }
    }
    *static_cast<unsigned char*>(block) = kind;
    return static_cast<unsigned char*>(block) + header;
  }
  void do_deallocate(void* pointer, std::size_t bytes, std::size_t) override {
    unsigned char* block = static_cast<unsigned char*>(pointer) - header;
    if (*block == from_heap) {
      ::operator delete(block);
      return;
    }
    std::lock_guard lock(mutex_);
    free_[size_class(bytes + header)].push_back(block);
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }

  std::mutex mutex_;
  std::vector<void*> free_[size_classes];  // page-locked blocks by size class, for reuse
};

}  // namespace

std::pmr::memory_resource& pinned_memory() {
  // Never destroyed: at exit the CUDA context may be gone before it, and
  // the process's memory goes with the process.
  static pinned_pool* pool = new pinned_pool;
  return *pool;
}

}  // namespace gpuhash::server::index

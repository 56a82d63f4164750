// Kernels behind cuda_backend's host-callable helpers (fill, select_positions,
// gather, scatter), instantiated for unsigned words of 1, 4, 8 and 16 bytes:
// the header moves every element type of those sizes as its word, and wider
// elements (wide values) as runs of 4-byte words.

#include <thrust/iterator/counting_iterator.h>
#include <cub/device/device_select.cuh>

#include <cstdint>

#include "gpuhash/cuda/backend.hpp"
#include "gpuhash/detail/cuda/launch.cuh"

namespace gpuhash {

namespace {

template <class T>
struct fill_functor {
  T* destination;
  T value;
  __device__ void operator()(std::uint64_t i) const { destination[i] = value; }
};

template <class T>
struct gather_functor {
  const T* source;
  const std::size_t* positions;
  T* destination;
  __device__ void operator()(std::uint64_t j) const { destination[j] = source[positions[j]]; }
};

template <class T>
struct scatter_functor {
  const T* source;
  const std::size_t* positions;
  T* destination;
  __device__ void operator()(std::uint64_t j) const { destination[positions[j]] = source[j]; }
};

/// Elements of `words` 4-byte words each (wide values), one word per index.
struct gather_words_of_elements {
  const std::uint32_t* source;
  const std::size_t* positions;
  std::uint32_t* destination;
  std::size_t words;
  __device__ void operator()(std::uint64_t i) const {
    const std::uint64_t element = i / words;
    const std::uint64_t word = i % words;
    destination[i] = source[positions[element] * words + word];
  }
};

struct scatter_words_of_elements {
  const std::uint32_t* source;
  const std::size_t* positions;
  std::uint32_t* destination;
  std::size_t words;
  __device__ void operator()(std::uint64_t i) const {
    const std::uint64_t element = i / words;
    const std::uint64_t word = i % words;
    destination[positions[element] * words + word] = source[i];
  }
};

struct status_matches {
  const status* statuses;
  status match;
  __device__ bool operator()(std::size_t i) const { return statuses[i] == match; }
};

template <class F>
void launch(std::uint64_t n, const F& f, cudaStream_t stream) {
  if (n == 0) return;
  const auto kernel = detail::cuda::for_each_kernel<F>;
  kernel<<<detail::cuda::grid_size(kernel, n), detail::cuda::block_size, 0, stream>>>(n, f);
  GPUHASH_CUDA_CHECK_LAUNCH(stream);
}

}  // namespace

bool cuda_backend::available() noexcept {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return devices > 0;
}

std::string cuda_backend::device_name() {
  int device = 0;
  GPUHASH_CUDA_TRY(cudaGetDevice(&device));
  cudaDeviceProp properties{};
  GPUHASH_CUDA_TRY(cudaGetDeviceProperties(&properties, device));
  return properties.name;
}

template <class Word>
void cuda_backend::fill_words(Word* destination, std::size_t n, Word value, stream_type stream) {
  launch(n, fill_functor<Word>{destination, value}, stream);
}

std::size_t cuda_backend::select_positions(const status* statuses, std::size_t n, status match,
                                           std::size_t* positions, stream_type stream) {
  if (n == 0) return 0;
  const thrust::counting_iterator<std::size_t> indices(0);
  cuda::device_buffer<std::int64_t> selected(1, stream);
  std::size_t temp_bytes = 0;
  const auto items = static_cast<std::int64_t>(n);
  const status_matches predicate{statuses, match};
  GPUHASH_CUDA_TRY(cub::DeviceSelect::If(nullptr, temp_bytes, indices, positions, selected.data(),
                                         items, predicate, stream));
  cuda::device_buffer<unsigned char> temp(temp_bytes, stream);
  GPUHASH_CUDA_TRY(cub::DeviceSelect::If(temp.data(), temp_bytes, indices, positions,
                                         selected.data(), items, predicate, stream));
  std::int64_t count = 0;
  copy_to_host(&count, selected.data(), 1, stream);
  return static_cast<std::size_t>(count);
}

template <class Word>
void cuda_backend::gather_words(const Word* source, const std::size_t* positions, std::size_t m,
                                Word* destination, stream_type stream) {
  launch(m, gather_functor<Word>{source, positions, destination}, stream);
}

template <class Word>
void cuda_backend::scatter_words(const Word* source, const std::size_t* positions, std::size_t m,
                                 Word* destination, stream_type stream) {
  launch(m, scatter_functor<Word>{source, positions, destination}, stream);
}

void cuda_backend::gather_elements(const std::uint32_t* source, const std::size_t* positions,
                                   std::size_t m, std::uint32_t* destination, std::size_t words,
                                   stream_type stream) {
  launch(m * words, gather_words_of_elements{source, positions, destination, words}, stream);
}

void cuda_backend::scatter_elements(const std::uint32_t* source, const std::size_t* positions,
                                    std::size_t m, std::uint32_t* destination, std::size_t words,
                                    stream_type stream) {
  launch(m * words, scatter_words_of_elements{source, positions, destination, words}, stream);
}

#define GPUHASH_INSTANTIATE_WORD(Word)                                                          \
  template void cuda_backend::fill_words<Word>(Word*, std::size_t, Word, stream_type);          \
  template void cuda_backend::gather_words<Word>(const Word*, const std::size_t*, std::size_t,  \
                                                 Word*, stream_type);                           \
  template void cuda_backend::scatter_words<Word>(const Word*, const std::size_t*, std::size_t, \
                                                  Word*, stream_type);

GPUHASH_INSTANTIATE_WORD(std::uint8_t)
GPUHASH_INSTANTIATE_WORD(std::uint32_t)
GPUHASH_INSTANTIATE_WORD(std::uint64_t)
GPUHASH_INSTANTIATE_WORD(detail::word_for<16>::type)

#undef GPUHASH_INSTANTIATE_WORD

}  // namespace gpuhash

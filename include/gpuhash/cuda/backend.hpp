#pragma once
// The CUDA backend: device memory, stream-ordered work. Built when CMake finds
// nvcc. This header is plain C++ (it includes only the CUDA runtime API), so
// host code that uses tables on the GPU compiles without nvcc; the kernels live
// in the library's .cu files.

#include <cuda_runtime_api.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "gpuhash/cuda/device_buffer.hpp"
#include "gpuhash/cuda/error.hpp"
#include "gpuhash/cuda/pinned_buffer.hpp"
#include "gpuhash/key_types.hpp"
#include "gpuhash/status.hpp"

namespace gpuhash {

struct cuda_backend {
  static constexpr std::string_view name = "cuda";
  using stream_type = cudaStream_t;
  template <class T>
  using buffer = cuda::device_buffer<T>;
  static constexpr bool host_accessible = false;

  /// Whether a CUDA device can be used (false without a driver or a device).
  static bool available() noexcept;
  static std::string device_name();
  static void synchronize(stream_type stream) { GPUHASH_CUDA_TRY(cudaStreamSynchronize(stream)); }

  template <class T>
  static buffer<T> allocate(std::size_t n, stream_type stream = nullptr) {
    return buffer<T>(n, stream);
  }
  /// Host memory that device-to-host copies reach directly (page-locked), for
  /// small results read back after every batch.
  template <class T>
  using host_buffer = cuda::pinned_buffer<T>;
  template <class T>
  static host_buffer<T> allocate_host(std::size_t n) {
    return host_buffer<T>(n);
  }
  template <class T>
  static void copy(T* destination, const T* source, std::size_t n, stream_type stream = nullptr) {
    if (n != 0)
      GPUHASH_CUDA_TRY(
          cudaMemcpyAsync(destination, source, n * sizeof(T), cudaMemcpyDeviceToDevice, stream));
  }
  /// Device to host; returns when the data is on the host.
  /// Device to host, queued on the stream (the destination should be pinned:
  /// host_buffer).
  template <class T>
  static void copy_to_host_async(T* destination, const T* source, std::size_t n,
                                 stream_type stream = nullptr) {
    if (n != 0)
      GPUHASH_CUDA_TRY(
          cudaMemcpyAsync(destination, source, n * sizeof(T), cudaMemcpyDeviceToHost, stream));
  }
  template <class T>
  static void copy_to_host(T* destination, const T* source, std::size_t n,
                           stream_type stream = nullptr) {
    if (n != 0)
      GPUHASH_CUDA_TRY(
          cudaMemcpyAsync(destination, source, n * sizeof(T), cudaMemcpyDeviceToHost, stream));
    synchronize(stream);
  }
  /// Host to device; the source may be reused as soon as this returns.
  template <class T>
  static void copy_from_host(T* destination, const T* source, std::size_t n,
                             stream_type stream = nullptr) {
    if (n != 0)
      GPUHASH_CUDA_TRY(
          cudaMemcpyAsync(destination, source, n * sizeof(T), cudaMemcpyHostToDevice, stream));
    synchronize(stream);
  }
  /// Sets n bytes at `destination` to `byte`.
  static void fill_bytes(void* destination, std::size_t n, unsigned char byte,
                         stream_type stream = nullptr) {
    GPUHASH_CUDA_TRY(cudaMemsetAsync(destination, byte, n, stream));
  }
  /// Element-wise work on device arrays. Any trivially copyable element of
  /// 1, 4, 8 or 16 bytes (keys and values of the user's types included)
  /// moves as its bytes, through the kernels that src/cuda/backend.cu
  /// defines for unsigned words of those sizes; gather and scatter also move
  /// wider elements of whole 4-byte words (wide values).
  template <class T>
  static void fill(T* destination, std::size_t n, T value, stream_type stream = nullptr) {
    using word = element_word<T>;
    fill_words(reinterpret_cast<word*>(destination), n, std::bit_cast<word>(value), stream);
  }
  static std::size_t select_positions(const status* statuses, std::size_t n, status match,
                                      std::size_t* positions, stream_type stream = nullptr);
  template <class T>
  static void gather(const T* source, const std::size_t* positions, std::size_t m, T* destination,
                     stream_type stream = nullptr) {
    if constexpr (moves_as_word<T>) {
      using word = element_word<T>;
      gather_words(reinterpret_cast<const word*>(source), positions, m,
                   reinterpret_cast<word*>(destination), stream);
    } else {
      gather_elements(reinterpret_cast<const std::uint32_t*>(source), positions, m,
                      reinterpret_cast<std::uint32_t*>(destination), words_of<T>(), stream);
    }
  }
  template <class T>
  static void scatter(const T* source, const std::size_t* positions, std::size_t m, T* destination,
                      stream_type stream = nullptr) {
    if constexpr (moves_as_word<T>) {
      using word = element_word<T>;
      scatter_words(reinterpret_cast<const word*>(source), positions, m,
                    reinterpret_cast<word*>(destination), stream);
    } else {
      scatter_elements(reinterpret_cast<const std::uint32_t*>(source), positions, m,
                       reinterpret_cast<std::uint32_t*>(destination), words_of<T>(), stream);
    }
  }

 private:
  /// The unsigned word an element of `Bytes` bytes moves as.
  template <std::size_t Bytes>
  struct element_word_for : detail::word_for<Bytes> {};
  template <std::size_t Bytes>
  requires(Bytes == 1) struct element_word_for<Bytes> {
    using type = std::uint8_t;
  };
  template <class T>
  requires(std::is_trivially_copyable_v<T> &&
           (sizeof(T) == 1 || sizeof(T) == 4 || sizeof(T) == 8 ||
            sizeof(T) == 16)) using element_word = typename element_word_for<sizeof(T)>::type;
  /// Whether T moves as one word; other elements (wide values) move as runs
  /// of 4-byte words.
  template <class T>
  static constexpr bool moves_as_word = sizeof(T) == 1 || sizeof(T) == 4 || sizeof(T) == 8 ||
                                        sizeof(T) == 16;
  template <class T>
  static constexpr std::size_t words_of() {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) % 4 == 0,
                  "gpuhash::cuda_backend moves trivially copyable elements of 1, 4, 8 or 16 "
                  "bytes, or of a whole number of 4-byte words");
    return sizeof(T) / 4;
  }
  static void gather_elements(const std::uint32_t* source, const std::size_t* positions,
                              std::size_t m, std::uint32_t* destination, std::size_t words,
                              stream_type stream);
  static void scatter_elements(const std::uint32_t* source, const std::size_t* positions,
                               std::size_t m, std::uint32_t* destination, std::size_t words,
                               stream_type stream);
  template <class Word>
  static void fill_words(Word* destination, std::size_t n, Word value, stream_type stream);
  template <class Word>
  static void gather_words(const Word* source, const std::size_t* positions, std::size_t m,
                           Word* destination, stream_type stream);
  template <class Word>
  static void scatter_words(const Word* source, const std::size_t* positions, std::size_t m,
                            Word* destination, stream_type stream);
};

}  // namespace gpuhash

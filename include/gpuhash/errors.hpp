#pragma once
// Exceptions thrown by the library. Messages say what happened and what to do.

#include <cstddef>
#include <stdexcept>
#include <string>

namespace gpuhash {

/// Base of every exception the library throws.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Memory for a table, its growth or a temporary could not be allocated. The
/// table is unchanged by the failed step; keys of the batch that could not be
/// placed carry status::full.
class out_of_memory : public error {
 public:
  out_of_memory(const std::string& where, std::size_t bytes)
      : error("gpuhash: out of memory in " + where + " allocating " + std::to_string(bytes) +
              " bytes") {}
};

/// An error returned by the CUDA runtime (see cuda/error.hpp).
class cuda_error : public error {
 public:
  using error::error;
};

}  // namespace gpuhash

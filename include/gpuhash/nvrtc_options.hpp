#pragma once
// What NVRTC needs to compile a kernel that uses a ref of gpuhash's
// (gpuhash/linear_probing_ref.hpp, gpuhash/bucketed_cuckoo_ref.hpp): kernels
// compiled at run time, such as CuPy's RawModule (docs/device_api.md,
// "Kernels compiled at run time"). Host code: the Python package hands
// these to its users (gpuhash.nvrtc_options()), and the NVRTC test compiles
// the refs' headers with them.
//
//   options: gpuhash::nvrtc_options, then -I for
//     <include>                      the library's headers (the folder holding gpuhash/)
//     <include>/gpuhash/nvrtc        NVRTC's stand-ins for the standard headers
//     <CUDA>/include, <CUDA>/include/cccl   (CuPy adds its own)

#include <array>
#include <string_view>

namespace gpuhash {

/// The flags: C++20 (the headers use concepts); functions and lambdas with
/// no execution space are device code (the headers' host helpers, which a
/// kernel never calls, need not be marked); the 128-bit integer of 16-byte
/// keys and values.
inline constexpr std::array<std::string_view, 3> nvrtc_options = {"-std=c++20", "-default-device",
                                                                  "-device-int128"};

/// The folder under the library's include folder that stands in for the
/// standard headers under NVRTC (gpuhash/nvrtc/std_names.hpp).
inline constexpr std::string_view nvrtc_std_folder = "gpuhash/nvrtc";

}  // namespace gpuhash

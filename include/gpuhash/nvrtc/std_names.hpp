#pragma once
// NVRTC has no C++ standard library. This folder stands in for the standard
// headers that the refs' headers include (gpuhash/linear_probing_ref.hpp,
// gpuhash/bucketed_cuckoo_ref.hpp): each includes libcu++'s header of the
// same name, and this one makes libcu++'s names (cuda::std::uint32_t,
// cuda::std::is_same_v, cuda::std::array, ...) visible as std's, so that
// the library's code reads the same under every compiler. The folder goes
// on NVRTC's include path only (gpuhash/nvrtc_options.hpp;
// docs/device_api.md, "Kernels compiled at run time").

#if !defined(__CUDACC_RTC__)
#error "include/gpuhash/nvrtc is NVRTC's alone: take it off this compiler's include path"
#endif

namespace cuda::std {}
namespace std {
using namespace ::cuda::std;
}  // namespace std

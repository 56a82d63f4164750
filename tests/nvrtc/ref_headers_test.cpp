// The refs' headers under NVRTC, which compiles kernels at run time (CuPy's
// RawModule; docs/device_api.md, "Kernels compiled at run time"): one
// program with a kernel per design and width that calls every method of
// the ref, compiled with gpuhash::nvrtc_options. Each kernel also asserts
// that NVRTC lays the ref out as the host compiler does (its size and
// alignment), so that a ref copied on the host is the ref the kernel reads.
// NVRTC needs no GPU: CI runs this wherever the CUDA toolkit is installed.

#include <gtest/gtest.h>
#include <nvrtc.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "gpuhash/bucketed_cuckoo_map.hpp"
#include "gpuhash/bucketed_cuckoo_ref.hpp"
#include "gpuhash/linear_probing_map.hpp"
#include "gpuhash/linear_probing_ref.hpp"
#include "gpuhash/nvrtc_options.hpp"

namespace gpuhash::testing {
namespace {

// The refs a kernel names are the maps' ref types (the same on every backend).
static_assert(std::is_same_v<linear_probing_map<std::uint32_t, std::uint32_t>::ref_type,
                             linear_probing_ref<std::uint32_t, std::uint32_t>>);
static_assert(std::is_same_v<linear_probing_map<std::uint64_t, std::uint64_t>::ref_type,
                             linear_probing_ref<std::uint64_t, std::uint64_t>>);
static_assert(std::is_same_v<bucketed_cuckoo_map<std::uint32_t, std::uint32_t>::ref_type,
                             bucketed_cuckoo_ref<std::uint32_t, std::uint32_t>>);
static_assert(std::is_same_v<bucketed_cuckoo_map<std::uint64_t, std::uint64_t>::ref_type,
                             bucketed_cuckoo_ref<std::uint64_t, std::uint64_t>>);

struct compile_result {
  nvrtcResult result;
  std::string log;
};

/// Compiles `source` for sm_90 with the library's NVRTC options and include
/// folders (GPUHASH_TEST_* come from tests/CMakeLists.txt).
compile_result compile(const std::string& source) {
  nvrtcProgram program;
  EXPECT_EQ(nvrtcCreateProgram(&program, source.c_str(), "refs.cu", 0, nullptr, nullptr),
            NVRTC_SUCCESS);
  const std::string include = GPUHASH_TEST_INCLUDE_DIR;
  std::vector<std::string> options(nvrtc_options.begin(), nvrtc_options.end());
  options.push_back("-arch=sm_90");
  options.push_back("-I" + include);
  options.push_back("-I" + include + "/" + std::string(nvrtc_std_folder));
  options.push_back("-I" GPUHASH_TEST_CUDA_INCLUDE_DIR);
  options.push_back("-I" GPUHASH_TEST_CCCL_INCLUDE_DIR);
  std::vector<const char*> option_pointers;
  for (const auto& option : options) option_pointers.push_back(option.c_str());
  compile_result out;
  out.result = nvrtcCompileProgram(program, static_cast<int>(option_pointers.size()),
                                   option_pointers.data());
  std::size_t log_size = 0;
  nvrtcGetProgramLogSize(program, &log_size);
  out.log.assign(log_size, '\0');
  nvrtcGetProgramLog(program, out.log.data());
  nvrtcDestroyProgram(&program);
  return out;
}

/// A kernel named `name` over a ref of type Ref, which NVRTC calls `type`.
template <class Ref>
std::string kernel(const std::string& name, const std::string& type) {
  return "static_assert(sizeof(" + type + ") == " + std::to_string(sizeof(Ref)) + " && alignof(" +
         type + ") == " + std::to_string(alignof(Ref)) +
         ", \"NVRTC lays the ref out as the host compiler does\");\n"
         "extern \"C\" __global__ void " +
         name + "(" + type + " ref, const " + type + "::key_type* keys, " + type +
         "::mapped_type* values, gpuhash::status* statuses, unsigned long long n) {\n"
         "  use_every_method(ref, keys, values, statuses, n);\n}\n";
}

TEST(nvrtc, refs_compile_and_match_the_host_layout) {
  std::string source = R"(
#include "gpuhash/bucketed_cuckoo_ref.hpp"
#include "gpuhash/linear_probing_ref.hpp"
#include <cooperative_groups.h>

template <class Ref>
__device__ void use_every_method(Ref ref, const typename Ref::key_type* keys,
                                 typename Ref::mapped_type* values, gpuhash::status* statuses,
                                 unsigned long long n) {
  const unsigned long long stride = 1ull * gridDim.x * blockDim.x;
  for (unsigned long long i = 1ull * blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const auto key = keys[i];
    statuses[i] = ref.insert(key, values[i]);
    ref.insert_or_assign(key, values[i]);
    ref.insert_or_apply(key, values[i], gpuhash::plus{});
    if (!ref.contains(key)) statuses[i] = ref.find(key, &values[i]);
    ref.erase(key);
  }
  if constexpr (Ref::cooperative_find_tile > 0) {
    namespace cg = cooperative_groups;
    const auto tile = cg::tiled_partition<Ref::cooperative_find_tile>(cg::this_thread_block());
    if (ref.contains(tile, keys[0])) ref.find(tile, keys[0], &values[0]);
  }
}
)";
  source += kernel<linear_probing_ref<std::uint32_t, std::uint32_t>>(
      "linear_probing_32", "gpuhash::linear_probing_ref<std::uint32_t, std::uint32_t>");
  source += kernel<linear_probing_ref<std::uint64_t, std::uint64_t>>(
      "linear_probing_64", "gpuhash::linear_probing_ref<std::uint64_t, std::uint64_t>");
  source += kernel<bucketed_cuckoo_ref<std::uint32_t, std::uint32_t>>(
      "bucketed_cuckoo_32", "gpuhash::bucketed_cuckoo_ref<std::uint32_t, std::uint32_t>");
  source += kernel<bucketed_cuckoo_ref<std::uint64_t, std::uint64_t>>(
      "bucketed_cuckoo_64", "gpuhash::bucketed_cuckoo_ref<std::uint64_t, std::uint64_t>");
  const compile_result compiled = compile(source);
  EXPECT_EQ(compiled.result, NVRTC_SUCCESS) << compiled.log;
}

// The check above can fail: a program that does not compile is reported.
TEST(nvrtc, a_broken_program_is_reported) {
  const compile_result compiled = compile("__global__ void broken() { no_such_type x; }\n");
  EXPECT_EQ(compiled.result, NVRTC_ERROR_COMPILATION);
  EXPECT_NE(compiled.log.find("no_such_type"), std::string::npos) << compiled.log;
}

}  // namespace
}  // namespace gpuhash::testing

# Decides whether the CUDA backend is built: it is when GPUHASH_CUDA is ON and
# CMake finds nvcc. Sets GPUHASH_HAS_CUDA for the rest of the build.
set(GPUHASH_HAS_CUDA OFF)
if(GPUHASH_CUDA)
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    # CMake 3.25 predates nvcc 13 and does not know how it spells C++20:
    # without this, a C++20 requirement reaching a CUDA target fails at
    # generation.
    if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    find_package(CUDAToolkit REQUIRED)
    set(GPUHASH_HAS_CUDA ON)
    message(STATUS "gpuhash: CUDA backend ON (architectures: ${CMAKE_CUDA_ARCHITECTURES})")
  else()
    message(STATUS "gpuhash: nvcc not found, building the CPU backend only")
  endif()
else()
  message(STATUS "gpuhash: CUDA backend OFF (GPUHASH_CUDA=OFF)")
endif()

# Settings for every target with .cu files of ours.
function(gpuhash_cuda_target target)
  set_target_properties(${target} PROPERTIES CUDA_STANDARD 20 CUDA_STANDARD_REQUIRED ON
                                             CUDA_EXTENSIONS OFF)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>
                         $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${GPUHASH_CUDA_LINEINFO}>>:-lineinfo>)
  set_target_properties(${target} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
endfunction()

# Decides whether the sharded map's NCCL exchange (gpuhash::nccl) is built:
# it is when the CUDA backend is and NCCL's header and library are found.
# NCCL is optional; without it everything else builds. Searched, in order:
#   GPUHASH_NCCL_ROOT   a folder with include/nccl.h and lib/libnccl.so*:
#                       the nvidia-nccl-cu13 wheel's site-packages/nvidia/nccl,
#                       or a system prefix
#   the wheel of the `python3` on PATH (the GPU machines' image has it)
#   the CUDA toolkit's folders (CUDA 13 images that bundle NCCL, as this
#   project's development and CI machines do) and the system's
# Sets GPUHASH_HAS_NCCL, GPUHASH_NCCL_INCLUDE_DIR and GPUHASH_NCCL_LIBRARY.
option(GPUHASH_NCCL "Build the sharded map's NCCL exchange when NCCL is found" ON)
set(GPUHASH_NCCL_ROOT "" CACHE PATH
    "NCCL's folder (include/nccl.h, lib/libnccl.so*), e.g. the nvidia-nccl-cu13 wheel's nvidia/nccl")
set(GPUHASH_HAS_NCCL OFF)

if(GPUHASH_HAS_CUDA AND GPUHASH_NCCL)
  set(nccl_hints ${GPUHASH_NCCL_ROOT})
  if(NOT GPUHASH_NCCL_ROOT)
    find_program(GPUHASH_PYTHON3 NAMES python3)
    if(GPUHASH_PYTHON3)
      execute_process(
        COMMAND "${GPUHASH_PYTHON3}" -c
                "import nvidia.nccl; print(list(nvidia.nccl.__path__)[0])"
        OUTPUT_VARIABLE nccl_wheel RESULT_VARIABLE nccl_wheel_status
        OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(nccl_wheel_status EQUAL 0 AND nccl_wheel)
        list(APPEND nccl_hints "${nccl_wheel}")
      endif()
    endif()
  endif()
  list(APPEND nccl_hints ${CUDAToolkit_LIBRARY_ROOT})
  find_path(GPUHASH_NCCL_INCLUDE_DIR nccl.h HINTS ${nccl_hints} PATH_SUFFIXES include)
  # The library beside the header first, so that the two are one release;
  # each folder is searched for both names before the next (the wheel ships
  # libnccl.so.2 only, no libnccl.so link).
  if(GPUHASH_NCCL_INCLUDE_DIR)
    get_filename_component(nccl_prefix "${GPUHASH_NCCL_INCLUDE_DIR}" DIRECTORY)
    list(PREPEND nccl_hints "${nccl_prefix}")
  endif()
  find_library(GPUHASH_NCCL_LIBRARY NAMES nccl libnccl.so.2 NAMES_PER_DIR HINTS ${nccl_hints}
               PATH_SUFFIXES lib lib64)
  if(GPUHASH_NCCL_INCLUDE_DIR AND GPUHASH_NCCL_LIBRARY)
    file(STRINGS "${GPUHASH_NCCL_INCLUDE_DIR}/nccl.h" nccl_version_lines
         REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) +[0-9]+")
    set(nccl_version "")
    foreach(part MAJOR MINOR PATCH)
      string(REGEX MATCH "NCCL_${part} +([0-9]+)" _ "${nccl_version_lines}")
      list(APPEND nccl_version ${CMAKE_MATCH_1})
    endforeach()
    list(JOIN nccl_version "." nccl_version)
    # ncclCommFinalize (the exchange's shutdown) arrived in 2.14.
    if(nccl_version VERSION_LESS 2.14)
      message(STATUS "gpuhash: NCCL ${nccl_version} at ${GPUHASH_NCCL_LIBRARY} is older than "
                     "2.14: the sharded map's NCCL exchange is not built")
    else()
      set(GPUHASH_HAS_NCCL ON)
      message(STATUS "gpuhash: NCCL ${nccl_version} (${GPUHASH_NCCL_LIBRARY}): the sharded map's "
                     "NCCL exchange is built (gpuhash::nccl)")
    endif()
  else()
    message(STATUS "gpuhash: NCCL not found (set GPUHASH_NCCL_ROOT): the sharded map's NCCL "
                   "exchange is not built")
  endif()
endif()

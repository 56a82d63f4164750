# Warnings for our own targets: -Wall -Wextra everywhere, passed through nvcc to the
# host compiler for .cu files. GPUHASH_WERROR turns them into errors (the test
# script and CI do; a user's build does not).
function(gpuhash_set_warnings target)
  set(cxx_flags -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
  set(cuda_host_flags -Wall -Wextra)
  # GCC 12 reports -Wrestrict inside libstdc++'s std::string operator+ at -O3,
  # a false positive (GCC bug 105651), in .cu files' host code too.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    list(APPEND cxx_flags -Wno-restrict)
    list(APPEND cuda_host_flags -Wno-restrict)
  endif()
  if(GPUHASH_WERROR)
    list(APPEND cxx_flags -Werror)
  endif()
  list(JOIN cuda_host_flags "," cuda_host)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${cxx_flags}>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${cuda_host}>
    $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${GPUHASH_WERROR}>>:-Werror=all-warnings>)
endfunction()

# Warnings for our own targets: -Wall -Wextra everywhere, passed through nvcc to the
# host compiler for .cu files. GPUHASH_WERROR turns them into errors (the test
# script and CI do; a user's build does not).
function(gpuhash_set_warnings target)
  set(cxx_flags -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
  # GCC 12 reports -Wrestrict inside libstdc++'s std::string operator+ at -O3,
  # a false positive (GCC bug 105651).
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    list(APPEND cxx_flags -Wno-restrict)
  endif()
  if(GPUHASH_WERROR)
    list(APPEND cxx_flags -Werror)
  endif()
  list(JOIN cxx_flags "," host_flags)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${cxx_flags}>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>
    $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${GPUHASH_WERROR}>>:-Werror=all-warnings>)
endfunction()

# `cmake --install` puts headers, the libraries and a package config in place so
# that a user's project can `find_package(gpuhash)` and link gpuhash::gpuhash
# (and gpuhash::cuda when the library was built with CUDA, gpuhash::nccl with
# NCCL).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(gpuhash_install_targets gpuhash)
if(GPUHASH_HAS_CUDA)
  list(APPEND gpuhash_install_targets gpuhash_cuda)
endif()
if(GPUHASH_HAS_NCCL)
  list(APPEND gpuhash_install_targets gpuhash_nccl)
endif()

install(TARGETS ${gpuhash_install_targets} EXPORT gpuhashTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/gpuhash DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT gpuhashTargets NAMESPACE gpuhash:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpuhash)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gpuhashConfig.cmake.in
  ${PROJECT_BINARY_DIR}/gpuhashConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpuhash)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gpuhashConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gpuhashConfig.cmake ${PROJECT_BINARY_DIR}/gpuhashConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpuhash)

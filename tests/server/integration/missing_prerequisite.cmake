# Stands in for an integration test whose prerequisite was missing when the
# build was configured (see CMakeLists.txt): fails with the reason.
#   cmake -DMESSAGE=... -P missing_prerequisite.cmake
message(FATAL_ERROR "${MESSAGE}")

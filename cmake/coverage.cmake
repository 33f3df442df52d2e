# Coverage (the coverage preset): every target compiled with gcc's --coverage, the counters
# updated atomically (-fprofile-update=atomic: with plain increments two threads lose updates,
# and gcov then reads negative counts that gcovr refuses). Two targets around the test run:
#   coverage_reset   deletes the counters (*.gcda) of earlier runs and of the build (gtest's
#                    test discovery runs every test binary); the workflow's step after the
#                    build, so that the report counts one ctest run;
#   coverage_report  runs tools/coverage.py: gcovr over the counters, line and branch coverage
#                    of forkjoin/, include/ and omp/ apiece, the uncovered branches listed, an
#                    HTML report; everything in build/coverage/coverage/ (the build tree only).
# The rule for which branches count is tools/coverage.py's (its header says it and why).
option(FORKJOIN_COVERAGE "Build with gcc --coverage and add the coverage_reset/coverage_report targets" OFF)
if(NOT FORKJOIN_COVERAGE)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  message(FATAL_ERROR "FORKJOIN_COVERAGE needs g++ (gcov's counters), not ${CMAKE_CXX_COMPILER_ID}")
endif()
add_compile_options(--coverage -fprofile-update=atomic)
add_link_options(--coverage)
# Code that ends without exit() (omp fatal()'s abort, a fork()ed test child's _exit) calls
# libgcov's __gcov_dump first when FORKJOIN_COVERAGE_BUILD is defined. (A weak reference
# tested at run time does not work: with --coverage gcc drops the test and the call.)
add_compile_definitions(FORKJOIN_COVERAGE_BUILD)

find_package(Python3 COMPONENTS Interpreter REQUIRED)
find_program(FORKJOIN_GCOVR gcovr REQUIRED)
# gcov must be the one of the compiler that wrote the notes: g++-12 -> gcov-12 when it exists.
get_filename_component(_forkjoin_cxx_real "${CMAKE_CXX_COMPILER}" REALPATH)
get_filename_component(_forkjoin_cxx_name "${_forkjoin_cxx_real}" NAME)
string(REGEX REPLACE "^(.*-)?g\\+\\+" "\\1gcov" _forkjoin_gcov_name "${_forkjoin_cxx_name}")
find_program(FORKJOIN_GCOV NAMES ${_forkjoin_gcov_name} gcov REQUIRED)

set(_forkjoin_coverage_script ${PROJECT_SOURCE_DIR}/tools/coverage.py)
add_custom_target(coverage_reset
  COMMAND ${Python3_EXECUTABLE} ${_forkjoin_coverage_script} reset --build ${PROJECT_BINARY_DIR}
  COMMENT "Deleting the coverage counters of earlier runs"
  VERBATIM)
add_custom_target(coverage_report
  COMMAND ${Python3_EXECUTABLE} ${_forkjoin_coverage_script} report --source ${PROJECT_SOURCE_DIR}
          --build ${PROJECT_BINARY_DIR} --gcovr ${FORKJOIN_GCOVR} --gcov ${FORKJOIN_GCOV}
  COMMENT "Coverage of forkjoin/, include/ and omp/ (tools/coverage.py)"
  USES_TERMINAL
  VERBATIM)

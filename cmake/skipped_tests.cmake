# forkjoin_skipped_tests(<what> <why> [LABELS <labels>]): the tests of <what> are not
# registered because something they need is missing. Says so at configure time, and registers
# in their place one test, named "<what>: skipped, <why>", that ctest reports as skipped, so
# the reason shows in the test run too (ctest's closing list of the tests that did not run).
# <why> names what is missing and the Debian package that brings it. LABELS: those the missing
# tests carry, so the presets that would run them list the placeholder instead.
function(forkjoin_skipped_tests what why)
  cmake_parse_arguments(arg "" "" "LABELS" ${ARGN})
  message(STATUS "forkjoin: ${what}: skipped, ${why}")
  set(name "${what}: skipped, ${why}")
  add_test(NAME "${name}" COMMAND ${CMAKE_COMMAND} -E echo "SKIPPED: ${what} not registered: ${why}")
  set_tests_properties("${name}" PROPERTIES SKIP_REGULAR_EXPRESSION "^SKIPPED: " TIMEOUT 30)
  if(arg_LABELS)
    set_tests_properties("${name}" PROPERTIES LABELS "${arg_LABELS}")
  endif()
endfunction()

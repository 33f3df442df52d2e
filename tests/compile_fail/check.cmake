# Compile-fail check, run by ctest as `cmake -P`. Compiles SOURCE twice with -fsyntax-only:
# as is (the valid variant: must compile, so the harness and the file are sound), then with
# -DFORKJOIN_COMPILE_FAIL (the misuse: must fail with exactly one error, whose line matches
# EXPECT, a regular expression naming the problem: the first thing the user reads says what
# is wrong, and nothing follows it). So the test fails if the misuse compiles, if it fails
# for another reason, or if the message is followed by other errors.
# Inputs (-D): CXX, INCLUDE_DIR, SOURCE, EXPECT.
foreach(v CXX INCLUDE_DIR SOURCE EXPECT)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "check.cmake: -D${v}=... is required")
  endif()
endforeach()
set(cmd ${CXX} -std=c++20 -fsyntax-only -I${INCLUDE_DIR} ${SOURCE})

execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the valid variant of ${SOURCE} does not compile:\n${out}")
endif()

execute_process(COMMAND ${cmd} -DFORKJOIN_COMPILE_FAIL RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled with FORKJOIN_COMPILE_FAIL; it must be rejected")
endif()
# g++ and clang both write "file:line:col: error: ..." (clang's "1 error generated." has no colon).
string(REGEX MATCHALL "[^\n]*error: [^\n]*" errors "${out}")
list(LENGTH errors count)
if(count EQUAL 0)
  message(FATAL_ERROR "${SOURCE} failed without an error line:\n${out}")
endif()
list(GET errors 0 first)
if(NOT first MATCHES "${EXPECT}")
  message(FATAL_ERROR "${SOURCE}: the first error is not the expected one ('${EXPECT}'):\n${first}\n\nfull output:\n${out}")
endif()
if(NOT count EQUAL 1)
  message(FATAL_ERROR "${SOURCE}: ${count} errors, expected only the first one:\n${out}")
endif()
message(STATUS "rejected with one error, as expected: ${first}")

# Compile-fail check, run by ctest as `cmake -P`. Compiles SOURCE twice with -fsyntax-only:
# as is (the valid variant: must compile, so the harness and the file are sound), then with
# -DFORKJOIN_COMPILE_FAIL (the misuse: must fail, and the diagnostics must contain EXPECT,
# a regular expression naming the problem). So the test fails if the misuse compiles or if
# it fails for any other reason.
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
if(NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "${SOURCE} failed, but without the expected diagnostic '${EXPECT}':\n${out}")
endif()
message(STATUS "rejected as expected ('${EXPECT}')")

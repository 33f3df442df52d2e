# Installed-package test, run by ctest as `cmake -P`: configure and build the library alone
# with a temporary install prefix, `cmake --install` it, then build and run two consumers
# against the installed files only: one through find_package(forkjoin CONFIG), one through
# `pkg-config --cflags --libs forkjoin`.
# Inputs (-D): SOURCE_DIR (forkjoin's root), WORK_DIR (scratch), CXX (compiler), GENERATOR.
foreach(v SOURCE_DIR WORK_DIR CXX GENERATOR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run.cmake: -D${v}=... is required")
  endif()
endforeach()

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
  endif()
  message(STATUS "${what}: ok")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")

run_step("configure forkjoin (library only)"
  ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK_DIR}/lib" -G "${GENERATOR}" -DCMAKE_CXX_COMPILER=${CXX}
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=${prefix} -DFORKJOIN_BUILD_TESTS=OFF
  -DFORKJOIN_BUILD_EXAMPLES=OFF -DFORKJOIN_BUILD_BENCHMARKS=OFF)
run_step("build forkjoin" ${CMAKE_COMMAND} --build "${WORK_DIR}/lib")
run_step("cmake --install" ${CMAKE_COMMAND} --install "${WORK_DIR}/lib")

# Consumer 1: find_package.
run_step("configure the find_package consumer"
  ${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}/consumer" -B "${WORK_DIR}/consumer" -G "${GENERATOR}"
  -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${prefix})
run_step("build the find_package consumer" ${CMAKE_COMMAND} --build "${WORK_DIR}/consumer")
run_step("run the find_package consumer" "${WORK_DIR}/consumer/consumer")

# Consumer 2: pkg-config, with the compiler alone.
find_program(PKG_CONFIG pkg-config REQUIRED)
set(ENV{PKG_CONFIG_PATH} "")
file(GLOB pc_dirs "${prefix}/*/pkgconfig" "${prefix}/*/*/pkgconfig")
string(REPLACE ";" ":" pc_path "${pc_dirs}")
set(ENV{PKG_CONFIG_LIBDIR} "${pc_path}")  # only the installed package, never the system's
run_step("pkg-config --cflags --libs forkjoin" ${PKG_CONFIG} --cflags --libs forkjoin)
string(STRIP "${step_output}" flags)
string(FIND "${flags}" "-L${prefix}/" at)
if(at EQUAL -1)
  message(FATAL_ERROR "pkg-config's -L does not point into the install prefix ${prefix}: ${flags}")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
run_step("build the pkg-config consumer"
  ${CXX} "${CMAKE_CURRENT_LIST_DIR}/consumer/main.cpp" -o "${WORK_DIR}/consumer_pc" ${flags})
run_step("run the pkg-config consumer" "${WORK_DIR}/consumer_pc")

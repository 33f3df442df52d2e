# Installed-package test, run by ctest as `cmake -P`. Configures the library the way a new
# user does (no option, not even the install prefix, and with every optional dependency
# hidden: a library-only build needs CMake and a compiler alone), builds it and installs it
# with `cmake --install --prefix` into a temporary prefix other than the configured one,
# checks what was installed (nothing names the configured prefix), then builds and runs
# consumers of each kind against it:
#  - find_package(forkjoin CONFIG) (consumer/, plus the forkjoin::omp programs with gcc);
#  - pkg-config forkjoin in C++20 and C++23 (and a C++17 build must stop on forkjoin's own
#    message first), pkg-config forkjoin-omp (a program built with it under gcc); every -I
#    and -L they give is a folder of the prefix holding the package's files;
#  - the prefix moved elsewhere: pkg-config and find_package follow it (relocatable);
#  - add_subdirectory of the sources, and FetchContent from them (configured only: it adds
#    the same directory). libforkjoin-omp is left out of these two: its build-tree usage is
#    what tests/omp link against, and building it twice more would double the test's time.
# Inputs (-D): SOURCE_DIR (forkjoin's root), WORK_DIR (scratch), CXX (compiler), CXX_ID
# (its CMAKE_CXX_COMPILER_ID), GENERATOR.
foreach(v SOURCE_DIR WORK_DIR CXX CXX_ID GENERATOR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run.cmake: -D${v}=... is required")
  endif()
endforeach()

function(run_step what)
  string(TIMESTAMP t0 "%s")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
  endif()
  string(TIMESTAMP t1 "%s")
  math(EXPR secs "${t1} - ${t0}")
  message(STATUS "${what}: ok (${secs} s)")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

function(expect_no what file pattern)
  file(READ "${file}" text)
  string(FIND "${text}" "${pattern}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "${what}: ${file} contains '${pattern}':\n${text}")
  endif()
  message(STATUS "${what}: ok")
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
set(gnu OFF)
if(CXX_ID STREQUAL "GNU")
  set(gnu ON)  # libforkjoin-omp's consumers need gcc's -fopenmp (the libgomp ABI)
endif()

# The library alone, as a new user configures it: no FORKJOIN_* option, and none of the
# test, benchmark and example dependencies visible.
set(hidden "")
foreach(pkg GTest benchmark TBB OpenMP MPI Python3)
  list(APPEND hidden -DCMAKE_DISABLE_FIND_PACKAGE_${pkg}=ON)
endforeach()
run_step("configure forkjoin with the defaults and no optional dependency"
  ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK_DIR}/lib" -G "${GENERATOR}" -DCMAKE_CXX_COMPILER=${CXX} ${hidden})
run_step("build forkjoin" ${CMAKE_COMMAND} --build "${WORK_DIR}/lib")
# The prefix is given at install time only, as the README does: the configured one (the
# default, /usr/local) must not leak into what is installed.
file(STRINGS "${WORK_DIR}/lib/CMakeCache.txt" configured_prefix REGEX "^CMAKE_INSTALL_PREFIX:")
string(REGEX REPLACE "^[^=]*=" "" configured_prefix "${configured_prefix}")
if(configured_prefix STREQUAL "" OR configured_prefix STREQUAL prefix)
  message(FATAL_ERROR "the configured install prefix '${configured_prefix}' must differ from ${prefix}")
endif()
run_step("cmake --install --prefix ${prefix} (configured for ${configured_prefix})"
  ${CMAKE_COMMAND} --install "${WORK_DIR}/lib" --prefix "${prefix}")
file(GLOB_RECURSE package_texts "${prefix}/*.pc" "${prefix}/*.cmake" "${prefix}/bin/*")
if(NOT package_texts)
  message(FATAL_ERROR "no .pc, .cmake or bin/ file installed under ${prefix}")
endif()
foreach(f IN LISTS package_texts)
  file(RELATIVE_PATH name "${prefix}" "${f}")
  expect_no("${name} does not name the configured prefix" "${f}" "${configured_prefix}/")
endforeach()

# What was installed: usage requirements as compile features, never as flags.
file(GLOB targets_file "${prefix}/*/cmake/forkjoin/forkjoin-targets.cmake")
file(GLOB pc_dirs "${prefix}/*/pkgconfig" "${prefix}/*/*/pkgconfig")
expect_no("no generator expression left in the exported targets" "${targets_file}" "$<")
file(STRINGS "${targets_file}" features REGEX "INTERFACE_COMPILE_FEATURES \"cxx_std_20\"")
list(LENGTH features n)
if(NOT n EQUAL 2)
  message(FATAL_ERROR "forkjoin::forkjoin and forkjoin::omp must both carry cxx_std_20 (found ${n}):\n"
                      "${features}")
endif()
foreach(pc forkjoin forkjoin-omp)
  if(NOT EXISTS "${pc_dirs}/${pc}.pc")
    message(FATAL_ERROR "${pc}.pc was not installed in ${pc_dirs}")
  endif()
  expect_no("${pc}.pc leaves the language standard to the user" "${pc_dirs}/${pc}.pc" "-std=")
endforeach()

# The trace report is installed as a command that runs.
run_step("forkjoin-trace-report --help" "${prefix}/bin/forkjoin-trace-report" --help)
if(NOT step_output MATCHES "usage: forkjoin-trace-report")
  message(FATAL_ERROR "forkjoin-trace-report --help printed:\n${step_output}")
endif()

# find_package, and with gcc the libforkjoin-omp programs.
run_step("configure the find_package consumer"
  ${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}/consumer" -B "${WORK_DIR}/consumer" -G "${GENERATOR}"
  -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${prefix} -DFORKJOIN_CONSUMER_OMP=${gnu})
run_step("build the find_package consumer" ${CMAKE_COMMAND} --build "${WORK_DIR}/consumer")
run_step("run the find_package consumer" "${WORK_DIR}/consumer/app")
if(gnu)
  run_step("run the OpenMP C program linked to forkjoin::omp" "${WORK_DIR}/consumer/prog")
  run_step("run the OpenMP + forkjoin program linked to forkjoin::omp" "${WORK_DIR}/consumer/mixed")
endif()

# pkg-config, with the compiler alone, seeing only the installed package.
find_program(PKG_CONFIG pkg-config REQUIRED)
set(ENV{PKG_CONFIG_PATH} "")
set(ENV{PKG_CONFIG_LIBDIR} "${pc_dirs}")
# pkg_config_flags(<out> <package> <library file> <prefix>): pkg-config --cflags --libs of the
# package, as a list, after checking that every -I and -L folder lies in <prefix> (after
# resolving ..) and that they hold forkjoin's headers and <library file>.
function(pkg_config_flags out package library where)
  run_step("pkg-config --cflags --libs ${package}" ${PKG_CONFIG} --cflags --libs ${package})
  string(STRIP "${step_output}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  set(found_header OFF)
  set(found_library OFF)
  foreach(flag IN LISTS flags)
    if(NOT flag MATCHES "^-[IL](.*)")
      continue()
    endif()
    file(REAL_PATH "${CMAKE_MATCH_1}" dir)
    file(REAL_PATH "${where}" root)
    cmake_path(IS_PREFIX root "${dir}" NORMALIZE inside)
    if(NOT inside OR NOT IS_DIRECTORY "${dir}")
      message(FATAL_ERROR "pkg-config ${package}: ${flag} is not a folder of the prefix ${where}: ${flags}")
    endif()
    if(EXISTS "${dir}/forkjoin/forkjoin.hpp")
      set(found_header ON)
    endif()
    if(EXISTS "${dir}/${library}")
      set(found_library ON)
    endif()
  endforeach()
  if(NOT found_header OR NOT found_library)
    message(FATAL_ERROR "pkg-config ${package}: no -I folder with forkjoin/forkjoin.hpp or no -L folder with "
                        "${library} in ${where}: ${flags}")
  endif()
  message(STATUS "pkg-config ${package}: its -I and -L folders are in ${where}: ok")
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()
pkg_config_flags(flags forkjoin libforkjoin.a "${prefix}")
pkg_config_flags(omp_flags forkjoin-omp libforkjoin-omp.so "${prefix}")
set(main "${CMAKE_CURRENT_LIST_DIR}/consumer/main.cpp")
run_step("build the pkg-config consumer (C++20)" ${CXX} -std=c++20 "${main}" -o "${WORK_DIR}/consumer_pc" ${flags})
run_step("run the pkg-config consumer" "${WORK_DIR}/consumer_pc")
run_step("compile the pkg-config consumer as C++23 (the package does not lower it)"
  ${CXX} -std=c++2b -fsyntax-only "${main}" ${flags})
execute_process(COMMAND ${CXX} -std=c++17 -fsyntax-only "${main}" ${flags} RESULT_VARIABLE rc ERROR_VARIABLE out
  OUTPUT_VARIABLE out)
string(REGEX MATCH "error[^\n]*" first_error "${out}")
if(rc EQUAL 0 OR NOT first_error MATCHES "forkjoin needs C\\+\\+20")
  message(FATAL_ERROR "a C++17 build must stop first on 'forkjoin needs C++20', got:\n${out}")
endif()
message(STATUS "a C++17 build stops on: ${first_error}")
if(gnu)
  run_step("build the OpenMP + forkjoin program with pkg-config forkjoin-omp"
    ${CXX} -std=c++20 -fopenmp -c "${CMAKE_CURRENT_LIST_DIR}/consumer/mixed.cpp" -o "${WORK_DIR}/mixed_pc.o"
    ${omp_flags})
  run_step("link it without -fopenmp"
    ${CXX} "${WORK_DIR}/mixed_pc.o" -o "${WORK_DIR}/mixed_pc" ${omp_flags} -Wl,-rpath,${prefix}/lib)
  run_step("run it" "${WORK_DIR}/mixed_pc")
  run_step("ldd: libforkjoin-omp, never libgomp" ldd "${WORK_DIR}/mixed_pc")
  if(NOT step_output MATCHES "libforkjoin-omp" OR step_output MATCHES "libgomp")
    message(FATAL_ERROR "mixed_pc must load libforkjoin-omp and not libgomp:\n${step_output}")
  endif()
endif()

# Relocatable: the installed tree moved elsewhere (the old place gone) still works through
# pkg-config (a program built and run) and find_package (configured: the exported targets
# check that their files exist).
set(moved "${WORK_DIR}/moved/prefix")
file(MAKE_DIRECTORY "${WORK_DIR}/moved")
file(RENAME "${prefix}" "${moved}")
string(REPLACE "${prefix}" "${moved}" moved_pc_dirs "${pc_dirs}")
set(ENV{PKG_CONFIG_LIBDIR} "${moved_pc_dirs}")
pkg_config_flags(flags forkjoin libforkjoin.a "${moved}")
pkg_config_flags(omp_flags forkjoin-omp libforkjoin-omp.so "${moved}")
run_step("build the pkg-config consumer from the moved prefix" ${CXX} -std=c++20 "${main}" -o "${WORK_DIR}/consumer_moved"
  ${flags})
run_step("run it" "${WORK_DIR}/consumer_moved")
unset(ENV{PKG_CONFIG_LIBDIR})
run_step("configure the find_package consumer against the moved prefix"
  ${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}/consumer" -B "${WORK_DIR}/consumer_moved_cmake" -G "${GENERATOR}"
  -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${moved} -DFORKJOIN_CONSUMER_OMP=${gnu})

# add_subdirectory: a project with a copy of forkjoin (here a link to the sources) as ./forkjoin.
file(COPY "${CMAKE_CURRENT_LIST_DIR}/consumer/" DESTINATION "${WORK_DIR}/subdir_src")
file(CREATE_LINK "${SOURCE_DIR}" "${WORK_DIR}/subdir_src/forkjoin" SYMBOLIC)
run_step("configure the add_subdirectory consumer"
  ${CMAKE_COMMAND} -S "${WORK_DIR}/subdir_src" -B "${WORK_DIR}/subdir" -G "${GENERATOR}" -DCMAKE_CXX_COMPILER=${CXX}
  -DFORKJOIN_CONSUME=add_subdirectory)
run_step("build the add_subdirectory consumer" ${CMAKE_COMMAND} --build "${WORK_DIR}/subdir")
run_step("run the add_subdirectory consumer" "${WORK_DIR}/subdir/app")

# FetchContent from a local path (a Git URL is declared the same way). Configured and
# generated only: generating fails if forkjoin::forkjoin is not defined, and what it builds
# is what the add_subdirectory consumer built and ran (FetchContent_MakeAvailable adds the
# same directory).
run_step("configure and generate the FetchContent consumer"
  ${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}/consumer" -B "${WORK_DIR}/fetch" -G "${GENERATOR}"
  -DCMAKE_CXX_COMPILER=${CXX} -DFORKJOIN_CONSUME=FetchContent -DFORKJOIN_DIR=${SOURCE_DIR})

# The Debian package (CPack, the top-level CMakeLists.txt) of the same build: made by cpack,
# unpacked into a clean root (what dpkg -i writes, without touching the system), its files
# and fields checked, pkg-config's folders too, then the find_package consumer built and run
# against the root alone.
find_program(DPKG_DEB dpkg-deb)
if(DPKG_DEB)
  run_step("cpack -G DEB" ${CMAKE_CPACK_COMMAND} -G DEB --config "${WORK_DIR}/lib/CPackConfig.cmake" -B "${WORK_DIR}/deb")
  file(GLOB debs "${WORK_DIR}/deb/forkjoin_*.deb")
  list(LENGTH debs n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "cpack -G DEB: expected one forkjoin_*.deb in ${WORK_DIR}/deb, found: ${debs}")
  endif()
  run_step("dpkg-deb --info" ${DPKG_DEB} --info ${debs})
  foreach(field "Package: forkjoin" "Depends: " "libstdc++6")
    string(FIND "${step_output}" "${field}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "dpkg-deb --info: no '${field}' in:\n${step_output}")
    endif()
  endforeach()
  set(root "${WORK_DIR}/deb-root")
  run_step("unpack the package into a clean root" ${DPKG_DEB} -x ${debs} "${root}")
  foreach(f usr/include/forkjoin/forkjoin.hpp usr/bin/forkjoin-trace-report)
    if(NOT EXISTS "${root}/${f}")
      message(FATAL_ERROR "the package lacks /${f}")
    endif()
  endforeach()
  file(GLOB_RECURSE config "${root}/usr/*/forkjoin-config.cmake")
  file(GLOB_RECURSE omp_libs "${root}/usr/*/libforkjoin-omp.so")
  if(NOT config OR NOT omp_libs)
    message(FATAL_ERROR "the package lacks forkjoin-config.cmake or libforkjoin-omp.so")
  endif()
  file(GLOB deb_pc_dirs "${root}/usr/*/pkgconfig" "${root}/usr/*/*/pkgconfig")
  set(ENV{PKG_CONFIG_LIBDIR} "${deb_pc_dirs}")
  pkg_config_flags(flags forkjoin libforkjoin.a "${root}/usr")
  pkg_config_flags(omp_flags forkjoin-omp libforkjoin-omp.so "${root}/usr")
  unset(ENV{PKG_CONFIG_LIBDIR})
  run_step("configure the find_package consumer against the package's root"
    ${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}/consumer" -B "${WORK_DIR}/consumer_deb" -G "${GENERATOR}"
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${root}/usr -DFORKJOIN_CONSUMER_OMP=${gnu})
  run_step("build it" ${CMAKE_COMMAND} --build "${WORK_DIR}/consumer_deb")
  run_step("run it" "${WORK_DIR}/consumer_deb/app")
  if(gnu)
    run_step("run its OpenMP + forkjoin program" "${WORK_DIR}/consumer_deb/mixed")
  endif()
else()
  message(STATUS "the Debian package: not checked, no dpkg-deb")
endif()

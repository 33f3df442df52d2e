# LLVM's OpenMP ABI (the KMPC front-end, [P-OMP KMPC] in omp/DESIGN.md): the construct
# programs compiled by clang 14, linked against libforkjoin-omp (run with OMP_NUM_THREADS 1, 2,
# 3, 8) and, outside sanitizer builds, compiled and linked the ordinary way against libomp and
# run under the forkjoin-omp launcher and in replace mode; the bindings checks; a gcc-built
# OpenMP library called from a clang-built program (one set of threads). Included by
# CMakeLists.txt of this directory; clang is not the build's compiler, so the programs are
# built by custom commands. Registered when clang-14 and libomp's omp.h are found.
find_program(FORKJOIN_OMP_CLANG NAMES clang-14)
find_program(FORKJOIN_OMP_CLANGXX NAMES clang++-14)
if(NOT FORKJOIN_OMP_CLANG OR NOT FORKJOIN_OMP_CLANGXX)
  message(STATUS "tests/omp: the clang (KMPC) tests are skipped: clang-14 not found")
  return()
endif()
execute_process(COMMAND ${FORKJOIN_OMP_CLANG} -print-resource-dir OUTPUT_VARIABLE _clang_resource
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT EXISTS "${_clang_resource}/include/omp.h")
  message(STATUS "tests/omp: the clang (KMPC) tests are skipped: clang-14 has no omp.h (libomp-14-dev)")
  return()
endif()

set(_kmpc_dir ${CMAKE_CURRENT_BINARY_DIR}/kmpc)
file(MAKE_DIRECTORY ${_kmpc_dir})
set(_kmpc_cflags -O2 -g -fopenmp -w -I${CMAKE_CURRENT_SOURCE_DIR})
# A sanitizer build's library needs its (gcc's) runtime loaded first: the clang-built programs
# are not instrumented, so they name it as their first dependency.
set(_kmpc_san_libs "")
if(FORKJOIN_SANITIZE)
  list(APPEND _kmpc_cflags -DFORKJOIN_TEST_SANITIZED=1)  # the runtimes' helper threads (mixed_main.c)
endif()
if("address" IN_LIST FORKJOIN_SANITIZE)
  foreach(_lib libasan.so libubsan.so)
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=${_lib} OUTPUT_VARIABLE _path
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    list(APPEND _kmpc_san_libs ${_path})
  endforeach()
elseif("thread" IN_LIST FORKJOIN_SANITIZE)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libtsan.so OUTPUT_VARIABLE _path
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  list(APPEND _kmpc_san_libs ${_path})
endif()
set(_kmpc_outputs "")

# forkjoin_omp_clang_program(NAME SOURCE LINK [FLAGS...]): clang-compiles SOURCE (once per
# NAME's stem, NAME without a "_libomp" suffix) and links ${_kmpc_dir}/NAME; LINK is "forkjoin"
# (against libforkjoin-omp, never libomp) or "libomp" (clang -fopenmp's ordinary link).
function(forkjoin_omp_clang_program name source link)
  string(REGEX REPLACE "_libomp$" "" stem ${name})
  set(out ${_kmpc_dir}/${name})
  set(obj ${_kmpc_dir}/${stem}.o)
  set(cc ${FORKJOIN_OMP_CLANG})
  if(source MATCHES "[.]cpp$")
    set(cc ${FORKJOIN_OMP_CLANGXX})
  endif()
  get_property(compiled GLOBAL PROPERTY _forkjoin_kmpc_${stem} SET)
  if(NOT compiled)
    set_property(GLOBAL PROPERTY _forkjoin_kmpc_${stem} 1)
    add_custom_command(OUTPUT ${obj}
      COMMAND ${cc} ${_kmpc_cflags} ${ARGN} -c ${source} -o ${obj}
      DEPENDS ${source} ${CMAKE_CURRENT_SOURCE_DIR}/check.h
      COMMENT "clang-14 -fopenmp -c ${stem}" VERBATIM)
  endif()
  if(link STREQUAL "forkjoin")
    set(link_cmd ${cc} -Wl,--no-as-needed ${_kmpc_san_libs} -Wl,--as-needed ${obj} -o ${out}
                 $<TARGET_FILE:forkjoin_omp> -Wl,-rpath,$<TARGET_FILE_DIR:forkjoin_omp> -latomic -lm -lpthread)
    set(deps forkjoin_omp)
  else()
    set(link_cmd ${cc} -fopenmp ${obj} -o ${out} -latomic -lm -lpthread)
    set(deps "")
  endif()
  add_custom_command(OUTPUT ${out} COMMAND ${link_cmd} DEPENDS ${obj} ${deps} COMMENT "link ${name}" VERBATIM)
  set(_kmpc_outputs ${_kmpc_outputs} ${out} PARENT_SCOPE)
endfunction()

# The construct programs of this directory that are compiler-neutral C, and the KMPC ones.
set(FORKJOIN_OMP_CLANG_TESTS parallel nested loops loops_ull ordered single critical sections barrier tasks taskloop
    depend locks api cancel task_reduction doacross detach kmpc_constructs kmpc_tasks kmpc_teams kmpc_args kmpc_atomic)
# not scan.c: clang 14 leaves the original of a parallel for reduction(inscan, ...) without its final
# value, on libomp as here
if(NOT FORKJOIN_SANITIZE)
  list(APPEND FORKJOIN_OMP_CLANG_TESTS fork)  # see FORKJOIN_OMP_TESTS: fork under the sanitizers
endif()
foreach(name IN LISTS FORKJOIN_OMP_CLANG_TESTS)
  forkjoin_omp_clang_program(omp_${name}_clang ${CMAKE_CURRENT_SOURCE_DIR}/${name}.c forkjoin)
  foreach(n 1 2 3 8)
    add_test(NAME omp_${name}_clang_${n} COMMAND ${_kmpc_dir}/omp_${name}_clang)
    set_tests_properties(omp_${name}_clang_${n} PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=${n}" TIMEOUT 60
                         LABELS "omp;kmpc")
  endforeach()
endforeach()
foreach(n 1 2 3 8)
  add_test(NAME omp_cancel_on_clang_${n} COMMAND ${_kmpc_dir}/omp_cancel_clang)
  set_tests_properties(omp_cancel_on_clang_${n} PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=${n};OMP_CANCELLATION=true"
                       TIMEOUT 60 LABELS "omp;kmpc")
endforeach()
foreach(sched static static,3 guided,2 dynamic,4)
  string(REPLACE "," "_" _sched_name ${sched})
  foreach(name doacross kmpc_constructs)
    add_test(NAME omp_${name}_clang_schedule_${_sched_name} COMMAND ${_kmpc_dir}/omp_${name}_clang)
    set_tests_properties(omp_${name}_clang_schedule_${_sched_name} PROPERTIES
                         ENVIRONMENT "OMP_NUM_THREADS=3;OMP_SCHEDULE=${sched}" TIMEOUT 60 LABELS "omp;kmpc")
  endforeach()
endforeach()
# threadprivate without TLS (__kmpc_threadprivate_cached, _register for C++ objects), and C++
# objects in tasks (destructor thunks, task_dup)
forkjoin_omp_clang_program(omp_kmpc_threadprivate_clang ${CMAKE_CURRENT_SOURCE_DIR}/kmpc_threadprivate.c forkjoin
                           -fnoopenmp-use-tls)
forkjoin_omp_clang_program(omp_kmpc_cxx_clang ${CMAKE_CURRENT_SOURCE_DIR}/kmpc_cxx.cpp forkjoin -fnoopenmp-use-tls)
foreach(name kmpc_threadprivate kmpc_cxx)
  foreach(n 1 3 8)
    add_test(NAME omp_${name}_clang_${n} COMMAND ${_kmpc_dir}/omp_${name}_clang)
    set_tests_properties(omp_${name}_clang_${n} PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=${n}" TIMEOUT 60
                         LABELS "omp;kmpc")
  endforeach()
endforeach()

# The exported set under VERSION against LLVM's libomp.so.5, when it is installed.
execute_process(COMMAND ${FORKJOIN_OMP_CLANG} -print-file-name=libomp.so.5 OUTPUT_VARIABLE FORKJOIN_OMP_LIBOMP
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(IS_ABSOLUTE "${FORKJOIN_OMP_LIBOMP}" AND EXISTS "${FORKJOIN_OMP_LIBOMP}")
  add_test(NAME omp_kmpc_exported_set
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/kmpc_exported_set.sh $<TARGET_FILE:forkjoin_omp> ${FORKJOIN_OMP_LIBOMP})
  set_tests_properties(omp_kmpc_exported_set PROPERTIES TIMEOUT 60 LABELS "omp;kmpc")
endif()

# A clang program's affinity lines go to stdout, as libomp prints them (gcc programs': stderr).
add_test(NAME omp_kmpc_affinity_stdout
         COMMAND sh -c "\"$0\" 2>/dev/null | grep -q '^level 1 thread'" ${_kmpc_dir}/omp_parallel_clang)
set_tests_properties(omp_kmpc_affinity_stdout PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=2;OMP_DISPLAY_AFFINITY=true"
                     TIMEOUT 60 LABELS "omp;kmpc")

# Linked form: every OpenMP symbol of a clang program binds to libforkjoin-omp.
add_test(NAME omp_bindings_linked_clang
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_bindings.sh ${_kmpc_dir}/omp_kmpc_constructs_clang)
set_tests_properties(omp_bindings_linked_clang PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=2" TIMEOUT 60
                     LABELS "omp;kmpc")

# Preload and replace forms, and the mixed process: the programs linked the ordinary way
# against libomp (and a gcc-built library against libgomp). Not in sanitizer builds: a
# preloaded instrumented library would come before the sanitizer's runtime.
if(NOT FORKJOIN_SANITIZE)
  set(_launcher ${PROJECT_BINARY_DIR}/omp/forkjoin-omp)
  foreach(name IN LISTS FORKJOIN_OMP_CLANG_TESTS)
    forkjoin_omp_clang_program(omp_${name}_clang_libomp ${CMAKE_CURRENT_SOURCE_DIR}/${name}.c libomp)
    foreach(n 2 8)
      add_test(NAME omp_${name}_clang_preload_${n} COMMAND ${_launcher} ${_kmpc_dir}/omp_${name}_clang_libomp)
      set_tests_properties(omp_${name}_clang_preload_${n} PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=${n}" TIMEOUT 60
                           LABELS "omp;kmpc")
    endforeach()
  endforeach()
  foreach(n 2 8)
    add_test(NAME omp_cancel_on_clang_preload_${n} COMMAND ${_launcher} ${_kmpc_dir}/omp_cancel_clang_libomp)
    set_tests_properties(omp_cancel_on_clang_preload_${n} PROPERTIES
                         ENVIRONMENT "OMP_NUM_THREADS=${n};OMP_CANCELLATION=true" TIMEOUT 60 LABELS "omp;kmpc")
  endforeach()
  add_test(NAME omp_bindings_preload_clang
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_bindings.sh ${_launcher} ${_kmpc_dir}/omp_kmpc_constructs_clang_libomp)
  set_tests_properties(omp_bindings_preload_clang PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=2" TIMEOUT 60
                       LABELS "omp;kmpc")
  # the control: the same binary without the launcher runs on libomp, and the check says so
  add_test(NAME omp_bindings_control_clang
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_bindings.sh ${_kmpc_dir}/omp_parallel_clang_libomp)
  set_tests_properties(omp_bindings_control_clang PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=2" TIMEOUT 60
                       WILL_FAIL TRUE LABELS "omp;kmpc")
  # replace form: the libomp.so.5 link to libforkjoin-omp stands in for libomp, no preload
  add_test(NAME omp_bindings_replace_clang
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_bindings.sh ${_kmpc_dir}/omp_kmpc_constructs_clang_libomp)
  set_tests_properties(omp_bindings_replace_clang PROPERTIES
                       ENVIRONMENT "OMP_NUM_THREADS=2;LD_LIBRARY_PATH=${PROJECT_BINARY_DIR}/omp/forkjoin-omp-replace" TIMEOUT 60
                       LABELS "omp;kmpc")
  foreach(name kmpc_constructs kmpc_tasks tasks)
    add_test(NAME omp_${name}_clang_replace_3 COMMAND ${_kmpc_dir}/omp_${name}_clang_libomp)
    set_tests_properties(omp_${name}_clang_replace_3 PROPERTIES
                         ENVIRONMENT "OMP_NUM_THREADS=3;LD_LIBRARY_PATH=${PROJECT_BINARY_DIR}/omp/forkjoin-omp-replace" TIMEOUT 60
                         LABELS "omp;kmpc")
  endforeach()

  # Under the launcher an entry point of libomp that libforkjoin-omp lacks fails at once (the
  # launcher shadows libomp.so.5), never runs on libomp.
  forkjoin_omp_clang_program(omp_kmpc_missing_clang_libomp ${CMAKE_CURRENT_SOURCE_DIR}/kmpc_missing.c libomp)
  add_test(NAME omp_kmpc_missing_loud
           COMMAND sh -c "out=$(\"$0\" \"$1\" 2>&1); rc=$?; echo \"$out\"; test $rc -ne 0 && echo \"$out\" | grep -q 'symbol lookup error.*kmp_get_num_known_threads' && ! echo \"$out\" | grep -q 'kmpc_missing: ran'"
                   ${_launcher} ${_kmpc_dir}/omp_kmpc_missing_clang_libomp)
  set_tests_properties(omp_kmpc_missing_loud PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=2" TIMEOUT 30 LABELS "omp;kmpc")

  # The launcher's check before the program runs: quiet under --strict for a clang program whose
  # every OpenMP call binds here; for one that calls an entry point only libomp has, it names it
  # and --strict refuses to run the program.
  add_test(NAME omp_launcher_check_clang COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/launcher_check.sh ${_launcher}
                                                 $<TARGET_FILE:omp_openacc_call_gomp> ${_kmpc_dir}/omp_kmpc_constructs_clang_libomp)
  set_tests_properties(omp_launcher_check_clang PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=2" TIMEOUT 60 LABELS "omp;kmpc")
  add_test(NAME omp_kmpc_missing_strict
           COMMAND sh -c "out=$(\"$0\" --strict \"$1\" 2>&1); rc=$?; echo \"$out\"; test $rc -ne 0 && echo \"$out\" | grep -q 'kmp_get_num_known_threads@VERSION (libomp.so.5)' && ! echo \"$out\" | grep -q 'kmpc_missing: ran'"
                   ${_launcher} ${_kmpc_dir}/omp_kmpc_missing_clang_libomp)
  set_tests_properties(omp_kmpc_missing_strict PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=2" TIMEOUT 30 LABELS "omp;kmpc")

  # One process, two compilers: a gcc-built OpenMP library (linked the ordinary way, against
  # libgomp) called from a clang-built program (against libomp). Under the launcher both run on
  # one pool: every thread of the process is the main thread or one of forkjoin's; without it,
  # the control has libgomp's and libomp's threads and fails.
  add_library(omp_mixed_gcc_lib SHARED mixed_lib.c)
  target_compile_options(omp_mixed_gcc_lib PRIVATE -fopenmp)
  target_link_options(omp_mixed_gcc_lib PRIVATE -fopenmp)
  set(_mixed ${_kmpc_dir}/omp_mixed_clang)
  add_custom_command(OUTPUT ${_mixed}
    COMMAND ${FORKJOIN_OMP_CLANG} ${_kmpc_cflags} -c ${CMAKE_CURRENT_SOURCE_DIR}/mixed_main.c -o ${_mixed}.o
    COMMAND ${FORKJOIN_OMP_CLANG} -fopenmp ${_mixed}.o -o ${_mixed} $<TARGET_FILE:omp_mixed_gcc_lib>
            -Wl,-rpath,$<TARGET_FILE_DIR:omp_mixed_gcc_lib> -lpthread
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/mixed_main.c ${CMAKE_CURRENT_SOURCE_DIR}/check.h omp_mixed_gcc_lib
    COMMENT "clang-14 -fopenmp omp_mixed_clang" VERBATIM)
  list(APPEND _kmpc_outputs ${_mixed})
  foreach(n 2 3 8)
    add_test(NAME omp_mixed_process_${n} COMMAND ${_launcher} ${_mixed})
    set_tests_properties(omp_mixed_process_${n} PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=${n}" TIMEOUT 60
                         LABELS "omp;kmpc")
  endforeach()
  add_test(NAME omp_mixed_process_control COMMAND ${_mixed})
  set_tests_properties(omp_mixed_process_control PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=3" TIMEOUT 60
                       WILL_FAIL TRUE LABELS "omp;kmpc")
  add_test(NAME omp_bindings_mixed_process COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_bindings.sh ${_launcher} ${_mixed})
  set_tests_properties(omp_bindings_mixed_process PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=2" TIMEOUT 60
                       LABELS "omp;kmpc")
endif()

# The same mixed process with both sides linked against libforkjoin-omp (sanitizer builds too).
add_library(omp_mixed_gcc_lib_fj SHARED mixed_lib.c)
target_compile_options(omp_mixed_gcc_lib_fj PRIVATE -fopenmp)
target_link_libraries(omp_mixed_gcc_lib_fj PRIVATE forkjoin_omp)
set(_mixed_fj ${_kmpc_dir}/omp_mixed_clang_linked)
add_custom_command(OUTPUT ${_mixed_fj}
  COMMAND ${FORKJOIN_OMP_CLANG} ${_kmpc_cflags} -c ${CMAKE_CURRENT_SOURCE_DIR}/mixed_main.c -o ${_mixed_fj}.o
  COMMAND ${FORKJOIN_OMP_CLANG} -Wl,--no-as-needed ${_kmpc_san_libs} -Wl,--as-needed ${_mixed_fj}.o -o ${_mixed_fj}
          $<TARGET_FILE:omp_mixed_gcc_lib_fj> $<TARGET_FILE:forkjoin_omp>
          -Wl,-rpath,$<TARGET_FILE_DIR:omp_mixed_gcc_lib_fj>:$<TARGET_FILE_DIR:forkjoin_omp> -lpthread
  DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/mixed_main.c ${CMAKE_CURRENT_SOURCE_DIR}/check.h omp_mixed_gcc_lib_fj
          forkjoin_omp
  COMMENT "clang-14 -fopenmp omp_mixed_clang_linked" VERBATIM)
list(APPEND _kmpc_outputs ${_mixed_fj})
foreach(n 2 3)
  add_test(NAME omp_mixed_process_linked_${n} COMMAND ${_mixed_fj})
  set_tests_properties(omp_mixed_process_linked_${n} PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=${n}" TIMEOUT 60
                       LABELS "omp;kmpc")
endforeach()

add_custom_target(omp_clang_programs ALL DEPENDS ${_kmpc_outputs})

# run_model.cmake: one model check, run by ctest (models/CMakeLists.txt):
#   cmake -DSPIN=spin -DCC=cc -DMODEL=m.pml -DWORKDIR=dir -DEXPECT=pass|fail
#         [-DDEFINES="-DX;-DY=2"] [-DLTL=name] [-DMATCH=regex] [-DOPT=-O2] -P run_model.cmake
# spin -a generates the verifier pan.c; it is compiled exhaustive (no BITSTATE, no hash
# compaction: COLLAPSE only compresses states) and run. Safety runs (no LTL) check
# assertions and invalid end states; an LTL run checks that claim under weak fairness
# (pan -a -f). EXPECT=pass: "errors: 0" and a completed search. EXPECT=fail: errors > 0,
# and the output matches MATCH (the kind of violation the switch must produce).
foreach(var SPIN CC MODEL WORKDIR EXPECT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_model.cmake: ${var} not set")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORKDIR}")
file(MAKE_DIRECTORY "${WORKDIR}")
get_filename_component(model_name "${MODEL}" NAME)
configure_file("${MODEL}" "${WORKDIR}/${model_name}" COPYONLY)

execute_process(COMMAND "${SPIN}" ${DEFINES} -a "${model_name}" WORKING_DIRECTORY "${WORKDIR}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "spin -a ${DEFINES} ${model_name} failed:\n${out}")
endif()

# 4 GiB at most: a model that outgrows it fails (pan reports the bound) instead of swapping.
# -O0 unless asked: compiling pan.c at -O2 takes longer than most searches.
if(NOT DEFINED OPT OR OPT STREQUAL "")
  set(OPT -O0)
endif()
set(cflags ${OPT} -w -DCOLLAPSE -DMEMLIM=4096 -DVECTORSZ=2048)
set(runflags -m1000000)
if(DEFINED LTL AND NOT LTL STREQUAL "")
  list(APPEND runflags -a -f -N "${LTL}")
else()
  list(APPEND cflags -DSAFETY)
endif()
execute_process(COMMAND "${CC}" ${cflags} -o pan pan.c WORKING_DIRECTORY "${WORKDIR}" RESULT_VARIABLE rc
  OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compiling pan.c failed:\n${out}")
endif()

execute_process(COMMAND "${WORKDIR}/pan" ${runflags} WORKING_DIRECTORY "${WORKDIR}" RESULT_VARIABLE rc
  OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
string(REGEX MATCH "errors: ([0-9]+)" found "${out}")
if(NOT found)
  message(FATAL_ERROR "pan printed no verdict (exit status ${rc})")
endif()
set(errors "${CMAKE_MATCH_1}")
if(EXPECT STREQUAL "pass")
  if(NOT errors EQUAL 0)
    message(FATAL_ERROR "counterexample found (${errors} errors); replay it with: cd ${WORKDIR} && spin -t -p ${DEFINES} ${model_name}")
  endif()
  if(out MATCHES "Search not completed|max search depth too small|reached -DMEMLIM bound|out of memory")
    message(FATAL_ERROR "the search did not cover the whole state space: the verdict is not exhaustive")
  endif()
  message("model check passed: no counterexample, search complete")
elseif(EXPECT STREQUAL "fail")
  if(errors EQUAL 0)
    message(FATAL_ERROR "expected a counterexample with ${DEFINES}, found none")
  endif()
  if(DEFINED MATCH AND NOT out MATCHES "${MATCH}")
    message(FATAL_ERROR "a counterexample, but not the expected kind (/${MATCH}/)")
  endif()
  message("model check failed as expected (${DEFINES}): the switch's bug is caught")
else()
  message(FATAL_ERROR "EXPECT must be pass or fail, not ${EXPECT}")
endif()

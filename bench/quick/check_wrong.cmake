# The checks of bench_quick (a unit test, run as `cmake -P`): with one workload's forkjoin
# answer made wrong (--corrupt), run_quick.py must exit non-zero and name it. Inputs (-D):
# RUN (the run_quick.py command line, a list), OUT (a scratch folder).
foreach(workload fib loops reduce matmul sort scan)
  execute_process(COMMAND ${RUN} --out ${OUT}/${workload} --smoke --reps 1 --corrupt ${workload}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    message(FATAL_ERROR "a wrong ${workload} answer passed (exit status 0):\n${out}\n${err}")
  endif()
  if(NOT err MATCHES "WRONG ANSWER: ${workload} forkjoin ")
    message(FATAL_ERROR "a wrong ${workload} answer failed without saying so (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${workload}: a wrong answer fails the run (exit status ${rc})")
endforeach()

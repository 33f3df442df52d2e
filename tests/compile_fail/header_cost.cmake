# Header cost check, run by ctest as `cmake -P`: what `#include <forkjoin/forkjoin.hpp>` adds
# over the standard headers it includes. Compile time on a shared machine is noise, so the
# check counts preprocessed lines, which follow it and are exact: the standard headers that
# forkjoin's headers name (collected from them) are preprocessed alone, then with forkjoin.hpp
# after them, and the difference must stay under MAX_EXTRA_LINES. forkjoin's own headers are
# about 4,000 lines; a system header pulled in by mistake (<x86intrin.h> alone is some
# 50,000) fails it. The measured times are in the commit that added this check.
# Inputs (-D): CXX, INCLUDE_DIR, WORK_DIR, MAX_EXTRA_LINES.
foreach(v CXX INCLUDE_DIR WORK_DIR MAX_EXTRA_LINES)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "header_cost.cmake: -D${v}=... is required")
  endif()
endforeach()
file(GLOB_RECURSE headers "${INCLUDE_DIR}/forkjoin/*.hpp")
set(std_headers "")
foreach(h IN LISTS headers)
  file(STRINGS "${h}" lines REGEX "^#include <[a-z_]+>")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^#include <([a-z_]+)>.*" "\\1" name "${line}")
    list(APPEND std_headers "${name}")
  endforeach()
endforeach()
list(REMOVE_DUPLICATES std_headers)
list(SORT std_headers)
set(std_text "")
foreach(name IN LISTS std_headers)
  string(APPEND std_text "#include <${name}>\n")
endforeach()
file(MAKE_DIRECTORY "${WORK_DIR}")
file(WRITE "${WORK_DIR}/std_only.cpp" "${std_text}")
file(WRITE "${WORK_DIR}/with_forkjoin.cpp" "${std_text}#include <forkjoin/forkjoin.hpp>\n")

function(preprocessed_lines source out)
  execute_process(COMMAND ${CXX} -std=c++20 -E -P -I${INCLUDE_DIR} ${source} RESULT_VARIABLE rc
    OUTPUT_FILE "${source}.i" ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "preprocessing ${source} failed:\n${err}")
  endif()
  file(READ "${source}.i" text)
  string(REGEX REPLACE "[^\n]+" "" newlines "${text}")
  string(LENGTH "${newlines}" n)
  set(${out} ${n} PARENT_SCOPE)
endfunction()
preprocessed_lines("${WORK_DIR}/std_only.cpp" std_lines)
preprocessed_lines("${WORK_DIR}/with_forkjoin.cpp" all_lines)
math(EXPR extra "${all_lines} - ${std_lines}")
list(LENGTH std_headers n_std)
message(STATUS "the ${n_std} standard headers forkjoin names: ${std_lines} lines; with forkjoin.hpp: ${all_lines} "
               "(+${extra}; at most +${MAX_EXTRA_LINES})")
if(extra GREATER MAX_EXTRA_LINES)
  message(FATAL_ERROR "forkjoin.hpp adds ${extra} preprocessed lines to the standard headers it uses (at most "
                      "${MAX_EXTRA_LINES}): something heavy is included; g++ -H shows what")
endif()

# Warnings: g++ 12 and clang 14 must both build the project warning-free with these
# (CI builds with both, FORKJOIN_WERROR=ON, which turns every warning into an error).
function(forkjoin_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
    -Wno-sign-conversion -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual)
  if(FORKJOIN_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

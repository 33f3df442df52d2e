# One switch for sanitizers: FORKJOIN_SANITIZE="address;undefined" or "thread".
# ThreadSanitizer does not model standalone fences; the runtime detects TSan itself
# (FORKJOIN_TSAN in include/forkjoin/detail/config.hpp) and switches to release/acquire forms.
# -g1 (after the build type's -g, so it wins): line tables and functions, enough for the
# sanitizers' reports, and 15% less compile time in the two sanitizer builds CI makes.
if(FORKJOIN_SANITIZE)
  string(REPLACE ";" "," _forkjoin_san "${FORKJOIN_SANITIZE}")
  add_compile_options(-fsanitize=${_forkjoin_san} -fno-omit-frame-pointer -g1)
  add_link_options(-fsanitize=${_forkjoin_san})
  if("undefined" IN_LIST FORKJOIN_SANITIZE)
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
endif()

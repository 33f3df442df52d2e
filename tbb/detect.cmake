# detect.cmake: whether libforkjoin-tbb is built, decided once for tbb/ and tests/tbb/
# (tests/ is configured first, so each includes this). Sets FORKJOIN_TBB_ENABLED and
# FORKJOIN_TBB_INCLUDE_DIR (a variable of the including folder: no include_guard). Needs
# libforkjoin-omp (FORKJOIN_BUILD_OMP: the runtime is shared with it) and oneTBB 2021's
# headers (Debian: libtbb-dev).
option(FORKJOIN_TBB "Build libforkjoin-tbb, oneTBB 2021's binary interface on forkjoin (tbb/)" ON)
set(FORKJOIN_TBB_ENABLED OFF)
if(FORKJOIN_TBB AND FORKJOIN_BUILD_OMP)
  find_path(FORKJOIN_TBB_INCLUDE_DIR oneapi/tbb/version.h)
  if(FORKJOIN_TBB_INCLUDE_DIR)
    file(STRINGS "${FORKJOIN_TBB_INCLUDE_DIR}/oneapi/tbb/version.h" _forkjoin_tbb_iface
         REGEX "^#define TBB_INTERFACE_VERSION [0-9]+")
    string(REGEX MATCH "[0-9]+" _forkjoin_tbb_iface "${_forkjoin_tbb_iface}")
    if(_forkjoin_tbb_iface GREATER_EQUAL 12000 AND _forkjoin_tbb_iface LESS 13000)
      set(FORKJOIN_TBB_ENABLED ON)
    else()
      message(STATUS "libforkjoin-tbb: skipped, oneTBB headers found are not 2021.x (interface ${_forkjoin_tbb_iface})")
    endif()
  else()
    message(STATUS "libforkjoin-tbb: skipped, oneTBB 2021 headers not found (Debian: apt-get install libtbb-dev)")
  endif()
elseif(FORKJOIN_TBB)
  message(STATUS "libforkjoin-tbb: skipped, it needs libforkjoin-omp (FORKJOIN_BUILD_OMP=ON)")
endif()

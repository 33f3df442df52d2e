// api/display.cpp: the omp_* routines that format or print what the runtime is doing: the
// affinity format and display (core/affinity.cpp) and the environment report
// (core/display_env.cpp, as OMP_DISPLAY_ENV prints it).
#include <cstddef>
#include <cstring>

#include "../abi/export.hpp"
#include "../core/affinity.hpp"
#include "../core/icv.hpp"
#include "api.hpp"

using namespace forkjoin::omp;

FORKJOIN_OMP_EXPORT void omp_set_affinity_format(const char* format) {
  set_affinity_format(format, format != nullptr ? std::strlen(format) : 0);
}
FORKJOIN_OMP_EXPORT std::size_t omp_get_affinity_format(char* buffer, std::size_t size) {
  return get_affinity_format(buffer, size, false);
}
FORKJOIN_OMP_EXPORT void omp_display_affinity(const char* format) { display_affinity(format); }
FORKJOIN_OMP_EXPORT std::size_t omp_capture_affinity(char* buffer, std::size_t size, const char* format) {
  return capture_affinity(buffer, size, format, false);
}

// The environment report on demand; verbose adds this runtime's settings.
FORKJOIN_OMP_EXPORT void omp_display_env(int verbose) {
  global_config c = config();
  c.display_env = verbose != 0 ? 2 : 1;
  display_environment(c);
}

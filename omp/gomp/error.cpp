// gomp/error.cpp: the `error` directive's entry points (OpenMP 5.1), as libgomp prints them.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "../abi/export.hpp"

// `omp error at(execution)`: libgomp's words exactly (an empty line, then "libgomp: ..."), as
// programs and libgomp's own tests match them. msglen == (size_t)-1: msg is NUL-terminated;
// Fortran passes its length.
namespace {
void error_directive(const char* severity, const char* msg, std::size_t msglen) {
  std::string line = std::string("\nlibgomp: ") + severity + "error directive encountered";
  if (msg != nullptr)
    line += ": " + (msglen == static_cast<std::size_t>(-1) ? std::string(msg) : std::string(msg, msglen));
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stderr);
}
}  // namespace
FORKJOIN_OMP_EXPORT void GOMP_warning(const char* msg, std::size_t msglen) { error_directive("", msg, msglen); }
FORKJOIN_OMP_EXPORT void GOMP_error(const void* msg, std::size_t msglen) {
  error_directive("fatal error: ", static_cast<const char*>(msg), msglen);
  std::exit(EXIT_FAILURE);
}

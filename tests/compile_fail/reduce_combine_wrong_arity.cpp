// A parallel_reduce combine that does not take two arguments must be rejected as such (not
// as a wrong result type).
#include <forkjoin/parallel_reduce.hpp>

long use() {
#ifdef FORKJOIN_COMPILE_FAIL
  return forkjoin::parallel_reduce(
      0, 10, 0L, [](int i) { return static_cast<long>(i); }, [](long x) { return x; });
#else
  return forkjoin::parallel_reduce(
      0, 10, 0L, [](int i) { return static_cast<long>(i); }, [](long x, long y) { return x + y; });
#endif
}

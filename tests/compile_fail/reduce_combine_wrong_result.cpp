// A parallel_reduce combine whose result is not the reduction type must be rejected.
#include <forkjoin/parallel_reduce.hpp>

#include <string>

long use() {
#ifdef FORKJOIN_COMPILE_FAIL
  return forkjoin::parallel_reduce(
      0, 10, 0L, [](int i) { return static_cast<long>(i); }, [](long, long) { return std::string("x"); });
#else
  return forkjoin::parallel_reduce(
      0, 10, 0L, [](int i) { return static_cast<long>(i); }, [](long x, long y) { return x + y; });
#endif
}

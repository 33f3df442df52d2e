// A parallel_reduce chunk body whose result is not the reduction type must be rejected.
#include <forkjoin/parallel_reduce.hpp>

#include <functional>
#include <string>

long use() {
#ifdef FORKJOIN_COMPILE_FAIL
  return forkjoin::parallel_reduce(
      0, 10, 0L, [](int, int, long) { return std::string("x"); }, std::plus<>());
#else
  return forkjoin::parallel_reduce(
      0, 10, 0L, [](int b, int e, long acc) { return acc + e - b; }, std::plus<>());
#endif
}

// A parallel_reduce chunk body written like parallel_for's, (begin, end) without the
// accumulator, must be rejected with a message that says what the chunk form takes.
#include <forkjoin/parallel_reduce.hpp>

#include <functional>

long use() {
#ifdef FORKJOIN_COMPILE_FAIL
  return forkjoin::parallel_reduce(
      0, 10, 0L, [](int b, int e) { return static_cast<long>(e - b); }, std::plus<>());
#else
  return forkjoin::parallel_reduce(
      0, 10, 0L, [](int b, int e, long acc) { return acc + e - b; }, std::plus<>());
#endif
}

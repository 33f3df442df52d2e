// A parallel_for_2d body that accepts neither (i, j) nor (i0, i1, j0, j1) must be rejected.
#include <forkjoin/parallel_for_nd.hpp>

void use() {
#ifdef FORKJOIN_COMPILE_FAIL
  forkjoin::parallel_for_2d(0, 10, 0, 10, [](int, int, int) {});
#else
  forkjoin::parallel_for_2d(0, 10, 0, 10, [](int, int) {});
#endif
}

// A parallel_for body that accepts neither (index) nor (begin, end) must be rejected.
#include <forkjoin/parallel_for.hpp>

void use() {
#ifdef FORKJOIN_COMPILE_FAIL
  forkjoin::parallel_for(0, 10, [](int, int, int) {});
#else
  forkjoin::parallel_for(0, 10, [](int, int) {});
#endif
}

// parallel_for over a floating-point range must be rejected by the loop_index concept.
#include <forkjoin/parallel_for.hpp>

void use() {
#ifdef FORKJOIN_COMPILE_FAIL
  forkjoin::parallel_for(0.0, 10.0, [](double) {});
#else
  forkjoin::parallel_for(0, 10, [](int) {});
#endif
}

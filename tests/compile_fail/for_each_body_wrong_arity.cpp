// A parallel_for_each body that cannot take an element must be rejected.
#include <forkjoin/parallel_for.hpp>

#include <vector>

void use(std::vector<int>& v) {
#ifdef FORKJOIN_COMPILE_FAIL
  forkjoin::parallel_for_each(v.begin(), v.end(), [](int, int) {});
#else
  forkjoin::parallel_for_each(v.begin(), v.end(), [](int& x) { ++x; });
#endif
}

// A C++ program that uses OpenMP and forkjoin together, built by the installed-package test
// against libforkjoin-omp alone (it holds forkjoin's runtime: one pool for both). Exits 0
// only if the answers match.
#include <omp.h>
#include <forkjoin/forkjoin.hpp>

#include <cstdio>
#include <functional>

int main() {
  long omp_sum = 0;
#pragma omp parallel for num_threads(2) reduction(+ : omp_sum)
  for (int i = 0; i < 1000; ++i) omp_sum += i;
  long nested = 0;
#pragma omp parallel num_threads(2) reduction(+ : nested)
  {  // forkjoin inside an OpenMP region: each team thread sums the range
    nested += forkjoin::parallel_reduce(
        0, 1000, 0L, [](int i) { return static_cast<long>(i); }, std::plus<>());
  }
  if (omp_sum != 499500 || nested != 2 * 499500) {
    std::printf("mixed: wrong answers omp=%ld nested=%ld\n", omp_sum, nested);
    return 1;
  }
  std::printf("mixed: ok\n");
  return 0;
}

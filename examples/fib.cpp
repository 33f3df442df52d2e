// fib.cpp: recursive Fibonacci by join, the smallest fork-join program. Checks its answer.
#include <cstdio>
#include <cstdlib>

#include "forkjoin/forkjoin.hpp"

static long fib(int n) {
  if (n < 2) return n;
  auto [a, b] = forkjoin::join([n] { return fib(n - 1); }, [n] { return fib(n - 2); });
  return a + b;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 30;
  long r = forkjoin::default_pool().run([n] { return fib(n); });
  std::printf("fib(%d) = %ld on %zu threads\n", n, r, forkjoin::default_pool().num_threads());
  return (n == 30 && r != 832040) ? 1 : 0;
}

// trace_demo.cpp: writes a small trace for the tools/trace_report.py test: a fork-join (fib)
// and an imbalanced loop on a traced pool of four workers. Usage: trace_demo OUT.json
#include <cstdio>
#include <cstdlib>

#include "forkjoin/forkjoin.hpp"

namespace {
long fib(int n) {
  if (n < 2) return n;
  auto [a, b] = forkjoin::join([n] { return fib(n - 1); }, [n] { return fib(n - 2); });
  return a + b;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: trace_demo OUT.json\n");
    return 2;
  }
  forkjoin::pool_options o;
  o.num_threads = 4;
  o.trace_path = argv[1];
  forkjoin::pool p(o);
  const long f = p.run([] { return fib(16); });
  // Iteration i costs about i: the last blocks are the heavy ones.
  const long sum = p.run([] {
    return forkjoin::parallel_reduce(
        0, 2000, 0L,
        [](int i) {
          volatile long x = 0;
          for (int k = 0; k < i * 10; ++k) x = x + k;
          return static_cast<long>(i);
        },
        [](long a, long b) { return a + b; });
  });
  if (f != 987 || sum != 1999L * 2000 / 2) {
    std::fprintf(stderr, "trace_demo: wrong answer %ld %ld\n", f, sum);
    return 1;
  }
  return 0;
}

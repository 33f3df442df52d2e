// join_fib.cpp: fib(27) through forkjoin::join in a pool of T threads, R runs; prints the
// median and checks the answer. Built by hand against a tree's library (not by CMake), to
// compare two trees' instruction counts under callgrind (bench/history/2026-11-30.md, 18:38):
//   g++ -std=c++20 -O2 -DNDEBUG -I<tree>/include join_fib.cpp <tree>/build/release/libforkjoin.a -lpthread
//   valgrind --tool=callgrind ./a.out 1 3
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "forkjoin/forkjoin.hpp"

static std::uint64_t fib(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  auto [a, b] = forkjoin::join([n] { return fib(n - 1); }, [n] { return fib(n - 2); });
  return a + b;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  forkjoin::pool_options o;
  o.num_threads = static_cast<std::size_t>(std::atoi(argv[1]));
  const int runs = std::atoi(argv[2]);
  forkjoin::pool p(o);
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    if (p.run([] { return fib(27); }) != 196418) {
      std::puts("join_fib: wrong answer");
      return 1;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("fib(27) threads=%s median %.3f ms\n", argv[1], ms[ms.size() / 2]);
}

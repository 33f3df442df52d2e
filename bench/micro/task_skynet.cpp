// task_skynet.cpp: skynet of N leaves (10 children per node) through forkjoin::task_group in
// a pool of T threads, R runs; prints the median and checks the sum. Built by hand, as
// join_fib.cpp:  ./a.out THREADS RUNS [N = 1000000]
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "forkjoin/forkjoin.hpp"

static std::uint64_t skynet(std::uint64_t first, std::uint64_t size) {
  if (size == 1) return first;
  std::array<std::uint64_t, 10> part{};
  forkjoin::task_group g;
  for (std::uint64_t i = 0; i < 10; ++i)
    g.run([&part, i, first, size] { part[i] = skynet(first + i * (size / 10), size / 10); });
  g.wait();
  std::uint64_t sum = 0;
  for (auto x : part) sum += x;
  return sum;
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  forkjoin::pool_options o;
  o.num_threads = static_cast<std::size_t>(std::atoi(argv[1]));
  const int runs = std::atoi(argv[2]);
  const std::uint64_t n = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1000000;
  forkjoin::pool p(o);
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    if (p.run([n] { return skynet(0, n); }) != n * (n - 1) / 2) {
      std::puts("task_skynet: wrong sum");
      return 1;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("skynet(%llu) threads=%s median %.3f ms\n", static_cast<unsigned long long>(n), argv[1],
              ms[ms.size() / 2]);
}

// small_loop.cpp: CALLS back-to-back pool::run(parallel_for(0, N, a[i] += 1)) in a pool of T
// threads, 7 rounds; prints the median time per call and checks every element. Built by
// hand, as join_fib.cpp:  ./a.out THREADS N CALLS
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "forkjoin/forkjoin.hpp"

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  forkjoin::pool_options o;
  o.num_threads = static_cast<std::size_t>(std::atoi(argv[1]));
  const int n = std::atoi(argv[2]), calls = std::atoi(argv[3]);
  forkjoin::pool p(o);
  std::vector<int> v(static_cast<std::size_t>(n), 0);
  int* a = v.data();
  std::vector<double> us;
  for (int r = 0; r < 7; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < calls; ++k) p.run([a, n] { forkjoin::parallel_for(0, n, [a](int i) { a[i] += 1; }); });
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / calls);
  }
  for (int x : v)
    if (x != 7 * calls) {
      std::puts("small_loop: an element was not updated once per call");
      return 1;
    }
  std::sort(us.begin(), us.end());
  std::printf("threads=%s n=%d median %.3f us per call\n", argv[1], n, us[3]);
}

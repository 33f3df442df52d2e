// A program that uses forkjoin the way an outside project does, built against the
// installed package only (find_package or pkg-config). Exits 0 only if the answers match.
#include <forkjoin/forkjoin.hpp>

#include <cstdio>
#include <functional>

namespace {
long fib(int n) {
  if (n < 2) return n;
  auto [a, b] = forkjoin::join([n] { return fib(n - 1); }, [n] { return fib(n - 2); });
  return a + b;
}
}  // namespace

int main() {
  forkjoin::pool pool(2);
  const long f = pool.run([] { return fib(20); });
  const long sum = forkjoin::parallel_reduce(
      0, 1000, 0L, [](int i) { return static_cast<long>(i); }, std::plus<>());
  if (f != 6765 || sum != 499500) {
    std::printf("consumer: wrong answers fib(20)=%ld sum=%ld\n", f, sum);
    return 1;
  }
  std::printf("consumer: ok\n");
  return 0;
}

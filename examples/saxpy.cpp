// saxpy.cpp: y = a*x + y over ten million floats with parallel_for, the element form and
// the chunk form. Checks every element against the serial formula.
#include <cstdio>
#include <vector>

#include "forkjoin/forkjoin.hpp"

int main() {
  const std::size_t n = 10'000'000;
  const float a = 2.0f;
  std::vector<float> x(n), y(n);
  forkjoin::parallel_for(std::size_t{0}, n, [&](std::size_t i) {  // first touch, in parallel
    x[i] = static_cast<float>(i % 1000);
    y[i] = 1.0f;
  });
  // Chunk form: body(begin, end) lets the compiler vectorise the inner loop.
  forkjoin::parallel_for(std::size_t{0}, n, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) y[i] = a * x[i] + y[i];
  });
  for (std::size_t i = 0; i < n; ++i)
    if (y[i] != a * static_cast<float>(i % 1000) + 1.0f) {
      std::printf("saxpy: wrong y[%zu] = %f\n", i, static_cast<double>(y[i]));
      return 1;
    }
  std::printf("saxpy: %zu elements correct\n", n);
  return 0;
}

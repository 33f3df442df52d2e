// pi.cpp: pi as the integral of 4/(1+x^2) over [0, 1] by the midpoint rule, with
// parallel_reduce (chunk form) and parallel_deterministic_reduce. Checks both.
#include <cmath>
#include <cstdio>
#include <functional>

#include "forkjoin/forkjoin.hpp"

int main() {
  const long steps = 50'000'000;
  const double h = 1.0 / static_cast<double>(steps);
  auto slice = [h](long b, long e, double acc) {
    for (long i = b; i < e; ++i) {
      const double x = (static_cast<double>(i) + 0.5) * h;
      acc += 4.0 / (1.0 + x * x);
    }
    return acc;
  };
  const double pi = forkjoin::parallel_reduce(0L, steps, 0.0, slice, std::plus<>()) * h;
  // Same value, bit for bit, on every run and every thread count.
  const double pi_det = forkjoin::parallel_deterministic_reduce(0L, steps, 0.0, slice, std::plus<>()) * h;
  std::printf("pi = %.15f (deterministic %.15f), error %.2e\n", pi, pi_det, std::abs(pi - M_PI));
  return std::abs(pi - M_PI) < 1e-9 && std::abs(pi_det - M_PI) < 1e-9 ? 0 : 1;
}

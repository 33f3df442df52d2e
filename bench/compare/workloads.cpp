// workloads.cpp: check values, the imbalanced loop's work unit, and the serial
// implementation (the baseline every ratio can be read against).
#include "workloads.hpp"

#include <algorithm>
#include <array>
#include <numeric>

#include "uts.hpp"

namespace forkjoin::bench {

std::uint64_t fib_expected(int n) {
  std::uint64_t a = 0, b = 1;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t t = a + b;
    a = b;
    b = t;
  }
  return a;
}

std::uint64_t skynet_expected(int depth) {
  std::uint64_t leaves = 1;
  for (int i = 0; i < depth; ++i) leaves *= 10;
  return leaves * (leaves - 1) / 2;
}

long nqueens_expected(int n) {
  static constexpr long k_table[] = {1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596};
  return n >= 0 && n < 15 ? k_table[n] : -1;
}

double imbalanced_iteration(int i) {
  double x = 1.0 + i * 1e-9;
  for (int k = 0; k < i * 16; ++k) x = x * 0.999999 + 1e-7;  // dependent chain: no vectorising
  return x;
}

namespace {

std::uint64_t fib_serial(int n) { return n < 2 ? static_cast<std::uint64_t>(n) : fib_serial(n - 1) + fib_serial(n - 2); }

std::uint64_t skynet_serial_at(std::uint64_t first, std::uint64_t size) {
  if (size == 1) return first;
  std::uint64_t sum = 0;
  for (std::uint64_t i = 0; i < 10; ++i) sum += skynet_serial_at(first + i * (size / 10), size / 10);
  return sum;
}

long nqueens_serial_at(std::array<signed char, 16>& col, int row, int n) {
  if (row == n) return 1;
  long count = 0;
  for (int c = 0; c < n; ++c) {
    bool ok = true;
    for (int r = 0; r < row && ok; ++r) {
      const int d = col[static_cast<std::size_t>(r)] - c;
      ok = d != 0 && d != row - r && d != r - row;
    }
    if (!ok) continue;
    col[static_cast<std::size_t>(row)] = static_cast<signed char>(c);
    count += nqueens_serial_at(col, row + 1, n);
  }
  return count;
}

const implementation k_serial{
    "serial",
    [](int) {},
    [] {},
    fib_serial,
    [](int depth) {
      std::uint64_t leaves = 1;
      for (int i = 0; i < depth; ++i) leaves *= 10;
      return skynet_serial_at(0, leaves);
    },
    [](int n) {
      std::array<signed char, 16> col{};
      return nqueens_serial_at(col, 0, n);
    },
    [] { return uts::count_serial(uts::root()); },
    [](int* a, int n) {
      for (int i = 0; i < n; ++i) a[i] += 1;
    },
    [](double* out, int n) {
      for (int i = 0; i < n; ++i) out[i] = imbalanced_iteration(i);
    },
    [](const double* x, std::size_t n) { return std::reduce(x, x + n, 0.0); },
    [](const double* a, const double* b, double* c, int n) {
      for (int i = 0; i < n; ++i)
        for (int k = 0; k < n; ++k) {
          const double aik = a[i * n + k];
          for (int j = 0; j < n; ++j) c[i * n + j] += aik * b[k * n + j];
        }
    },
    [](int* v, std::size_t n) { std::sort(v, v + n); },
};

}  // namespace

const implementation& serial_impl() { return k_serial; }

}  // namespace forkjoin::bench

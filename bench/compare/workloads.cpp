// workloads.cpp: check values, the imbalanced loop's work unit, and the serial
// implementation (the baseline every ratio can be read against).
#include "workloads.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <utility>

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

bool queen_safe(const queens_board& b, int row, int c) {
  for (int r = 0; r < row; ++r) {
    const int d = b[static_cast<std::size_t>(r)] - c;
    if (d == 0 || d == row - r || d == r - row) return false;
  }
  return true;
}

void matmul_row(const double* a, const double* b, double* c, int n, int i) {
  for (int k = 0; k < n; ++k) {
    const double aik = a[i * n + k];
    for (int j = 0; j < n; ++j) c[i * n + j] += aik * b[k * n + j];
  }
}

std::pair<int*, int*> partition3(int* first, int* last) {
  const int pivot = first[(last - first) / 2];
  int* mid1 = std::partition(first, last, [pivot](int x) { return x < pivot; });
  int* mid2 = std::partition(mid1, last, [pivot](int x) { return !(pivot < x); });
  return {mid1, mid2};
}

namespace {

std::uint64_t fib_serial(int n) {
  return n < 2 ? static_cast<std::uint64_t>(n) : fib_serial(n - 1) + fib_serial(n - 2);
}

std::uint64_t skynet_serial_at(std::uint64_t first, std::uint64_t size) {
  if (size == 1) return first;
  std::uint64_t sum = 0;
  for (std::uint64_t i = 0; i < 10; ++i) sum += skynet_serial_at(first + i * (size / 10), size / 10);
  return sum;
}

long nqueens_serial_at(queens_board& col, int row, int n) {
  if (row == n) return 1;
  long count = 0;
  for (int c = 0; c < n; ++c) {
    if (!queen_safe(col, row, c)) continue;
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
    fib_serial,
    [](int depth) {
      std::uint64_t leaves = 1;
      for (int i = 0; i < depth; ++i) leaves *= 10;
      return skynet_serial_at(0, leaves);
    },
    [](int n) {
      queens_board col{};
      return nqueens_serial_at(col, 0, n);
    },
    [](const uts::node& root) { return uts::count_serial(root); },
    [](int* a, int n) {
      for (int i = 0; i < n; ++i) a[i] += 1;
    },
    [](double* out, int n) {
      for (int i = 0; i < n; ++i) out[i] = imbalanced_iteration(i);
    },
    [](const double* x, std::size_t n) { return std::reduce(x, x + n, 0.0); },
    [](const double* a, const double* b, double* c, int n) {
      for (int i = 0; i < n; ++i) matmul_row(a, b, c, n, i);
    },
    [](int* v, std::size_t n) { std::sort(v, v + n); },
    [](int* a, int n) {
      for (int i = 0; i < n; ++i) a[i] += 1;
    },
    [](float* a, float* b, int n, int sweeps) {
      for (int s = 0; s < sweeps; ++s) {
        for (int i = 1; i < n - 1; ++i)
          for (int j = 1; j < n - 1; ++j)
            b[static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j)] =
                jacobi_point(a, n, i, j);
        std::swap(a, b);
      }
    },
    [](const double* x, double* out, std::size_t n) { std::inclusive_scan(x, x + n, out); },
    [](const std::uint32_t* v, std::size_t n, std::uint64_t* bins) {
      for (std::size_t i = 0; i < n; ++i) ++bins[v[i] & 255];
    },
    [](const int* v, std::size_t n) {
      return static_cast<std::size_t>(std::find_if(v, v + n, [](int x) { return x == k_find_needle; }) - v);
    },
};

}  // namespace

}  // namespace forkjoin::bench

namespace forkjoin::bench {

wavefront::wavefront(int blocks, int block)
    : blocks_(blocks),
      block_(block),
      a_(static_cast<std::size_t>(blocks) * static_cast<std::size_t>(block)),
      b_(a_.size()),
      bottom_(static_cast<std::size_t>(blocks) * a_.size()),
      right_(bottom_.size()),
      best_(static_cast<std::size_t>(blocks) * static_cast<std::size_t>(blocks)) {
  std::uint32_t x = 2463534242u;  // xorshift32: the same letters on every platform
  for (std::size_t i = 0; i < a_.size(); ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    a_[i] = static_cast<std::uint8_t>(x & 3);
    b_[i] = static_cast<std::uint8_t>((x >> 8) & 3);
  }
}

void wavefront::reset() {
  std::fill(bottom_.begin(), bottom_.end(), -1);
  std::fill(right_.begin(), right_.end(), -1);
  std::fill(best_.begin(), best_.end(), -1);
}

void wavefront::block(int bi, int bj) {
  constexpr std::int32_t k_match = 2, k_mismatch = -1, k_gap = 1;
  const auto n = static_cast<std::size_t>(block_);
  const auto nb = static_cast<std::size_t>(blocks_);
  const auto i0 = static_cast<std::size_t>(bi), j0 = static_cast<std::size_t>(bj);
  // Block (i, j)'s last row sits at bottom_[(i * nb + j) * n], its last column at right_[...].
  const std::int32_t* top = bi > 0 ? &bottom_[((i0 - 1) * nb + j0) * n] : nullptr;
  const std::int32_t* left = bj > 0 ? &right_[(i0 * nb + j0 - 1) * n] : nullptr;
  std::vector<std::int32_t> prev(n + 1), cur(n + 1);
  prev[0] = bi > 0 && bj > 0 ? bottom_[((i0 - 1) * nb + j0 - 1) * n + n - 1] : 0;
  for (std::size_t j = 0; j < n; ++j) prev[j + 1] = top != nullptr ? top[j] : 0;
  std::int32_t best = 0;
  const std::uint8_t* a = &a_[i0 * n];
  const std::uint8_t* b = &b_[j0 * n];
  std::int32_t* right = &right_[(i0 * nb + j0) * n];
  for (std::size_t i = 0; i < n; ++i) {
    cur[0] = left != nullptr ? left[i] : 0;
    for (std::size_t j = 0; j < n; ++j) {
      std::int32_t h = prev[j] + (a[i] == b[j] ? k_match : k_mismatch);
      h = std::max(h, prev[j + 1] - k_gap);
      h = std::max(h, cur[j] - k_gap);
      h = std::max(h, 0);
      cur[j + 1] = h;
      best = std::max(best, h);
    }
    right[i] = cur[n];
    std::swap(prev, cur);
  }
  std::copy(prev.begin() + 1, prev.end(), &bottom_[(i0 * nb + j0) * n]);
  best_[i0 * nb + j0] = best;
}

std::int64_t wavefront::result() const {
  std::int64_t r = 0;
  for (std::int32_t b : best_) {
    if (b < 0) return -1;  // a block was not computed
    r = std::max<std::int64_t>(r, b);
  }
  return r;
}

std::int64_t wavefront_expected(int blocks, int block) {
  wavefront w(blocks, block);
  w.reset();
  for (int i = 0; i < blocks; ++i)
    for (int j = 0; j < blocks; ++j) w.block(i, j);
  return w.result();
}

// The serial implementation with the sort and wavefront rows (set apart from the
// positional list).
const implementation& serial_impl() {
  static const implementation full = [] {
    implementation s = k_serial;
    s.sort_lib = [](int* v, std::size_t n) { std::sort(v, v + n); };
    s.stable_sort_lib = [](int* v, std::size_t n) { std::stable_sort(v, v + n); };
    s.wave = [](wavefront& w) {
      for (int i = 0; i < w.blocks(); ++i)
        for (int j = 0; j < w.blocks(); ++j) w.block(i, j);
      return w.result();
    };
    return s;
  }();
  return full;
}

}  // namespace forkjoin::bench

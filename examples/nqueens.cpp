// nqueens.cpp: counts N-queens solutions with one task_group per row: every safe column
// becomes a child task. Checks the count (n = 10: 724 by default).
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "forkjoin/forkjoin.hpp"

namespace {
constexpr long k_solutions[] = {1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596};

struct board {
  std::array<signed char, 16> col{};  // col[row] of each queen placed so far
};

bool safe(const board& b, int row, int c) {
  for (int r = 0; r < row; ++r) {
    const int d = b.col[static_cast<std::size_t>(r)] - c;
    if (d == 0 || d == row - r || d == r - row) return false;
  }
  return true;
}

long solve(const board& b, int row, int n) {
  if (row == n) return 1;
  std::atomic<long> count{0};
  forkjoin::task_group g;
  for (int c = 0; c < n; ++c) {
    if (!safe(b, row, c)) continue;
    board next = b;
    next.col[static_cast<std::size_t>(row)] = static_cast<signed char>(c);
    g.run([next, row, n, &count] { count.fetch_add(solve(next, row + 1, n), std::memory_order_relaxed); });
  }
  g.wait();
  return count.load(std::memory_order_relaxed);
}
}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 10;
  if (n < 1 || n > 14) {
    std::fprintf(stderr, "nqueens: n must be 1..14\n");
    return 2;
  }
  const long r = forkjoin::default_pool().run([n] { return solve(board{}, 0, n); });
  std::printf("nqueens(%d) = %ld\n", n, r);
  return r == k_solutions[n] ? 0 : 1;
}

// wavefront.cpp: task dependencies (OpenMP's `task depend`) in a task_group. The edit
// distance of two strings, computed in square blocks of the dynamic-programming table:
// block (i, j) needs the block above and the block to its left, so it is started with
// in() on those two and out() on itself, and runs as soon as both have finished. No
// barrier between anti-diagonals, no thread waits. Checks every cell against the plain
// serial loop.
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "forkjoin/forkjoin.hpp"

int main() {
  constexpr int k_blocks = 16, k_block = 64, k_n = k_blocks * k_block;
  std::mt19937 rng(7);
  std::string a(k_n, 'a'), b(k_n, 'a');
  for (char& c : a) c = static_cast<char>('a' + rng() % 4);
  for (char& c : b) c = static_cast<char>('a' + rng() % 4);

  // d[i][j]: edit distance of a[0, i) and b[0, j), (k_n + 1) x (k_n + 1).
  const auto w = static_cast<std::size_t>(k_n + 1);
  std::vector<int> d(w * w);
  auto cell = [&](int i, int j) {
    int& x = d[static_cast<std::size_t>(i) * w + static_cast<std::size_t>(j)];
    if (i == 0 || j == 0) {
      x = i + j;
    } else {
      const int sub = d[static_cast<std::size_t>(i - 1) * w + static_cast<std::size_t>(j - 1)] + (a[i - 1] != b[j - 1]);
      x = std::min({sub, d[static_cast<std::size_t>(i - 1) * w + static_cast<std::size_t>(j)] + 1,
                    d[static_cast<std::size_t>(i) * w + static_cast<std::size_t>(j - 1)] + 1});
    }
  };
  // Block (bi, bj) covers rows 1 + bi * k_block ... and columns 1 + bj * k_block ...;
  // row 0 and column 0 are filled first.
  auto block = [&](int bi, int bj) {
    for (int i = 1 + bi * k_block; i <= (bi + 1) * k_block; ++i)
      for (int j = 1 + bj * k_block; j <= (bj + 1) * k_block; ++j) cell(i, j);
  };
  for (int i = 0; i <= k_n; ++i) cell(i, 0);
  for (int j = 0; j <= k_n; ++j) cell(0, j);

  // One token per block; the dependencies name tokens, not the cells themselves. Row and
  // column -1 are tokens nobody writes.
  std::vector<char> token((k_blocks + 1) * (k_blocks + 1));
  auto tok = [&](int bi, int bj) -> char& {
    return token[static_cast<std::size_t>((bi + 1) * (k_blocks + 1) + bj + 1)];
  };
  forkjoin::task_group g;
  for (int bi = 0; bi < k_blocks; ++bi)
    for (int bj = 0; bj < k_blocks; ++bj)
      g.run(forkjoin::in(tok(bi - 1, bj)), forkjoin::in(tok(bi, bj - 1)), forkjoin::out(tok(bi, bj)),
            [&block, bi, bj] { block(bi, bj); });
  g.wait();
  const std::vector<int> parallel = d;

  std::fill(d.begin(), d.end(), -1);
  for (int i = 0; i <= k_n; ++i)
    for (int j = 0; j <= k_n; ++j) cell(i, j);
  if (parallel != d) {  // every cell, not only the answer
    std::printf("wavefront: the blocked table differs from the serial one\n");
    return 1;
  }
  std::printf("wavefront: edit distance of two %d-letter strings = %d (%d x %d blocks)\n", k_n, d.back(), k_blocks,
              k_blocks);
  return 0;
}

// stencil_2d: a 5-point Jacobi stencil with parallel_for_2d (OpenMP's collapse(2)), the
// tile form of the body so that the inner loop vectorises. Checks its grid against a
// serial run (the same expression per point: bitwise equal).
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "forkjoin/forkjoin.hpp"

namespace {
float point(const std::vector<float>& a, int n, int i, int j) {
  const auto w = static_cast<std::size_t>(n), k = static_cast<std::size_t>(i) * w + static_cast<std::size_t>(j);
  return 0.25f * ((a[k - w] + a[k + w]) + (a[k - 1] + a[k + 1]));
}
}  // namespace

int main() {
  const int n = 512, sweeps = 50;
  std::vector<float> grid(static_cast<std::size_t>(n) * n, 0.0f);
  for (int k = 0; k < n; ++k) grid[static_cast<std::size_t>(k)] = 1.0f;  // the top border is hot
  std::vector<float> a = grid, b = grid;

  for (int s = 0; s < sweeps; ++s) {
    // #pragma omp parallel for collapse(2)  ->  one call; each box is [i0, i1) x [j0, j1)
    forkjoin::parallel_for_2d(1, n - 1, 1, n - 1, [&](int i0, int i1, int j0, int j1) {
      for (int i = i0; i < i1; ++i)
        for (int j = j0; j < j1; ++j)
          b[static_cast<std::size_t>(i) * n + static_cast<std::size_t>(j)] = point(a, n, i, j);
    });
    std::swap(a, b);
  }

  std::vector<float> sa = grid, sb = grid;
  for (int s = 0; s < sweeps; ++s) {
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < n - 1; ++j)
        sb[static_cast<std::size_t>(i) * n + static_cast<std::size_t>(j)] = point(sa, n, i, j);
    std::swap(sa, sb);
  }
  if (a != sa) {
    std::printf("stencil_2d: the parallel grid differs from the serial one\n");
    return EXIT_FAILURE;
  }
  std::printf("stencil_2d: %d sweeps on %d x %d, a[8][n/2] = %.6f (matches serial)\n", sweeps, n, n,
              static_cast<double>(a[static_cast<std::size_t>(8) * n + n / 2]));
  return EXIT_SUCCESS;
}

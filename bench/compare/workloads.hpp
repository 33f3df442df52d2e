// workloads.hpp: the comparison's workloads, their sizes and check values (fixed
// reference answers), and the interface every implementation provides. Each
// implementation lives in its own file (impl_*.cpp) and is written the way its users
// write it; the driver (bench_compare.cpp) times them and checks every answer.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "uts.hpp"

namespace forkjoin::bench {

// Sizes: the full run (also bench_compare --quick's), and --smoke (tiny, answers still checked).
struct sizes {
  int fib_n;             // fib without cutoff
  int skynet_depth;      // 10-ary tree; depth 6 = 1,000,000 leaves
  int nqueens_n;         // task_group per row
  int nqueens_big_n;     // full run only (0 = skip)
  int uts_root_depth;    // 0: UTS T1 (4,130,071 nodes); d > 0: T1's root placed at depth d (a small tree)
  std::size_t reduce_n;  // doubles summed
  int imbalanced_n;      // iteration i costs ~i units
  int matmul_n;          // n x n doubles
  std::size_t sort_n;    // ints
};
inline constexpr sizes k_full{32, 6, 12, 14, 0, std::size_t{1} << 25, 2048, 1024, std::size_t{1} << 22};
inline constexpr sizes k_quick{20, 4, 8, 0, 5, std::size_t{1} << 16, 200, 64, std::size_t{1} << 14};

// Sizes of the algorithm rows (2-D stencil, scan, histogram, find).
struct algorithm_sizes {
  int jacobi_n;        // n x n floats, borders fixed
  int jacobi_sweeps;   // even: the result ends in the first buffer
  std::size_t scan_n;  // doubles
  std::size_t hist_n;  // 32-bit values into 256 bins
  std::size_t find_n;  // ints; the only match at find_n / 10
};
inline constexpr algorithm_sizes k_algorithm_full{4096, 20, std::size_t{1} << 25, std::size_t{1} << 25, 100000000};
inline constexpr algorithm_sizes k_algorithm_quick{66, 4, 3 * 4096 + 5, std::size_t{1} << 14, 10000};

// Check values.
std::uint64_t fib_expected(int n);
std::uint64_t skynet_expected(int depth);  // sum of 0 .. 10^depth - 1
long nqueens_expected(int n);

// Shared inputs, built once by the driver.
struct imbalanced_input {
  int n;
  std::vector<double> expected;  // serial result per iteration
};
double imbalanced_iteration(int i);  // ~i units of dependent floating-point work

// Kernels shared by every implementation, so that only the parallel structure differs.
using queens_board = std::array<signed char, 16>;  // column of the queen in each placed row
bool queen_safe(const queens_board& b, int row, int c);
void matmul_row(const double* a, const double* b, double* c, int n, int i);  // c[i,:] += a[i,:] * b
// Quicksort step for the join-based sorts: three-way partition around the middle element;
// returns [mid1, mid2), the run equal to the pivot. Below the cutoff, std::sort.
inline constexpr std::ptrdiff_t k_sort_cutoff = 2048;
std::pair<int*, int*> partition3(int* first, int* last);
// One 5-point Jacobi point of an n x n grid: the same expression in every implementation,
// so every result is bitwise equal to the serial one.
inline float jacobi_point(const float* a, int n, int i, int j) {
  const std::size_t k = static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j);
  const auto w = static_cast<std::size_t>(n);
  return 0.25f * ((a[k - w] + a[k + w]) + (a[k - 1] + a[k + 1]));
}
inline constexpr int k_find_needle = -1;  // the find workload's value (every other element is >= 0)

// Library sorts (sort_lib, stable_sort_lib: 2^24 random ints) and the dependency wavefront.
struct sort_wave_sizes {
  std::size_t lib_sort_n;  // ints
  int wave_blocks;         // a wave_blocks x wave_blocks grid of blocks
  int wave_block;          // of wave_block x wave_block cells each
};
inline constexpr sort_wave_sizes k_sort_wave_full{std::size_t{1} << 24, 64, 128};
inline constexpr sort_wave_sizes k_sort_wave_quick{std::size_t{1} << 16, 6, 16};

// Wavefront: the best local alignment score (Smith-Waterman with a linear gap) of two
// random sequences of blocks * block letters, computed block by block. Block (i, j) reads
// the last row of block (i-1, j), the last column of block (i, j-1) and the corner of
// block (i-1, j-1) (ordered through either of the others), so it may run once its upper
// and left neighbours have finished. A block of 128 x 128 cells takes some tens of us.
class wavefront {
 public:
  wavefront(int blocks, int block);
  int blocks() const { return blocks_; }
  void block(int bi, int bj);   // computes block (bi, bj); its neighbours must be done
  std::int64_t result() const;  // max over every block's best cell
  void reset();                 // forget every block's output (and result)

 private:
  int blocks_, block_;
  std::vector<std::uint8_t> a_, b_;           // the sequences
  std::vector<std::int32_t> bottom_, right_;  // per block: its last row, its last column
  std::vector<std::int32_t> best_;            // per block: its best cell
};
std::int64_t wavefront_expected(int blocks, int block);  // a serial run, row by row

// One implementation: every function runs on `threads` threads (set by the driver before
// the call, see begin()) and returns what the driver checks. Null entries: not applicable.
struct implementation {
  std::string name;
  void (*begin)(int threads);  // set the thread count (and keep it until end)
  void (*end)();
  std::uint64_t (*fib)(int n);         // binary recursion, no cutoff
  std::uint64_t (*fib_invoke)(int n);  // the same through the runtime's parallel_invoke
  std::uint64_t (*skynet)(int depth);
  long (*nqueens)(int n);
  std::uint64_t (*uts)(const uts::node& root);  // nodes in the tree under root
  void (*loop)(int* a, int n);                  // a[i] += 1 for i in [0, n): called back to back
  void (*imbalanced)(double* out, int n);
  double (*reduce)(const double* x, std::size_t n);
  void (*matmul)(const double* a, const double* b, double* c, int n);
  void (*sort)(int* v, std::size_t n);
  // The loop again with each runtime's static schedule: forkjoin schedule::static_(),
  // OpenMP schedule(static), oneTBB static_partitioner.
  void (*loop_static)(int* a, int n);
  // The algorithm rows. jacobi: `sweeps` 5-point sweeps over the interior of n x n grids,
  // a -> b then b -> a (the result in a); scan: inclusive prefix sum; histogram: adds the
  // count of each value v & 255 to bins[256]; find: the index of the first k_find_needle.
  void (*jacobi)(float* a, float* b, int n, int sweeps);
  void (*scan)(const double* x, double* out, std::size_t n);
  void (*histogram)(const std::uint32_t* v, std::size_t n, std::uint64_t* bins);
  std::size_t (*find)(const int* v, std::size_t n);

  // Library sorts and the dependency wavefront, set by each impl_*.cpp apart from the
  // positional list above. Null: not applicable.
  void (*sort_lib)(int* v, std::size_t n) = nullptr;         // the runtime's own parallel sort
  void (*stable_sort_lib)(int* v, std::size_t n) = nullptr;  // the runtime's own stable sort
  std::int64_t (*wave)(wavefront& w) = nullptr;              // every block after its upper and left neighbours
};

const implementation& serial_impl();
const implementation& forkjoin_impl();
const implementation& tbb_impl();
const implementation& openmp_impl();
const implementation& stdpar_impl();

}  // namespace forkjoin::bench

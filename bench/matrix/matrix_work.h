/* matrix_work.h: the four workloads of the busy-neighbours matrix, defined once for the
   OpenMP program (matrix_omp.c, C) and the C++ one (matrix_cpp.cpp): their sizes, the work
   inside an iteration, a barrier step and a tree node, and their serial answers. Every
   answer but the loop's is an integer (sums modulo 2^64, a node count), so it is the same
   in any order and on any runtime; the loop's is a sum of doubles, each element updated in
   the same order whatever thread runs it. */
#ifndef FORKJOIN_BENCH_MATRIX_WORK_H
#define FORKJOIN_BENCH_MATRIX_WORK_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Casts that both languages accept without a warning (C++: -Wold-style-cast). */
#ifdef __cplusplus
#define MX_CAST(T, v) static_cast<T>(v)
#else
#define MX_CAST(T, v) ((T)(v))
#endif

/* The sizes: `full` sized so that one run takes about 0.05-0.1 s on libgomp at 2 threads on
   an idle 2-core machine (the whole matrix, where crowded runs take 10-100 times longer, must
   fit in about 15 minutes there), `quick` for the check that everything runs (milliseconds). */
struct mx_sizes {
  int regions;      /* regions: back-to-back parallel loops ... */
  int region_iters; /* ... of this many iterations ... */
  int iter_rounds;  /* ... of this many mixing rounds each (about 3.5 us) */
  int loop_calls;   /* loop: back-to-back parallel loops ... */
  int loop_n;       /* ... over this many doubles */
  int barriers;     /* barrier: barriers in one region ... */
  int step_rounds;  /* ... with this many mixing rounds per thread between two (about 5 us) */
  int tree_root;    /* tree: the root's children */
  int node_rounds;  /* mixing rounds per node */
};

static inline struct mx_sizes mx_sizes_for(int quick) {
  struct mx_sizes s;
  s.regions = quick ? 50 : 1000;
  s.region_iters = 32;
  s.iter_rounds = 750;
  s.loop_calls = quick ? 20 : 2000;
  s.loop_n = quick ? 10000 : 100000;
  s.barriers = quick ? 500 : 10000;
  s.step_rounds = 1000;
  s.tree_root = quick ? 20 : 500;
  s.node_rounds = 32;
  return s;
}

/* One mixing round: splitmix64's finalizer, a dependent chain of multiplies and shifts
   (about 4 ns) that no compiler shortens. */
static inline uint64_t mx_mix(uint64_t x) {
  x ^= x >> 30;
  x *= UINT64_C(0xbf58476d1ce4e5b9);
  x ^= x >> 27;
  x *= UINT64_C(0x94d049bb133111eb);
  x ^= x >> 31;
  return x;
}

static inline uint64_t mx_rounds(uint64_t x, int rounds) {
  for (int r = 0; r < rounds; ++r) x = mx_mix(x + MX_CAST(uint64_t, r));
  return x;
}

/* regions: iteration i of region r yields mx_rounds(seed), the region's reduction sums them
   and the run sums the regions' results. */
static inline uint64_t mx_region_iteration(const struct mx_sizes* s, int region, int i) {
  return mx_rounds(MX_CAST(uint64_t, region) * MX_CAST(uint64_t, s->region_iters) + MX_CAST(uint64_t, i),
                   s->iter_rounds);
}

static inline uint64_t mx_regions_serial(const struct mx_sizes* s) {
  uint64_t total = 0;
  for (int r = 0; r < s->regions; ++r)
    for (int i = 0; i < s->region_iters; ++i) total += mx_region_iteration(s, r, i);
  return total;
}

/* loop: a[i] = a[i] * 1.0001 + b[i], loop_calls times; the answer is the sum of a, taken
   serially in index order. */
static inline void mx_loop_init(double* a, double* b, int n) {
  for (int i = 0; i < n; ++i) {
    a[i] = MX_CAST(double, i % 7);
    b[i] = MX_CAST(double, i % 5) * 0.25;
  }
}

static inline double mx_loop_sum(const double* a, int n) {
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += a[i];
  return sum;
}

static inline double mx_loop_serial(const struct mx_sizes* s) {
  const size_t n = MX_CAST(size_t, s->loop_n);
  double* a = MX_CAST(double*, malloc(2 * n * sizeof(double)));
  if (a == NULL) abort();
  double* b = a + n;
  mx_loop_init(a, b, s->loop_n);
  for (int c = 0; c < s->loop_calls; ++c)
    for (int i = 0; i < s->loop_n; ++i) a[i] = a[i] * 1.0001 + b[i];
  const double sum = mx_loop_sum(a, s->loop_n);
  free(a);
  return sum;
}

/* barrier: at step k, thread t reads what thread t+1 (mod T) wrote at step k-1 and writes
   its own slot of the other buffer; one barrier ends every step (the double buffer makes one
   enough). A missing or leaky barrier reads a stale or a future value and changes the sum of
   the last step's slots, the answer. */
static inline uint64_t mx_barrier_step(const struct mx_sizes* s, uint64_t in, int step, int t) {
  return mx_rounds(in ^ (MX_CAST(uint64_t, step) << 20) ^ MX_CAST(uint64_t, t), s->step_rounds);
}

static inline uint64_t mx_barrier_serial(const struct mx_sizes* s, int threads) {
  uint64_t* buf = MX_CAST(uint64_t*, calloc(2 * MX_CAST(size_t, threads), sizeof(uint64_t)));
  if (buf == NULL) abort();
  for (int k = 0; k < s->barriers; ++k) {
    uint64_t* out = buf + (k & 1) * threads;
    const uint64_t* in = buf + ((k + 1) & 1) * threads;
    for (int t = 0; t < threads; ++t)
      out[t] = mx_barrier_step(s, k == 0 ? MX_CAST(uint64_t, t) : in[(t + 1) % threads], k, t);
  }
  uint64_t total = 0;
  for (int t = 0; t < threads; ++t) total += buf[((s->barriers - 1) & 1) * threads + t];
  free(buf);
  return total;
}

/* tree: UTS's binomial shape. The root has tree_root children; every other node has 4 with
   probability 0.249 (its state's top 32 bits below 0.249 * 2^32), else none: 0.996 children
   a node on average, a tree deep and narrow in places. A child's state is its parent's
   mixed with its index, then node_rounds more rounds (the node's work, about 0.15 us). The
   seed below gives 365,581 nodes, 741 levels deep, with the full root (20 children: 441). */
#define MX_TREE_SEED UINT64_C(42)
#define MX_TREE_BRANCH 4
#define MX_TREE_THRESHOLD UINT64_C(1069446856) /* 0.249 * 2^32 */

static inline uint64_t mx_tree_root_state(void) { return mx_mix(MX_TREE_SEED); }

static inline uint64_t mx_tree_child(const struct mx_sizes* s, uint64_t parent, int i) {
  return mx_rounds(mx_mix(parent ^ (MX_CAST(uint64_t, i) + 1) * UINT64_C(0x9e3779b97f4a7c15)), s->node_rounds);
}

static inline int mx_tree_children(uint64_t state) { return (state >> 32) < MX_TREE_THRESHOLD ? MX_TREE_BRANCH : 0; }

static inline uint64_t mx_tree_serial_below(const struct mx_sizes* s, uint64_t state, int depth, int* max_depth) {
  if (depth > *max_depth) *max_depth = depth;
  uint64_t total = 1;
  const int n = mx_tree_children(state);
  for (int i = 0; i < n; ++i) total += mx_tree_serial_below(s, mx_tree_child(s, state, i), depth + 1, max_depth);
  return total;
}

/* The node count (the root included); *max_depth receives the deepest level (root: 0). */
static inline uint64_t mx_tree_serial(const struct mx_sizes* s, int* max_depth) {
  const uint64_t root = mx_tree_root_state();
  uint64_t total = 1;
  *max_depth = 0;
  for (int i = 0; i < s->tree_root; ++i) total += mx_tree_serial_below(s, mx_tree_child(s, root, i), 1, max_depth);
  return total;
}

/* The workloads by name, as the programs and run_matrix.py spell them. */
enum mx_workload { mx_regions, mx_loop, mx_barrier, mx_tree, mx_none };

static inline enum mx_workload mx_workload_named(const char* name) {
  if (strcmp(name, "regions") == 0) return mx_regions;
  if (strcmp(name, "loop") == 0) return mx_loop;
  if (strcmp(name, "barrier") == 0) return mx_barrier;
  if (strcmp(name, "tree") == 0) return mx_tree;
  return mx_none;
}

#endif

/* waits.c: the two waits that real machines stress, as OpenMP users write them. Built by gcc
 * -fopenmp (libgomp's ABI); run it as linked (libgomp) and with libforkjoin-omp preloaded.
 *
 *   bench_omp_waits regions N   N back-to-back `parallel for` regions of 32 iterations of
 *                               ~4 us each, with a reduction (run it beside busy processes
 *                               and with more threads than CPUs: how waits behave when the
 *                               CPUs are crowded)
 *   bench_omp_waits tree SEED   a UTS-shaped tree (a root with 2,000 children, then 8
 *                               children with probability 0.124875, 30 hash rounds a node),
 *                               an untied task per node and a taskwait at every node (what a
 *                               task wait costs when the tree is deep)
 *
 * Prints the time and the answer; the answer is checked against a serial computation and a
 * wrong one exits 1. */
#include "common.h" /* first: it defines _GNU_SOURCE */

#include <stdint.h>

static double region_work(int i) {
  double x = i;
  for (int k = 0; k < 3000; ++k) x = x * 1.0000001 + 0.5;
  return x;
}

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

static uint64_t node_work(uint64_t h) {
  for (int k = 0; k < 30; ++k) h = mix(h);
  return h;
}

static int children(uint64_t h, int depth) {
  if (depth == 0) return 2000;
  return h % 1000000 < 124875 ? 8 : 0;
}

static long tree_serial(uint64_t id, int depth) {
  const uint64_t h = node_work(id);
  long count = 1;
  for (int i = 0, n = children(h, depth); i < n; ++i) count += tree_serial(mix(h + (uint64_t)i + 1), depth + 1);
  return count;
}

static long tree_tasks(uint64_t id, int depth) {
  const uint64_t h = node_work(id);
  const int n = children(h, depth);
  long sub[n > 0 ? n : 1];
  for (int i = 0; i < n; ++i) {
#pragma omp task untied firstprivate(i) shared(sub)
    sub[i] = tree_tasks(mix(h + (uint64_t)i + 1), depth + 1);
  }
#pragma omp taskwait
  long count = 1;
  for (int i = 0; i < n; ++i) count += sub[i];
  return count;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fputs("usage: bench_omp_waits regions N | tree SEED\n", stderr);
    return 2;
  }
  print_runtime();
  const long arg = strtol(argv[2], NULL, 10);
  if (strcmp(argv[1], "regions") == 0) {
    double expected = 0, sum = 0;
    for (long r = 0; r < arg; ++r)
      for (int i = 0; i < 32; ++i) expected += region_work(i + (int)r);
    const double t0 = now_seconds();
    for (long r = 0; r < arg; ++r) {
      double s = 0;
#pragma omp parallel for reduction(+ : s)
      for (int i = 0; i < 32; ++i) s += region_work(i + (int)r);
      sum += s;
    }
    const double t = now_seconds() - t0;
    printf("time %.3f s regions %ld threads %d sum %.6e\n", t, arg, omp_get_max_threads(), sum);
    const double err = sum > expected ? sum - expected : expected - sum; /* reduction order moves the last bits */
    BENCH_CHECK(err <= 1e-12 * expected);
  } else if (strcmp(argv[1], "tree") == 0) {
    const long expected = tree_serial((uint64_t)arg, 0);
    long n = 0;
    const double t0 = now_seconds();
#pragma omp parallel
#pragma omp single
    n = tree_tasks((uint64_t)arg, 0);
    const double t = now_seconds() - t0;
    printf("time %.3f s nodes %ld threads %d\n", t, n, omp_get_max_threads());
    BENCH_CHECK(n == expected);
  } else {
    fputs("usage: bench_omp_waits regions N | tree SEED\n", stderr);
    return 2;
  }
  return 0;
}

/* matrix_omp.c: the OpenMP side of the busy-neighbours matrix (run_matrix.py), written as
 * OpenMP users write it. Built by gcc -fopenmp (the libgomp ABI) and by clang-14 -fopenmp
 * (LLVM's), each run as linked and with libforkjoin-omp preloaded; its first output line
 * names the runtime that served it (the driver checks it).
 *
 *   matrix_omp WORKLOAD THREADS [--quick] [--expect ANSWER]
 *       runs one workload on THREADS threads and prints `runtime ...` and one JSON line
 *       {"workload", "threads", "seconds", "answer"}; a wrong answer (against ANSWER, or
 *       against the serial count when ANSWER is not given) exits 1.
 *   matrix_omp serial WORKLOAD THREADS [--quick]
 *       prints the serial answer (the barrier's depends on THREADS, the others' do not).
 *   matrix_omp spin PARENT_PID
 *       a busy neighbour: `while (1);` until killed, or until PARENT_PID exits (Linux).
 *
 * WORKLOAD: regions (back-to-back `parallel for` regions with a reduction), loop (back-to-back
 * `parallel for` over 10^5 doubles), barrier (one region, a barrier per step), tree (a UTS
 * binomial tree, an untied task per node and a taskwait at every inner node).
 */
#include "../omp/common.h" /* first: it defines _GNU_SOURCE */

#include <signal.h>
#include <stdint.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "matrix_work.h"

static void usage(void) {
  fputs(
      "usage: matrix_omp regions|loop|barrier|tree THREADS [--quick] [--expect ANSWER]\n"
      "       matrix_omp serial regions|loop|barrier|tree THREADS [--quick]\n"
      "       matrix_omp spin PARENT_PID\n",
      stderr);
  exit(2);
}

static uint64_t run_regions(const struct mx_sizes* s) {
  uint64_t total = 0;
  for (int r = 0; r < s->regions; ++r) {
    uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < s->region_iters; ++i) sum += mx_region_iteration(s, r, i);
    total += sum;
  }
  return total;
}

static void run_loop(const struct mx_sizes* s, double* a, const double* b) {
  const int n = s->loop_n;
  for (int c = 0; c < s->loop_calls; ++c) {
#pragma omp parallel for
    for (int i = 0; i < n; ++i) a[i] = a[i] * 1.0001 + b[i];
  }
}

/* One slot per cache line: the barrier's cost, not false sharing, is what is measured. */
enum { k_slot = 8 };

static uint64_t run_barrier(const struct mx_sizes* s, int threads) {
  uint64_t* buf = calloc(2 * (size_t)threads * k_slot, sizeof *buf);
  BENCH_CHECK(buf != NULL);
  int team = 0;
#pragma omp parallel
  {
    const int t = omp_get_thread_num();
    const int nt = omp_get_num_threads();
    if (t == 0) team = nt;
    if (nt == threads) /* the same on every thread: all take the barriers or none */
      for (int k = 0; k < s->barriers; ++k) {
        const uint64_t in = k == 0 ? (uint64_t)t : buf[(((k + 1) & 1) * nt + (t + 1) % nt) * k_slot];
        buf[((k & 1) * nt + t) * k_slot] = mx_barrier_step(s, in, k, t);
#pragma omp barrier
      }
  }
  BENCH_CHECK(team == threads);
  uint64_t total = 0;
  for (int t = 0; t < threads; ++t) total += buf[(((s->barriers - 1) & 1) * threads + t) * k_slot];
  free(buf);
  return total;
}

/* The subtree's size: a task per child (its state, the node's work, computed in the task),
   a taskwait at every inner node. */
static uint64_t tree_below(const struct mx_sizes* s, uint64_t state) {
  const int n = mx_tree_children(state);
  if (n == 0) return 1;
  uint64_t part[MX_TREE_BRANCH];
  for (int i = 0; i < n; ++i) {
#pragma omp task untied firstprivate(i) shared(part)
    part[i] = tree_below(s, mx_tree_child(s, state, i));
  }
#pragma omp taskwait
  uint64_t total = 1;
  for (int i = 0; i < n; ++i) total += part[i];
  return total;
}

static uint64_t run_tree(const struct mx_sizes* s) {
  const uint64_t root = mx_tree_root_state();
  uint64_t* part = malloc((size_t)s->tree_root * sizeof *part);
  BENCH_CHECK(part != NULL);
  uint64_t total = 1;
#pragma omp parallel
#pragma omp single
  {
    for (int i = 0; i < s->tree_root; ++i) {
#pragma omp task untied firstprivate(i)
      part[i] = tree_below(s, mx_tree_child(s, root, i));
    }
#pragma omp taskwait
    for (int i = 0; i < s->tree_root; ++i) total += part[i];
  }
  free(part);
  return total;
}

/* The serial answer, printed the way a run prints its own. */
static void print_serial(enum mx_workload w, const struct mx_sizes* s, int threads) {
  int depth = 0;
  switch (w) {
    case mx_regions:
      printf("%llu\n", (unsigned long long)mx_regions_serial(s));
      break;
    case mx_loop:
      printf("%.17g\n", mx_loop_serial(s));
      break;
    case mx_barrier:
      printf("%llu\n", (unsigned long long)mx_barrier_serial(s, threads));
      break;
    case mx_tree:
      printf("%llu\n", (unsigned long long)mx_tree_serial(s, &depth));
      break;
    case mx_none:
      usage();
  }
}

/* A busy neighbour: spins on one CPU at normal priority. It dies with the driver (a killed
   driver must not leave it spinning on a shared machine). */
static void spin(pid_t parent) {
#ifdef __linux__
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) exit(1);
#else
  (void)parent;
#endif
  while (1)
    ;
}

int main(int argc, char** argv) {
  if (argc >= 3 && strcmp(argv[1], "spin") == 0) spin((pid_t)atol(argv[2]));
  const int serial = argc >= 2 && strcmp(argv[1], "serial") == 0;
  const int first = serial ? 2 : 1;
  if (argc < first + 2) usage();
  const enum mx_workload w = mx_workload_named(argv[first]);
  const int threads = atoi(argv[first + 1]);
  int quick = 0;
  const char* expect = NULL;
  for (int i = first + 2; i < argc; ++i) {
    if (strcmp(argv[i], "--quick") == 0)
      quick = 1;
    else if (strcmp(argv[i], "--expect") == 0 && i + 1 < argc && !serial)
      expect = argv[++i];
    else
      usage();
  }
  if (w == mx_none || threads < 1 || threads > 256) usage();
  const struct mx_sizes s = mx_sizes_for(quick);
  if (serial) {
    print_serial(w, &s, threads);
    return 0;
  }

  omp_set_num_threads(threads);
  print_runtime();
  /* The team started (and its size checked) before the clock: the first region's thread
     creation is not what the matrix measures. */
  int team = 0;
#pragma omp parallel
  {
    if (omp_get_thread_num() == 0) team = omp_get_num_threads();
  }
  BENCH_CHECK(team == threads);

  double* a = NULL;
  double* b = NULL;
  if (w == mx_loop) {
    a = malloc(2 * (size_t)s.loop_n * sizeof *a);
    BENCH_CHECK(a != NULL);
    b = a + s.loop_n;
    mx_loop_init(a, b, s.loop_n);
  }
  uint64_t answer = 0;
  double sum = 0;
  const double t0 = now_seconds();
  switch (w) {
    case mx_regions:
      answer = run_regions(&s);
      break;
    case mx_loop:
      run_loop(&s, a, b);
      break;
    case mx_barrier:
      answer = run_barrier(&s, threads);
      break;
    case mx_tree:
      answer = run_tree(&s);
      break;
    case mx_none:
      usage();
  }
  const double seconds = now_seconds() - t0;

  char text[64];
  if (w == mx_loop) {
    sum = mx_loop_sum(a, s.loop_n);
    free(a);
    snprintf(text, sizeof text, "%.17g", sum);
  } else {
    snprintf(text, sizeof text, "%llu", (unsigned long long)answer);
  }
  /* The check: against the driver's serial answer, else against one computed here (after the
     clock). The loop's sum may differ in its last bits between builds: relative 1e-9. */
  if (w == mx_loop) {
    const double want = expect != NULL ? strtod(expect, NULL) : mx_loop_serial(&s);
    BENCH_CHECK(sum == want || ((sum - want) / want < 1e-9 && (want - sum) / want < 1e-9));
  } else if (expect != NULL) {
    BENCH_CHECK(strcmp(text, expect) == 0);
  } else {
    int depth = 0;
    const uint64_t want = w == mx_regions   ? mx_regions_serial(&s)
                          : w == mx_barrier ? mx_barrier_serial(&s, threads)
                                            : mx_tree_serial(&s, &depth);
    BENCH_CHECK(answer == want);
  }
  printf("{\"workload\": \"%s\", \"threads\": %d, \"seconds\": %.6f, \"answer\": \"%s\"}\n", argv[first], threads,
         seconds, text);
  return 0;
}

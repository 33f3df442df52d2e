/* loop_sweep_omp.c: the OpenMP rows of the loop sweep (loop_sweep.cpp has the others):
 * back-to-back `a[i] = a[i] * 0.5f + 1` over one float array, written as OpenMP users
 * write it. Built once by gcc -fopenmp (the libgomp ABI) and run on libgomp, LLVM's libomp
 * and libforkjoin-omp by preloading; its first output line names the runtime that served it.
 *
 *   loop_sweep_omp static|dynamic outside|inside N [--threads T] [--rounds R] [--round-ms MS]
 *     outside: `#pragma omp parallel for schedule(...)` per call
 *     inside:  one `#pragma omp parallel` around all calls, `#pragma omp for` per call
 *   dynamic is schedule(dynamic, 256).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { k_classes = 16, k_chunk = 256 };

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static void usage(void) {
  fputs("usage: loop_sweep_omp static|dynamic outside|inside N [--threads T] [--rounds R] [--round-ms MS]\n", stderr);
  exit(2);
}

static int g_dynamic, g_inside;
static long g_n;

static void round_of(float* a, long calls) {
  const long n = g_n;
  if (g_inside) {
#pragma omp parallel
    for (long k = 0; k < calls; ++k) {
      if (g_dynamic) {
#pragma omp for schedule(dynamic, k_chunk)
        for (long i = 0; i < n; ++i) a[i] = a[i] * 0.5f + 1;
      } else {
#pragma omp for schedule(static)
        for (long i = 0; i < n; ++i) a[i] = a[i] * 0.5f + 1;
      }
    }
    return;
  }
  for (long k = 0; k < calls; ++k) {
    if (g_dynamic) {
#pragma omp parallel for schedule(dynamic, k_chunk)
      for (long i = 0; i < n; ++i) a[i] = a[i] * 0.5f + 1;
    } else {
#pragma omp parallel for schedule(static)
      for (long i = 0; i < n; ++i) a[i] = a[i] * 0.5f + 1;
    }
  }
}

int main(int argc, char** argv) {
  if (argc < 4) usage();
  if (!strcmp(argv[1], "dynamic"))
    g_dynamic = 1;
  else if (strcmp(argv[1], "static"))
    usage();
  if (!strcmp(argv[2], "inside"))
    g_inside = 1;
  else if (strcmp(argv[2], "outside"))
    usage();
  g_n = atol(argv[3]);
  int threads = 2, rounds = 7;
  double round_ms = 20;
  for (int i = 4; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--threads"))
      threads = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--rounds"))
      rounds = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--round-ms"))
      round_ms = atof(argv[i + 1]);
    else
      usage();
  }
  if (g_n <= 0 || threads < 1 || rounds < 1 || rounds > 100) usage();
  omp_set_num_threads(threads);

  Dl_info info; /* which library serves the OpenMP calls: run_sweep.py checks it */
  if (dladdr((void*)omp_get_thread_num, &info) == 0 || info.dli_fname == NULL) return 3;
  const char* slash = strrchr(info.dli_fname, '/');
  printf("runtime %s\n", slash ? slash + 1 : info.dli_fname);

  float* a = malloc((size_t)g_n * sizeof *a);
  if (a == NULL) return 3;
  for (long i = 0; i < g_n; ++i) a[i] = (float)(i % k_classes);
  long calls_total = 0, calls = 1;
  /* Warm up (the team started, the data in cache) for a round's time, then calibrate: the
   * number of calls that fills one round. */
  for (const double t0 = now_us(); now_us() - t0 < round_ms * 1000;) {
    round_of(a, 1);
    calls_total += 1;
  }
  for (;;) {
    const double t0 = now_us();
    round_of(a, calls);
    calls_total += calls;
    const double ms = (now_us() - t0) / 1000;
    if (ms >= round_ms / 4 || calls >= (1L << 30)) {
      calls = (long)((double)calls * round_ms / (ms > 1e-3 ? ms : 1e-3));
      if (calls < 1) calls = 1;
      break;
    }
    calls *= 4;
  }
  double us[100];
  for (int r = 0; r < rounds; ++r) {
    const double t0 = now_us();
    round_of(a, calls);
    calls_total += calls;
    us[r] = (now_us() - t0) / (double)calls;
  }
  float expected[k_classes];
  for (int c = 0; c < k_classes; ++c) {
    float x = (float)c;
    for (long k = 0; k < calls_total; ++k) x = x * 0.5f + 1;
    expected[c] = x;
  }
  for (long i = 0; i < g_n; ++i)
    if (a[i] != expected[i % k_classes]) {
      fprintf(stderr, "loop_sweep_omp: element %ld is %g, expected %g\n", i, (double)a[i],
              (double)expected[i % k_classes]);
      return 1;
    }
  printf(
      "{\"lib\": \"omp\", \"sched\": \"%s\", \"mode\": \"%s\", \"n\": %ld, \"threads\": %d, \"calls\": %ld, \"us\": [",
      argv[1], argv[2], g_n, threads, calls);
  for (int r = 0; r < rounds; ++r) printf("%s%.4f", r ? ", " : "", us[r]);
  printf("]}\n");
  free(a);
  return 0;
}

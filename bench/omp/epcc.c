/* epcc: the overhead of each OpenMP construct, measured in EPCC's way: a loop runs the
   construct `reps` times around a short delay; the same delays run alone in a reference loop;
   overhead = (construct loop - reference loop) / reps, in microseconds. The repetition count
   is calibrated so that one construct loop lasts about `target` seconds; the figure printed is
   the median over `outer` such loops. Every construct's effect is checked (counters,
   order, reduction result): a wrong answer exits with status 1.

   usage: epcc [--quick] [construct...]     prints "construct NAME THREADS OVERHEAD_US" */
#include "common.h"

static int delay_length = 1; /* inner iterations of one delay(), calibrated to ~0.1 us */
static double target_seconds = 0.02;
static int outer_reps = 9;

static void delay(int n) {
  double a = 0.0;
  for (int i = 0; i < n; ++i) a += i;
  if (a < 0) printf("%f\n", a); /* never true: keeps the loop */
}

static void calibrate_delay(void) {
  long reps = 1000;
  for (;;) {
    double t0 = now_seconds();
    for (long j = 0; j < reps; ++j) delay(100);
    double t = now_seconds() - t0;
    if (t > 0.01) {
      double per_iteration = t / ((double)reps * 100.0);
      delay_length = (int)(0.1e-6 / per_iteration);
      if (delay_length < 1) delay_length = 1;
      return;
    }
    reps *= 2;
  }
}

static int nthreads(void) {
  int n = 0;
#pragma omp parallel
#pragma omp single
  n = omp_get_num_threads();
  return n;
}

/* ---- the constructs (each returns normally only if its checks hold) --------------------- */

static long counter;

static void reference(long reps) {
  for (long j = 0; j < reps; ++j) delay(delay_length);
}

static void test_parallel(long reps) {
  counter = 0;
  for (long j = 0; j < reps; ++j) {
#pragma omp parallel
    {
      delay(delay_length);
      if (omp_get_thread_num() == 0) counter++;
    }
  }
  BENCH_CHECK(counter == reps);
}

static void test_for(long reps) {
  counter = 0;
#pragma omp parallel
  {
    int n = omp_get_num_threads();
    for (long j = 0; j < reps; ++j) {
#pragma omp for
      for (int i = 0; i < n; ++i) {
        delay(delay_length);
#pragma omp atomic
        counter++;
      }
    }
  }
  BENCH_CHECK(counter == reps * nthreads());
}

static void test_parallel_for(long reps) {
  int n = nthreads();
  counter = 0;
  for (long j = 0; j < reps; ++j) {
#pragma omp parallel for
    for (int i = 0; i < n; ++i) {
      delay(delay_length);
#pragma omp atomic
      counter++;
    }
  }
  BENCH_CHECK(counter == reps * n);
}

static long barrier_round[64];

static void test_barrier(long reps) {
  long bad = 0;
  memset(barrier_round, 0, sizeof barrier_round);
#pragma omp parallel reduction(+ : bad)
  {
    int n = omp_get_num_threads(), me = omp_get_thread_num();
    for (long j = 0; j < reps; ++j) {
      delay(delay_length);
      if (n <= 64 && me < 64) {
#pragma omp atomic write
        barrier_round[me] = j;
      }
#pragma omp barrier
      /* every thread has reached round j, and none is past round j + 1 */
      for (int k = 0; k < n && k < 64; ++k) {
        long r;
#pragma omp atomic read
        r = barrier_round[k];
        if (r < j || r > j + 1) bad++;
      }
    }
  }
  BENCH_CHECK(bad == 0);
}

static void test_single(long reps) {
  counter = 0;
#pragma omp parallel
  for (long j = 0; j < reps; ++j) {
#pragma omp single
    {
      delay(delay_length);
      counter++;
    }
  }
  BENCH_CHECK(counter == reps);
}

static void test_critical(long reps) {
  counter = 0;
#pragma omp parallel
  {
    long mine = reps / omp_get_num_threads();
    for (long j = 0; j < mine; ++j) {
#pragma omp critical
      {
        delay(delay_length);
        counter++;
      }
    }
  }
  BENCH_CHECK(counter == reps / nthreads() * nthreads());
}

static omp_lock_t lock;

static void test_lock(long reps) {
  counter = 0;
#pragma omp parallel
  {
    long mine = reps / omp_get_num_threads();
    for (long j = 0; j < mine; ++j) {
      omp_set_lock(&lock);
      delay(delay_length);
      counter++;
      omp_unset_lock(&lock);
    }
  }
  BENCH_CHECK(counter == reps / nthreads() * nthreads());
}

static void test_ordered(long reps) {
  long next = 0, bad = 0;
#pragma omp parallel for ordered schedule(static, 1)
  for (long j = 0; j < reps; ++j) {
#pragma omp ordered
    {
      delay(delay_length);
      if (next != j) bad++;
      next = j + 1;
    }
  }
  BENCH_CHECK(bad == 0 && next == reps);
}

static void test_reduction(long reps) {
  long total = 0;
  for (long j = 0; j < reps; ++j) {
    long x = 0;
#pragma omp parallel reduction(+ : x)
    {
      delay(delay_length);
      x += omp_get_thread_num() + 1;
    }
    total += x;
  }
  long n = nthreads();
  BENCH_CHECK(total == reps * n * (n + 1) / 2);
}

static void test_task(long reps) {
  counter = 0;
#pragma omp parallel
  for (long j = 0; j < reps; ++j) {
#pragma omp task
    {
      delay(delay_length);
#pragma omp atomic
      counter++;
    }
#pragma omp taskwait
  }
  BENCH_CHECK(counter == reps * nthreads());
}

static void test_taskgroup(long reps) {
  counter = 0;
#pragma omp parallel
  for (long j = 0; j < reps; ++j) {
#pragma omp taskgroup
    {
#pragma omp task
      {
        delay(delay_length);
#pragma omp atomic
        counter++;
      }
    }
  }
  BENCH_CHECK(counter == reps * nthreads());
}

/* ---- the harness ------------------------------------------------------------------------ */

struct construct {
  const char* name;
  void (*run)(long reps);
};

static const struct construct constructs[] = {
    {"parallel", test_parallel},
    {"for", test_for},
    {"parallel_for", test_parallel_for},
    {"barrier", test_barrier},
    {"single", test_single},
    {"critical", test_critical},
    {"lock", test_lock},
    {"ordered", test_ordered},
    {"reduction", test_reduction},
    {"task", test_task},
    {"taskgroup", test_taskgroup},
};

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double measure(void (*run)(long), long reps) {
  double t0 = now_seconds();
  run(reps);
  return now_seconds() - t0;
}

static double overhead_us(const struct construct* c) {
  long reps = 16;
  c->run(reps); /* warm up: threads started, pages touched */
  while (measure(c->run, reps) < target_seconds && reps < (1L << 30)) reps *= 2;
  double samples[64];
  for (int k = 0; k < outer_reps; ++k) {
    double test = measure(c->run, reps);
    double ref = measure(reference, reps);
    samples[k] = (test - ref) / (double)reps * 1e6;
  }
  qsort(samples, (size_t)outer_reps, sizeof samples[0], cmp_double);
  return samples[outer_reps / 2];
}

int main(int argc, char** argv) {
  int first = 1;
  if (argc > 1 && strcmp(argv[1], "--quick") == 0) {
    target_seconds = 0.0005;
    outer_reps = 1;
    first = 2;
  }
  omp_init_lock(&lock);
  calibrate_delay();
  print_runtime();
  int n = nthreads();
  for (size_t i = 0; i < sizeof constructs / sizeof constructs[0]; ++i) {
    int wanted = first >= argc;
    for (int a = first; a < argc; ++a) wanted |= strcmp(argv[a], constructs[i].name) == 0;
    if (!wanted) continue;
    printf("construct %s %d %.4f\n", constructs[i].name, n, overhead_us(&constructs[i]));
    fflush(stdout);
  }
  omp_destroy_lock(&lock);
  return 0;
}

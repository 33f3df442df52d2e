/* icount_omp.c: the OpenMP constructs the performance gate counts instructions of, run by
 * run_gate.py under callgrind on libforkjoin-omp (preloaded) with OMP_NUM_THREADS=1, so that
 * the count is the construct's own path and does not depend on how threads interleave.
 * Collection is off until the construct's K repetitions start.
 *
 *   icount_omp OPERATION    (icount_omp --list prints the operations with their K)
 *
 * Prints "OPERATION K checksum"; exits 1 on a wrong answer.
 */
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <valgrind/callgrind.h>

enum { k_n = 1000 };
static float g_a[k_n];

static long op_parallel(long k) {
  long s = 0;
  for (long r = 0; r < k; ++r) {
#pragma omp parallel reduction(+ : s)
    s += 1;
  }
  return s;
}

static long op_for(long k) {
  long s = 0;
#pragma omp parallel reduction(+ : s)
  for (long r = 0; r < k; ++r) {
#pragma omp for schedule(static)
    for (int i = 0; i < k_n; ++i) g_a[i] = g_a[i] * 0.5f + 1;
    s += 1;
  }
  return s;
}

static long op_barrier(long k) {
  long s = 0;
#pragma omp parallel reduction(+ : s)
  for (long r = 0; r < k; ++r) {
#pragma omp barrier
    s += 1;
  }
  return s;
}

static long op_task(long k) {
  long s = 0;
#pragma omp parallel
#pragma omp single
  {
    for (long r = 0; r < k; ++r) {
#pragma omp task shared(s)
      {
#pragma omp atomic
        s += 1;
      }
    }
#pragma omp taskwait
  }
  return s;
}

struct operation {
  const char* name;
  long k;
  long (*run)(long);
};
static const struct operation k_ops[] = {
    {"omp_parallel", 2000, op_parallel},
    {"omp_for_1000", 2000, op_for},
    {"omp_barrier", 5000, op_barrier},
    {"omp_task", 5000, op_task},
};

int main(int argc, char** argv) {
  const int n_ops = (int)(sizeof k_ops / sizeof k_ops[0]);
  if (argc == 2 && !strcmp(argv[1], "--list")) {
    for (int i = 0; i < n_ops; ++i) printf("%s %ld\n", k_ops[i].name, k_ops[i].k);
    return 0;
  }
  if (argc != 2) {
    fputs("usage: icount_omp OPERATION | --list\n", stderr);
    return 2;
  }
  for (int i = 0; i < n_ops; ++i) {
    if (strcmp(argv[1], k_ops[i].name)) continue;
    k_ops[i].run(10); /* warm: the team, its hot data, first-touch allocations */
    CALLGRIND_TOGGLE_COLLECT;
    const long s = k_ops[i].run(k_ops[i].k);
    CALLGRIND_TOGGLE_COLLECT;
    const long expected = k_ops[i].k * omp_get_max_threads();
    if (s != (k_ops[i].run == op_task ? k_ops[i].k : expected)) {
      fprintf(stderr, "icount_omp: %s computed %ld\n", argv[1], s);
      return 1;
    }
    printf("%s %ld %ld\n", argv[1], k_ops[i].k, s);
    return 0;
  }
  fprintf(stderr, "icount_omp: no operation %s\n", argv[1]);
  return 2;
}

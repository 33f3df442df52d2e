/* construct_ir: each EPCC construct run a fixed number of times, one function per construct
   (run_<name>), for callgrind: `valgrind --tool=callgrind --toggle-collect='run_*'` counts the
   instructions each construct costs the runtime, deterministically (run_construct_ir.py runs
   it on each runtime and divides). With one thread it is the path every construct takes
   through the runtime; with more, waiting threads add what they spin. Compiler-neutral C: the
   gcc build calls libgomp's ABI, the clang build LLVM's. Every construct's effect is checked.

   usage: construct_ir REPS      prints the runtime line (common.h), then "construct_ir: ok" */
#include "common.h"

#define CHECK(cond) BENCH_CHECK(cond)

static long reps;
static long counter;
static omp_lock_t lock;

#define NOINLINE __attribute__((noinline))

NOINLINE static void run_parallel(void) {
  counter = 0;
  for (long j = 0; j < reps; ++j) {
#pragma omp parallel
    {
      if (omp_get_thread_num() == 0) counter++;
    }
  }
  CHECK(counter == reps);
}

NOINLINE static void run_for(void) {
  long hits = 0;
#pragma omp parallel reduction(+ : hits)
  for (long j = 0; j < reps; ++j) {
#pragma omp for
    for (int i = 0; i < 8; ++i) hits++;
  }
  CHECK(hits == 8 * reps);
}

NOINLINE static void run_parallel_for(void) {
  long hits = 0;
  for (long j = 0; j < reps; ++j) {
#pragma omp parallel for reduction(+ : hits)
    for (int i = 0; i < 4; ++i) hits++;
  }
  CHECK(hits == 4 * reps);
}

NOINLINE static void run_barrier(void) {
#pragma omp parallel
  for (long j = 0; j < reps; ++j) {
#pragma omp barrier
  }
}

NOINLINE static void run_single(void) {
  counter = 0;
#pragma omp parallel
  for (long j = 0; j < reps; ++j) {
#pragma omp single
    counter++;
  }
  CHECK(counter == reps);
}

NOINLINE static void run_critical(void) {
  counter = 0;
#pragma omp parallel
  for (long j = 0; j < reps; ++j) {
#pragma omp critical
    counter++;
  }
  CHECK(counter % reps == 0);
}

NOINLINE static void run_lock(void) {
  counter = 0;
#pragma omp parallel
  for (long j = 0; j < reps; ++j) {
    omp_set_lock(&lock);
    counter++;
    omp_unset_lock(&lock);
  }
  CHECK(counter % reps == 0);
}

NOINLINE static void run_ordered(void) {
  long next = 0;
#pragma omp parallel for ordered schedule(static, 1)
  for (long j = 0; j < reps; ++j) {
#pragma omp ordered
    {
      CHECK(next == j);
      next++;
    }
  }
  CHECK(next == reps);
}

NOINLINE static void run_reduction(void) {
  for (long j = 0; j < reps; ++j) {
    long s = 0;
#pragma omp parallel reduction(+ : s)
    s += 1;
    CHECK(s >= 1);
  }
}

NOINLINE static void run_task(void) {
  counter = 0;
#pragma omp parallel
#pragma omp single
  for (long j = 0; j < reps; ++j) {
#pragma omp task
    {
#pragma omp atomic
      counter++;
    }
  }
  CHECK(counter == reps);
}

NOINLINE static void run_taskgroup(void) {
  counter = 0;
#pragma omp parallel
#pragma omp single
  for (long j = 0; j < reps; ++j) {
#pragma omp taskgroup
    {
#pragma omp task
      {
#pragma omp atomic
        counter++;
      }
    }
  }
  CHECK(counter == reps);
}

int main(int argc, char** argv) {
  print_runtime();
  reps = argc > 1 ? atol(argv[1]) : 1000;
  omp_init_lock(&lock);
  /* a first region outside the measured functions: the runtime's start-up is not counted */
#pragma omp parallel
  counter++;
  run_parallel();
  run_for();
  run_parallel_for();
  run_barrier();
  run_single();
  run_critical();
  run_lock();
  run_ordered();
  run_reduction();
  run_task();
  run_taskgroup();
  omp_destroy_lock(&lock);
  printf("construct_ir: ok\n");
  return 0;
}

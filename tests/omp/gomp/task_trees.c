/* task_trees: task trees and task waits. A waiter whose own deque holds no descendant takes one
   from a teammate (a grandchild that a stolen child needs before it can finish); an unbalanced
   tree with a task and a taskwait per node, every node run exactly once; every thread creating
   tasks and waiting for them at once, and growing trees of its own (a waiter that steals a
   teammate's non-descendant hands it back); a producer whose deque fills up (tasks run undeferred, still once each). */
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

/* ---- a waiter must help a teammate's subtree ----------------------------------------------- */

static int wait_for_flag(const int* flag) {
  const double t0 = omp_get_wtime();
  while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE))
    if (omp_get_wtime() - t0 > 20) return 0; /* the grandchild never ran */
  return 1;
}

/* The child starts on another thread (the creator waits until it has) and spins until its own
   child has run. With two threads that grandchild sits in the child's thread's deque, and only
   the creator, waiting in taskwait, can run it. */
static void helper_needed(void) {
  int started = 0, grandchild_done = 0, ok = 0;
#pragma omp parallel shared(started, grandchild_done, ok)
#pragma omp single
  {
#pragma omp task shared(started, grandchild_done, ok)
    {
      __atomic_store_n(&started, 1, __ATOMIC_RELEASE);
#pragma omp task shared(grandchild_done)
      __atomic_store_n(&grandchild_done, 1, __ATOMIC_RELEASE);
      ok = wait_for_flag(&grandchild_done);
#pragma omp taskwait
    }
    if (omp_get_num_threads() > 1) CHECK(wait_for_flag(&started));
#pragma omp taskwait
  }
  CHECK(ok == 1);
}

/* ---- an unbalanced tree, a hit counter per node -------------------------------------------- */

enum { k_root_children = 1000, k_max_nodes = 1 << 20 };
static unsigned char hits[k_max_nodes];
static long next_id;

static uint64_t mix(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static int children_of(uint64_t s) { return (s >> 11) % 8 == 0 ? 7 : 0; } /* 7 children with p = 1/8 */
static uint64_t child_state(uint64_t s, int i) { return mix(s ^ (uint64_t)(i + 1) * 0xD1B54A32D192ED03ull); }

static long serial_count(uint64_t s, int n) {
  long total = 1;
  for (int i = 0; i < n; ++i) {
    const uint64_t c = child_state(s, i);
    total += serial_count(c, children_of(c));
  }
  return total;
}

/* each node takes an id (its hit counter) and returns its subtree's size */
static long tree(uint64_t s, int n) {
  const long id = __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
  if (id < k_max_nodes) __atomic_fetch_add(&hits[id], 1, __ATOMIC_RELAXED);
  long small[8];
  long* part = n <= 8 ? small : malloc((size_t)n * sizeof *part);
  CHECK(part != NULL);
  for (int i = 0; i < n; ++i) {
#pragma omp task firstprivate(i) shared(part)
    {
      const uint64_t c = child_state(s, i);
      part[i] = tree(c, children_of(c));
    }
  }
#pragma omp taskwait
  long total = 1;
  for (int i = 0; i < n; ++i) total += part[i];
  if (part != small) free(part);
  return total;
}

static void unbalanced_tree(void) {
  const uint64_t root = mix(3);
  const long expected = serial_count(root, k_root_children);
  CHECK(expected < k_max_nodes);
  for (int round = 0; round < 3; ++round) {
    memset(hits, 0, sizeof hits);
    next_id = 0;
    long r = 0;
#pragma omp parallel
#pragma omp single
    r = tree(root, k_root_children);
    CHECK(r == expected);
    CHECK(next_id == expected);
    for (long i = 0; i < expected; ++i) CHECK(hits[i] == 1);
  }
}

/* ---- every thread creates tasks and waits for them ------------------------------------------ */

enum { k_per_thread = 2000 };
static unsigned char ran[64 * k_per_thread];

static void every_thread_waits(void) {
  memset(ran, 0, sizeof ran);
  int threads = 0;
#pragma omp parallel
  {
    const int me = omp_get_thread_num();
#pragma omp single
    threads = omp_get_num_threads();
    for (int round = 0; round < 20; ++round) {
      for (int i = 0; i < k_per_thread / 20; ++i) {
        const int id = me * k_per_thread + round * (k_per_thread / 20) + i;
#pragma omp task firstprivate(id)
        {
          for (volatile int spin = 0; spin < (id % 7) * 200; ++spin) {
          }
          __atomic_fetch_add(&ran[id], 1, __ATOMIC_RELAXED);
        }
      }
#pragma omp taskwait
      for (int i = 0; i < k_per_thread / 20; ++i)
        CHECK(__atomic_load_n(&ran[me * k_per_thread + round * (k_per_thread / 20) + i], __ATOMIC_RELAXED) == 1);
    }
  }
  CHECK(threads <= 64);
  for (int i = 0; i < threads * k_per_thread; ++i) CHECK(ran[i] == 1);
}

/* Every thread grows its own tree (of a different size, so that the first done steals from the
   others at the barrier); a waiter that then steals from a teammate may take a task of the
   teammate's own tree, which is not its descendant, and must hand it back. */
static long fib_tasks(int n) {
  if (n < 2) return n;
  long a, b;
#pragma omp task shared(a)
  a = fib_tasks(n - 1);
#pragma omp task shared(b)
  b = fib_tasks(n - 2);
#pragma omp taskwait
  return a + b;
}

static void every_thread_grows_a_tree(void) {
  static const long fib_of[] = {4181, 6765, 10946, 17711}; /* fib(19) to fib(22) */
  int bad = 0;
  for (int round = 0; round < 5; ++round) {
#pragma omp parallel reduction(+ : bad)
    {
      const int k = (omp_get_thread_num() + round) % 4;
      if (fib_tasks(19 + k) != fib_of[k]) bad++;
    }
  }
  CHECK(bad == 0);
}

/* ---- a producer whose deque fills: later tasks run undeferred, each once ------------------- */

enum { k_produced = 20000 };
static unsigned char produced[k_produced];

static void full_deque(void) {
  memset(produced, 0, sizeof produced);
  long sum = 0;
#pragma omp parallel
#pragma omp single
  {
    for (int i = 0; i < k_produced; ++i) {
#pragma omp task firstprivate(i) shared(sum)
      {
        __atomic_fetch_add(&produced[i], 1, __ATOMIC_RELAXED);
#pragma omp atomic
        sum += i;
      }
    }
#pragma omp taskwait
  }
  CHECK(sum == (long)k_produced * (k_produced - 1) / 2);
  for (int i = 0; i < k_produced; ++i) CHECK(produced[i] == 1);
}

int main(void) {
  helper_needed();
  unbalanced_tree();
  every_thread_waits();
  every_thread_grows_a_tree();
  full_deque();
  puts("task_trees: ok");
  return 0;
}

/* tasks: fib with tasks and taskwait, 10^5 tasks queued by one thread, taskgroup waiting for grandchildren, tasks
   drained by the region's end and by barriers, if(0) tasks with a copy function (VLA firstprivate), 64-byte aligned
   firstprivate data, final/omp_in_final, untied and mergeable, taskyield, tasks from every thread, and orphaned tasks
   outside any region. */
#include <omp.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static long fib(int n) {
  if (n < 2) return n;
  long a, b;
#pragma omp task shared(a) untied
  a = fib(n - 1);
#pragma omp task shared(b) mergeable
  b = fib(n - 2);
#pragma omp taskwait
  return a + b;
}

#define LIVE 100000
static unsigned char ran[LIVE];

struct aligned_block {
  _Alignas(64) char bytes[64];
};

int main(void) {
  long r = -1;
#pragma omp parallel
#pragma omp single
  r = fib(20);
  CHECK(r == 6765);

  /* 10^5 tasks created back to back (most of them queued at once), then one taskwait */
  memset(ran, 0, sizeof ran);
  long total = 0;
#pragma omp parallel
  {
#pragma omp single
    {
      for (int i = 0; i < LIVE; ++i) {
#pragma omp task firstprivate(i)
        {
          __atomic_fetch_add(&ran[i], 1, __ATOMIC_RELAXED);
#pragma omp taskyield
        }
      }
#pragma omp taskwait
      for (int i = 0; i < LIVE; ++i) total += ran[i];
    }
  }
  CHECK(total == LIVE);
  for (int i = 0; i < LIVE; ++i) CHECK(ran[i] == 1);

  /* taskgroup waits for descendants, not only children */
  int grand = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskgroup
    {
      for (int i = 0; i < 50; ++i) {
#pragma omp task
        {
#pragma omp task
          {
#pragma omp atomic
            grand++;
          }
        }
      }
    }
    CHECK(grand == 50);
  }

  /* the region's end and barriers wait for outstanding tasks, also long ones that other
     threads are still running when the last thread arrives */
  int at_end = 0, at_barrier = 0, bad = 0;
#pragma omp parallel reduction(+ : bad)
  {
    for (int i = 0; i < 20; ++i) {
#pragma omp task
      {
        if (i % 10 == 0) usleep(2000);
#pragma omp atomic
        at_barrier++;
      }
    }
#pragma omp barrier
    if (at_barrier != 20 * omp_get_num_threads()) bad++;
#pragma omp task
    {
#pragma omp atomic
      at_end++;
    }
  }
  CHECK(bad == 0);
  CHECK(at_end == omp_get_max_threads());

#ifndef __clang__ /* clang 14 rejects a VLA in a task's firstprivate clause */
  /* if(0) with a copy function: a VLA firstprivate is copied for the task */
  int n = 16;
  int vla[n];
  for (int i = 0; i < n; ++i) vla[i] = i;
  int vsum = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp task if (0) firstprivate(vla) shared(vsum)
    {
      for (int i = 0; i < n; ++i) vsum += vla[i];
      vla[0] = 1000; /* the copy, not the caller's array */
    }
#pragma omp task firstprivate(vla) shared(vsum)
    {
#pragma omp atomic
      vsum += vla[n - 1];
    }
#pragma omp taskwait
  }
  CHECK(vsum == 120 + 15);
  CHECK(vla[0] == 0);
#endif

  /* 64-byte aligned firstprivate data */
  struct aligned_block blk;
  memset(&blk, 7, sizeof blk);
  int misaligned = 0;
#pragma omp parallel
#pragma omp single
  for (int i = 0; i < 100; ++i) {
#pragma omp task firstprivate(blk) shared(misaligned)
    {
      if (((uintptr_t)&blk) % 64 != 0 || blk.bytes[63] != 7) {
#pragma omp atomic
        misaligned++;
      }
    }
  }
  CHECK(misaligned == 0);

  /* final: the task and everything below it is final and runs included */
  int in_final = 0, not_final = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp task final(1)
      {if (omp_in_final()) in_final++;
#pragma omp task
  {
    if (omp_in_final()) in_final++;
  }
}
#pragma omp task final(0)
{
  if (!omp_in_final()) not_final++;
}
#pragma omp taskwait
}
CHECK(in_final == 2 && not_final == 1);

/* every thread creates tasks */
long sum = 0;
#pragma omp parallel
{
#pragma omp for
  for (int i = 0; i < 1000; ++i) {
#pragma omp task firstprivate(i)
    {
#pragma omp atomic
      sum += i;
    }
  }
}
CHECK(sum == 499500);

/* orphaned tasks outside any region */
int orphan = 0;
#pragma omp task shared(orphan)
orphan = 1;
#pragma omp taskwait
CHECK(orphan == 1);
puts("tasks: ok");
return 0;
}

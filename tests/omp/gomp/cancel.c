/* cancel and cancellation point for parallel, for, sections and taskgroup. Run with
   OMP_CANCELLATION=true (every cancellation happens) and without it (none does: cancel
   constructs are no-ops). The checks are deterministic: a thread that must observe a
   cancellation spins on a cancellation point, or waits in a barrier that cannot complete
   without the cancelling thread, or depends on the task that cancels. */
#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include "check.h"

enum { k_reps = 10, k_iters = 64, k_search = 100000, k_dependents = 50 };

static int on; /* omp_get_cancellation() */
static int key[k_search];

/* cancel for: iteration 0 cancels; every other iteration waits for the cancellation. The next
   loop of the same region is not cancelled. */
static void cancel_for_static(void) {
  int past = 0, second = 0;
#pragma omp parallel reduction(+ : second)
  {
#pragma omp for schedule(static)
    for (int i = 0; i < k_iters; ++i) {
      if (i == 0) {
#pragma omp cancel for
      } else {
        if (on)
          for (;;) {
#pragma omp cancellation point for
            sched_yield();
          }
#pragma omp atomic
        past++;
      }
    }
#pragma omp for schedule(dynamic, 3)
    for (int i = 0; i < k_iters; ++i) {
      if (key[i] < 0) { /* never: makes the loop cancellable, so the point below is kept */
#pragma omp cancel for
      }
#pragma omp cancellation point for
      second++;
    }
  }
  CHECK(past == (on ? 0 : k_iters - 1));
  CHECK(second == k_iters);
}

/* the usual search: stop handing out work once the key is found */
static void cancel_for_search(int where) {
  long found = -1, visited = 0;
#pragma omp parallel
  {
#pragma omp for schedule(dynamic, 16)
    for (int i = 0; i < k_search; ++i) {
#pragma omp atomic
      visited++;
      if (key[i] == where) {
        found = i;
#pragma omp cancel for
      }
#pragma omp cancellation point for
    }
#pragma omp atomic
    visited++; /* one more per thread: keeps the loop a construct of its own */
  }
  CHECK(found == where);
  const long team = omp_get_max_threads();
  CHECK(visited >= 1 + team && visited <= k_search + team);
  if (!on) CHECK(visited == k_search + team);
}

/* cancel parallel: the others wait at a cancellation point, in a worksharing loop's end
   barrier, or in a barrier; none can pass without the cancelling thread. */
static void cancel_parallel(void) {
  int after_point = 0, after_loop = 0, after_barrier = 0, ran = 0;
#pragma omp parallel
  {
    if (omp_get_thread_num() == 0) {
#pragma omp cancel parallel
    } else if (on) {
      for (;;) {
#pragma omp cancellation point parallel
        sched_yield();
      }
    }
#pragma omp atomic
    after_point++;
  }
  CHECK(after_point == (on ? 0 : omp_get_max_threads()));
  int team = 0;
#pragma omp parallel
  {
#pragma omp single
    team = omp_get_num_threads();
    if (omp_get_thread_num() == 0) {
      usleep(1000); /* let the others reach the loop's end barrier first */
#pragma omp cancel parallel
    }
#pragma omp for schedule(dynamic, 1)
    for (int i = 0; i < k_iters; ++i) {
#pragma omp atomic
      ran++;
    }
#pragma omp atomic
    after_loop++;
#pragma omp barrier
#pragma omp atomic
    after_barrier++;
  }
  CHECK(after_loop == (on ? 0 : team));
  CHECK(after_barrier == (on ? 0 : team));
  CHECK(ran <= k_iters && (on || ran == k_iters));
  int after = 0;
#pragma omp parallel
  {
    if (omp_get_thread_num() == 0) {
      usleep(1000);
#pragma omp cancel parallel
    }
#pragma omp barrier
#pragma omp atomic
    after++;
  }
  CHECK(after == (on ? 0 : team));
}

static void cancel_sections(void) {
  int first = 0, second = 0;
#pragma omp parallel
  {
#pragma omp sections
    {
#pragma omp section
      {
#pragma omp atomic
        first++;
#pragma omp cancel sections
      }
#pragma omp section
      {
        if (on)
          for (;;) {
#pragma omp cancellation point sections
            sched_yield();
          }
#pragma omp atomic
        second++;
      }
    }
#pragma omp atomic
    first += 10; /* keeps the sections a construct of their own */
  }
  CHECK(first == 1 + 10 * omp_get_max_threads());
  CHECK(second == (on ? 0 : 1));
}

/* cancel taskgroup: tasks that depend on the cancelling task cannot have started before it
   cancelled, so all of them are discarded (or never created); an enclosing taskgroup goes
   on. */
static void cancel_taskgroup(void) {
  int dependents = 0, outer_after = 0, outer_tasks = 0;
#pragma omp parallel
#pragma omp single
  {
    int x = 0;
#pragma omp taskgroup
    {
#pragma omp task shared(dependents, outer_after, outer_tasks, x)
      {
#pragma omp taskgroup
        {
#pragma omp task depend(out : x) shared(x)
          {
            x = 1;
#pragma omp cancel taskgroup
          }
          for (int k = 0; k < k_dependents; ++k) {
#pragma omp task depend(in : x) shared(dependents, x)
            {
#pragma omp atomic
              dependents++;
            }
          }
        }
#pragma omp cancellation point taskgroup
#pragma omp atomic
        outer_after++;
        for (int k = 0; k < 10; ++k) {
#pragma omp task shared(outer_tasks)
          {
#pragma omp atomic
            outer_tasks++;
          }
        }
      }
    }
  }
  CHECK(dependents == (on ? 0 : k_dependents));
  CHECK(outer_after == 1);
  CHECK(outer_tasks == 10);
}

/* cancel taskgroup in a task of a worksharing loop with reduction(task, ...) binds to the
   taskgroup construct around the loop, not to the loop's own group: the tasks each thread
   creates in that taskgroup after the loop (whose end waits for the loop's tasks) are not
   created. */
static void cancel_taskgroup_from_loop(void) {
  int sum = 0, late = 0, team = 0;
#pragma omp parallel
#pragma omp taskgroup
  {
#pragma omp single
    team = omp_get_num_threads();
#pragma omp for reduction(task, + : sum)
    for (int i = 0; i < k_iters; ++i) {
      sum++;
#pragma omp task in_reduction(+ : sum)
      {
        sum += 0;
#pragma omp cancel taskgroup
      }
    }
#pragma omp task shared(late)
    {
#pragma omp atomic
      late++;
    }
  }
  CHECK(sum == k_iters);
  CHECK(late == (on ? 0 : team));
}

int main(void) {
  on = omp_get_cancellation();
  for (int i = 0; i < k_search; ++i) key[i] = i;
  for (int rep = 0; rep < k_reps; ++rep) {
    cancel_for_static();
    cancel_for_search((rep * 7919) % k_search);
    cancel_parallel();
    cancel_sections();
    cancel_taskgroup();
    cancel_taskgroup_from_loop();
  }
  printf("cancel: ok (cancellation %s)\n", on ? "on" : "off");
  return 0;
}

/* dynamic_steal: schedule(dynamic) takes its chunks from one range per team thread
   (forkjoin/DESIGN.md [P-LOOP Steal]); schedule(monotonic: dynamic) keeps the shared cursor.
   Checked, on any team size:
   - chunks are OpenMP's: iterations [k*c, (k+1)*c) run on one thread, each once;
   - the chunks behind one that waits for all the others are taken by the other threads (the
     waiting chunk gives up after 30 s and the check fails: without stealing they would be
     stuck behind it in its thread's range);
   - the same in the combined `parallel for`, and lastprivate from the last iteration;
   - a monotonic loop hands each thread its chunks in increasing order;
   - nowait chains longer than the ring of work shares (a slot's ranges reused by its later
     loops), on teams of 1 to 6 threads, still run each iteration once. */
#include <omp.h>
#include <string.h>

#include "check.h"

#define N 4000
static int hits[N];
static int owner[N];

static void reset(void) {
  memset(hits, 0, sizeof hits);
  memset(owner, -1, sizeof owner);
}

static void chunks_are_openmps(int c) {
  reset();
#pragma omp parallel
  {
#pragma omp for schedule(dynamic, c)
    for (int i = 0; i < N; ++i) {
#pragma omp atomic
      hits[i]++;
      owner[i] = omp_get_thread_num();
    }
  }
  for (int i = 0; i < N; ++i) {
    CHECK(hits[i] == 1);
    if (i % c != 0) CHECK(owner[i] == owner[i - 1]); /* inside one chunk: one thread */
  }
}

/* One iteration of a 64-iteration blocked loop: iteration 0 waits (up to 30 s) until the
   other 63 have run, and records how many it saw. */
enum { k_blocked = 64 };
static int blocked_done, blocked_seen;
static void blocked_iteration(int i) {
#pragma omp atomic
  hits[i]++;
  if (i == 0) {
    if (omp_get_num_threads() > 1) {
      const double give_up = omp_get_wtime() + 30;
      int seen;
      do {
#pragma omp atomic read
        seen = blocked_done;
      } while (seen < k_blocked - 1 && omp_get_wtime() < give_up);
    }
#pragma omp atomic read
    blocked_seen = blocked_done;
  } else {
#pragma omp atomic
    blocked_done++;
  }
}
static void blocked_reset(void) {
  reset();
  blocked_done = 0;
  blocked_seen = -1;
}
static void blocked_check(void) {
  for (int i = 0; i < k_blocked; ++i) CHECK(hits[i] == 1);
  if (omp_get_max_threads() > 1) CHECK(blocked_seen == k_blocked - 1);
}

static void blocked_chunk_is_passed(void) {
  blocked_reset();
#pragma omp parallel
  {
#pragma omp for schedule(dynamic)
    for (int i = 0; i < k_blocked; ++i) blocked_iteration(i);
  }
  blocked_check();
}

/* The combined form (GOMP_parallel_loop_nonmonotonic_dynamic, or clang's dispatch in the
   outlined region): stealing behind a blocked chunk, and lastprivate from the last
   iteration, which the thread that ran the last chunk holds (it takes nothing after it). */
static void combined_form(void) {
  blocked_reset();
#pragma omp parallel for schedule(dynamic) /* constant bounds: GOMP_parallel_loop_nonmonotonic_dynamic */
  for (int i = 0; i < k_blocked; ++i) blocked_iteration(i);
  blocked_check();

  for (int c = 1; c <= 7; c += 3) {
    int last = -1;
#pragma omp parallel for schedule(dynamic, c) lastprivate(last)
    for (int i = 0; i < N; ++i) last = i;
    CHECK(last == N - 1);
  }
}

static void monotonic_is_increasing(void) {
  int bad = 0;
  reset();
#pragma omp parallel reduction(+ : bad)
  {
    long last = -1;
#pragma omp for schedule(monotonic : dynamic, 3)
    for (int i = 0; i < N; ++i) {
#pragma omp atomic
      hits[i]++;
      if (i <= last) bad++;
      last = i;
    }
  }
  CHECK(bad == 0);
  for (int i = 0; i < N; ++i) CHECK(hits[i] == 1);
}

static void ring_on_teams_of_1_to_6(void) {
  for (int team = 1; team <= 6; ++team) {
    reset();
#pragma omp parallel num_threads(team)
    {
      for (int round = 0; round < 20; ++round) { /* more loops than the ring's 8 slots */
#pragma omp for schedule(dynamic, 5) nowait
        for (int i = round * (N / 20); i < (round + 1) * (N / 20); ++i) {
#pragma omp atomic
          hits[i]++;
        }
      }
    }
    for (int i = 0; i < N; ++i) CHECK(hits[i] == 1);
  }
}

int main(void) {
  chunks_are_openmps(1);
  chunks_are_openmps(7);
  chunks_are_openmps(1000);
  for (int k = 0; k < 10; ++k) blocked_chunk_is_passed();
  for (int k = 0; k < 10; ++k) combined_form();
  monotonic_is_increasing();
  ring_on_teams_of_1_to_6();
  return 0;
}

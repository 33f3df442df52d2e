/* end_early: the members of a team larger than its CPUs leave the region's end barrier
 * without waiting for its release ([P-OMP Team E4]). Every task of the region still runs
 * exactly once before the primary goes on: tasks created by a slow member after the others
 * left, tasks still pending when their creators arrive, tasks the primary creates after
 * every member left, a last task that ends on a member which then leaves, and a detached task
 * fulfilled by a thread outside the team. The team is sized from omp_get_num_procs(), so the
 * case holds on any machine. Built with gcc -fopenmp, linked against libforkjoin-omp. */
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "check.h"

#define CHECK_MSG(cond, ...)        \
  do {                              \
    if (!(cond)) {                  \
      fprintf(stderr, __VA_ARGS__); \
      fputc('\n', stderr);          \
      exit(1);                      \
    }                               \
  } while (0)

enum { k_tasks = 64, k_rounds = 100 };

static void pause_us(long us) {
  struct timespec t = {0, us * 1000};
  nanosleep(&t, NULL);
}

static atomic_int runs[k_tasks];
static atomic_int total;

static void run_task(int k) {
  atomic_fetch_add(&runs[k], 1);
  atomic_fetch_add(&total, 1);
}

static void expect_each_once(const char* what, int round) {
  CHECK_MSG(atomic_load(&total) == k_tasks, "%s, round %d: %d task runs, want %d", what, round, atomic_load(&total),
            k_tasks);
  for (int k = 0; k < k_tasks; ++k)
    CHECK_MSG(atomic_load(&runs[k]) == 1, "%s, round %d: task %d ran %d times", what, round, k, atomic_load(&runs[k]));
}

static void reset(void) {
  for (int k = 0; k < k_tasks; ++k) atomic_store(&runs[k], 0);
  atomic_store(&total, 0);
}

/* the thread that creates every task: a late member, or the primary */
static void late_creator(int creator, int team) {
  reset();
#pragma omp parallel num_threads(team)
  {
    if (omp_get_thread_num() == creator) {
      pause_us(300); /* the others have arrived (and left) by now */
      for (int k = 0; k < k_tasks; ++k) {
#pragma omp task firstprivate(k)
        run_task(k);
      }
    }
  }
}

/* every thread creates its share and arrives while its tasks are still pending */
static void pending_at_arrival(int team) {
  reset();
#pragma omp parallel num_threads(team)
  {
    const int id = omp_get_thread_num(), n = omp_get_num_threads();
    for (int k = id; k < k_tasks; k += n) {
#pragma omp task firstprivate(k)
      {
        pause_us(k % 3 == 0 ? 50 : 0);
        run_task(k);
      }
    }
  }
}

/* each thread's one long task, most of them run by their creators inside the end barrier:
 * the last one often ends on a member while the primary sleeps in the barrier */
static void long_tasks(int team) {
  reset();
#pragma omp parallel num_threads(team)
  {
    const int k = omp_get_thread_num();
#pragma omp task firstprivate(k)
    {
      pause_us(1000);
      run_task(k);
    }
  }
  for (int k = team; k < k_tasks; ++k) run_task(k); /* the rest of the expected set */
}

static omp_event_handle_t pending_event;
static atomic_int event_ready;
static void* fulfil_later(void* arg) {
  (void)arg;
  while (!atomic_load(&event_ready)) pause_us(50);
  pause_us(2000);
  atomic_fetch_add(&total, 1);
  omp_fulfill_event(pending_event);
  return NULL;
}

/* a detached task: the region ends only once a thread outside the team fulfils its event */
static void detached_outside(int team) {
  reset();
  atomic_store(&event_ready, 0);
  pthread_t outside;
  CHECK(pthread_create(&outside, NULL, fulfil_later, NULL) == 0);
  int body_ran = 0;
#pragma omp parallel num_threads(team) shared(body_ran)
  {
    if (omp_get_thread_num() == 1) {
      omp_event_handle_t ev;
#pragma omp task detach(ev) shared(body_ran)
      body_ran = 1;
      pending_event = ev;
      atomic_store(&event_ready, 1);
    }
  }
  /* the region's end waited for the fulfilment, made after the outside thread's increment */
  CHECK_MSG(atomic_load(&total) == 1 && body_ran == 1, "detached task: fulfilled %d, body ran %d", atomic_load(&total),
            body_ran);
  CHECK(pthread_join(outside, NULL) == 0);
}

int main(void) {
  const int team = 2 * omp_get_num_procs() + 1;
  for (int round = 0; round < k_rounds; ++round) {
    late_creator(team - 1, team);
    expect_each_once("tasks created by the last member", round);
    late_creator(0, team);
    expect_each_once("tasks created by the primary after the members left", round);
    pending_at_arrival(team);
    expect_each_once("tasks pending when their creators arrive", round);
    long_tasks(team);
    expect_each_once("long tasks ending on their creators", round);
  }
  for (int round = 0; round < 5; ++round) detached_outside(team);
  return 0;
}

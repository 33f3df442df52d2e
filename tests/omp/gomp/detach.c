/* detach: task detach(ev) and omp_fulfill_event. A detached task completes (for taskwait,
   taskgroup, barriers and its dependent successors) only once its body has returned and its
   event has been fulfilled: by a plain pthread or by another task, before or after the body
   returned; deferred and undeferred (if(0)). With argv[1] "twice" or "unknown" it fulfils an
   event twice or a made-up handle, which must stop with a message. */
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "check.h"

static void nap(void) {
  struct timespec t = {0, 20 * 1000 * 1000};
  nanosleep(&t, NULL);
}

/* A plain thread: waits for the handle, naps, writes *target, raises `before`, fulfils the
   event, raises `after`. The handle passes under a mutex, which ThreadSanitizer sees even when
   this program is not instrumented (the clang-built copy in a sanitizer build). */
struct outsider {
  pthread_mutex_t lock;
  pthread_cond_t handed;
  omp_event_handle_t ev;
  int have_ev;
  atomic_int before, after;
  int* target;
  int value;
};

static void* outsider_main(void* arg) {
  struct outsider* o = arg;
  pthread_mutex_lock(&o->lock);
  while (!o->have_ev) pthread_cond_wait(&o->handed, &o->lock);
  omp_event_handle_t ev = o->ev;
  pthread_mutex_unlock(&o->lock);
  nap();
  if (o->target != NULL) *o->target = o->value;
  atomic_store(&o->before, 1);
  omp_fulfill_event(ev);
  atomic_store(&o->after, 1);
  return NULL;
}

static void start_outsider(struct outsider* o, pthread_t* th, int* target, int value) {
  memset(o, 0, sizeof *o);
  pthread_mutex_init(&o->lock, NULL);
  pthread_cond_init(&o->handed, NULL);
  o->target = target;
  o->value = value;
  CHECK(pthread_create(th, NULL, outsider_main, o) == 0);
}

static void give(struct outsider* o, omp_event_handle_t ev) {
  pthread_mutex_lock(&o->lock);
  o->ev = ev;
  o->have_ev = 1;
  pthread_cond_signal(&o->handed);
  pthread_mutex_unlock(&o->lock);
}

/* deferred; a pthread fulfils after the body returned; taskwait waits for it */
static void pthread_after_body(void) {
  struct outsider o;
  pthread_t th;
  int body = 0;
  start_outsider(&o, &th, NULL, 0);
#pragma omp parallel
#pragma omp single
  {
    omp_event_handle_t ev;
#pragma omp task detach(ev) shared(body)
    body = 1;
    give(&o, ev);
#pragma omp taskwait
    CHECK(body == 1);
    CHECK(atomic_load(&o.before) == 1);
  }
  pthread_join(th, NULL);
}

/* deferred; a pthread fulfils while the body still runs (the body hands it the handle and
   waits until it was fulfilled) */
static void pthread_before_body_returns(void) {
  struct outsider o;
  pthread_t th;
  int body = 0;
  start_outsider(&o, &th, NULL, 0);
#pragma omp parallel
#pragma omp single
  {
    omp_event_handle_t ev;
#pragma omp task detach(ev) shared(body, o)
    {
      give(&o, ev);
      while (!atomic_load(&o.after)) sched_yield();
      body = 1;
    }
#pragma omp taskwait
    CHECK(body == 1);
  }
  pthread_join(th, NULL);
}

/* fulfilled by a sibling task, after the body returned, then (teams of two or more, where the
   two can run at once) while the body still runs */
static void by_task(void) {
  atomic_int body_done = 0, fulfilled = 0;
  int rounds = 0;
#pragma omp parallel shared(rounds)
#pragma omp single
  {
    omp_event_handle_t ev;
#pragma omp task detach(ev) shared(body_done)
    atomic_store(&body_done, 1);
#pragma omp task shared(body_done, fulfilled) firstprivate(ev)
    {
      while (!atomic_load(&body_done)) sched_yield();
      omp_fulfill_event(ev);
      atomic_store(&fulfilled, 1);
    }
#pragma omp taskwait
    CHECK(atomic_load(&body_done) == 1 && atomic_load(&fulfilled) == 1);
    ++rounds;
    if (omp_get_num_threads() > 1) {
      atomic_store(&body_done, 0);
      atomic_store(&fulfilled, 0);
      omp_event_handle_t ev2;
#pragma omp task detach(ev2) shared(body_done, fulfilled)
      {
        while (!atomic_load(&fulfilled)) sched_yield();
        atomic_store(&body_done, 1);
      }
#pragma omp task shared(fulfilled) firstprivate(ev2)
      {
        omp_fulfill_event(ev2);
        atomic_store(&fulfilled, 1);
      }
#pragma omp taskwait
      CHECK(atomic_load(&body_done) == 1 && atomic_load(&fulfilled) == 1);
      ++rounds;
    }
  }
  CHECK(rounds >= 1);
}

/* if(0): the encountering task waits for the event after the body returned; fulfilled by a
   pthread, by the body itself, and by a child of the body */
static void undeferred(void) {
  struct outsider o;
  pthread_t th;
  start_outsider(&o, &th, NULL, 0);
  int self_done = 0, child_done = 0;
#pragma omp parallel
#pragma omp single
  {
    omp_event_handle_t ev;
#pragma omp task detach(ev) if (0) shared(o)
    give(&o, ev);
    CHECK(atomic_load(&o.before) == 1);
#pragma omp task detach(ev) if (0) shared(self_done)
    {
      omp_fulfill_event(ev);
      self_done = 1;
    }
    CHECK(self_done == 1);
#pragma omp task detach(ev) if (0) shared(child_done)
    {
#pragma omp task firstprivate(ev) shared(child_done)
      {
        nap();
        child_done = 1;
        omp_fulfill_event(ev);
      }
    }
    CHECK(child_done == 1);
  }
  pthread_join(th, NULL);
}

/* dependent successors (deferred and if(0)) start only after the event: the pthread writes
   `late` before fulfilling */
static void successors(void) {
  struct outsider o;
  pthread_t th;
  int late = 0, x = 0, seen = 0, seen_undeferred = 0, chained = 0;
  start_outsider(&o, &th, &late, 42);
#pragma omp parallel
#pragma omp single
  {
    omp_event_handle_t ev;
#pragma omp task detach(ev) depend(out : x) shared(x)
    x = 1;
    give(&o, ev);
#pragma omp task depend(in : x) shared(x, late, seen)
    seen = x + late;
#pragma omp task depend(inout : x) shared(x, chained)
    chained = ++x;
#pragma omp task if (0) depend(in : x) shared(x, late, seen_undeferred)
    seen_undeferred = x + late;
#pragma omp taskwait
  }
  pthread_join(th, NULL);
  CHECK(seen == 43);
  CHECK(chained == 2);
  CHECK(seen_undeferred == 44);
}

/* taskgroup end and barriers (explicit and the region's end) wait for detached tasks */
static void groups_and_barriers(void) {
  atomic_int bodies = 0; /* a body each: gcc 12 drops a task whose body is empty, detach(ev) too */
  struct outsider o;
  pthread_t th;
  start_outsider(&o, &th, NULL, 0);
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskgroup
    {
      omp_event_handle_t ev;
#pragma omp task detach(ev) shared(bodies)
      atomic_fetch_add(&bodies, 1);
      give(&o, ev);
    }
    CHECK(atomic_load(&o.before) == 1);
  }
  pthread_join(th, NULL);

  enum { k_max = 64 };
  static struct outsider os[k_max];
  static pthread_t ths[k_max];
  int nthreads = 0;
#pragma omp parallel shared(nthreads)
  {
#pragma omp single
    {
      nthreads = omp_get_num_threads();
      CHECK(2 * nthreads <= k_max);
      for (int i = 0; i < 2 * nthreads; ++i) start_outsider(&os[i], &ths[i], NULL, 0);
    }
    int me = omp_get_thread_num();
    omp_event_handle_t ev;
#pragma omp task detach(ev) shared(bodies)
    atomic_fetch_add(&bodies, 1);
    give(&os[me], ev);
#pragma omp barrier
    CHECK(atomic_load(&os[me].before) == 1);
    omp_event_handle_t ev2;
#pragma omp task detach(ev2) shared(bodies)
    atomic_fetch_add(&bodies, 1);
    give(&os[nthreads + me], ev2);
  }
  for (int i = 0; i < 2 * nthreads; ++i) {
    CHECK(atomic_load(&os[i].before) == 1);
    pthread_join(ths[i], NULL);
  }
  CHECK(atomic_load(&bodies) == 1 + 2 * nthreads);
}

/* many detached tasks fulfilled by tasks in reverse order; each successor checks that its
   predecessor's event was fulfilled */
static void many(void) {
  enum { k_n = 1000 };
  static omp_event_handle_t evs[k_n];
  static atomic_int fulfilled[k_n];
  static int slot[k_n];
  atomic_int bodies = 0, good = 0;
  for (int i = 0; i < k_n; ++i) atomic_store(&fulfilled[i], 0);
#pragma omp parallel
#pragma omp single
  {
    for (int i = 0; i < k_n; ++i) {
      omp_event_handle_t ev;
#pragma omp task detach(ev) depend(out : slot[i]) shared(bodies)
      atomic_fetch_add(&bodies, 1);
      evs[i] = ev;
#pragma omp task depend(in : slot[i]) firstprivate(i) shared(good)
      if (atomic_load(&fulfilled[i])) atomic_fetch_add(&good, 1);
    }
    for (int i = k_n - 1; i >= 0; --i) {
#pragma omp task firstprivate(i)
      {
        atomic_store(&fulfilled[i], 1);
        omp_fulfill_event(evs[i]);
      }
    }
#pragma omp taskwait
    CHECK(atomic_load(&bodies) == k_n);
    CHECK(atomic_load(&good) == k_n);
  }
}

/* orphaned (outside any parallel region): the initial task's team of one */
static void orphaned(void) {
  struct outsider o;
  pthread_t th;
  int late = 0, x = 0, seen = 0;
  start_outsider(&o, &th, &late, 7);
  omp_event_handle_t ev;
#pragma omp task detach(ev) depend(out : x) shared(x)
  x = 1;
  give(&o, ev);
#pragma omp task depend(in : x) shared(x, late, seen)
  seen = x + late;
#pragma omp taskwait
  CHECK(seen == 8);
  pthread_join(th, NULL);
}

int main(int argc, char** argv) {
  if (argc == 2) {
    omp_event_handle_t ev;
    if (strcmp(argv[1], "twice") == 0) {
      int body = 0;
#pragma omp task detach(ev) shared(body)
      body = 1;
      CHECK(body == 1);
      omp_fulfill_event(ev);
      printf("fulfilled once\n");
      fflush(stdout);
      omp_fulfill_event(ev);
    } else if (strcmp(argv[1], "unknown") == 0) {
      memset(&ev, 0x5a, sizeof ev);
      omp_fulfill_event(ev);
    }
    printf("ran\n");
    return 0;
  }
  pthread_after_body();
  pthread_before_body_returns();
  by_task();
  undeferred();
  successors();
  groups_and_barriers();
  many();
  orphaned();
  printf("detach: ok\n");
  return 0;
}

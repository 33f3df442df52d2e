/* kmpc_tasks: the task forms clang's code drives through the runtime: untied tasks whose body
   the runtime resumes at each scheduling point (also undeferred), if(0) tasks the compiler
   runs itself (with dependences, detached), taskloop (grainsize, num_tasks, lastprivate,
   firstprivate arrays, reduction, nogroup, if(0)), task reductions with in_reduction (nested
   taskgroups, a user-defined one with an initialiser that reads omp_orig), reduction(task, ...)
   on parallel and worksharing loops, depend with mutexinoutset, iterators and depobj, final,
   mergeable, priority. Plain C. */
#include <omp.h>
#include <string.h>

#include "check.h"

#define N 400

static int parts_done[N];

/* An untied task with several scheduling points: clang splits its body into parts that the
   runtime resumes one after another. */
static void untied_work(int k) {
#pragma omp task untied firstprivate(k)
  {
    parts_done[k]++;
#pragma omp taskyield
    parts_done[k]++;
#pragma omp task
    {
#pragma omp atomic
      parts_done[k]++;
    }
#pragma omp taskyield
    parts_done[k]++;
#pragma omp taskwait
    parts_done[k]++;
  }
}

typedef struct {
  long sum;
  int count;
} acc;
/* the initialiser reads omp_orig, the original item (through the runtime's taskred_init) */
static int orig_bad;
static void acc_init(acc* priv, const acc* orig) {
  if (orig->sum != 1000) {
#pragma omp atomic
    orig_bad++;
  }
  priv->sum = 0;
  priv->count = 0;
}
#pragma omp declare reduction(accum:acc                                                   \
                              : omp_out.sum += omp_in.sum, omp_out.count += omp_in.count) \
    initializer(acc_init(&omp_priv, &omp_orig))

int main(void) {
  /* untied tasks, deferred and undeferred */
  memset(parts_done, 0, sizeof parts_done);
#pragma omp parallel
#pragma omp single
  {
    for (int k = 0; k < N; ++k) untied_work(k);
  }
  for (int k = 0; k < N; ++k) CHECK(parts_done[k] == 5);
  {
    int steps = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp task untied if (0) shared(steps)
      {
        steps++;
#pragma omp taskyield
        steps++;
#pragma omp task shared(steps)
        {
#pragma omp atomic
          steps++;
        }
#pragma omp taskwait
        steps++;
      }
      CHECK(steps == 4);
    }
  }

  /* if(0) tasks: dependences wait for the siblings, the task context is its own */
  {
    int x = 0, order_ok = 1;
#pragma omp parallel
#pragma omp single
    {
#pragma omp task depend(out : x) shared(x)
      {
        for (volatile int d = 0; d < 100000; ++d) {
        }
        x = 1;
      }
#pragma omp task if (0) depend(in : x) shared(x, order_ok)
      {
        if (x != 1) order_ok = 0;
        CHECK(!omp_in_final());
      }
    }
    CHECK(order_ok);
  }

  /* detach: a deferred one fulfilled by a sibling, an undeferred one fulfilled by its child */
  {
    int done = 0;
    omp_event_handle_t ev1, ev2;
#pragma omp parallel
#pragma omp single
    {
#pragma omp task detach(ev1) shared(done)
      {
#pragma omp atomic
        done++;
      }
#pragma omp task shared(done) firstprivate(ev1)
      { omp_fulfill_event(ev1); }
#pragma omp taskwait
      CHECK(done == 1);
#pragma omp task if (0) detach(ev2) shared(done)
      {
        omp_event_handle_t mine = ev2;
#pragma omp task firstprivate(mine) shared(done)
        {
#pragma omp atomic
          done++;
          omp_fulfill_event(mine);
        }
      }
      CHECK(done == 2);
    }
  }

  /* taskloop: grainsize, num_tasks, lastprivate, firstprivate array, reduction, nogroup */
  {
    static int hit[N];
    int arr[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    long red = 0;
    int last = -1;
    memset(hit, 0, sizeof hit);
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskloop grainsize(16) lastprivate(last) firstprivate(arr) reduction(+ : red)
      for (int i = 0; i < N; ++i) {
        hit[i]++;
        last = i;
        red += arr[i % 8];
        arr[i % 8] = -1000; /* this task's copy only */
      }
#pragma omp taskloop num_tasks(7) nogroup
      for (long long i = N - 1; i >= 0; i -= 3) {
#pragma omp atomic
        hit[i]++;
      }
#pragma omp taskwait
#pragma omp taskloop if (0) grainsize(50)
      for (unsigned i = 0; i < N; ++i) {
#pragma omp atomic
        hit[i] += 10;
      }
    }
    for (int i = 0; i < N; ++i) CHECK(hit[i] == 11 + ((N - 1 - i) % 3 == 0 ? 1 : 0));
    CHECK(last == N - 1);
    CHECK(arr[0] == 1 && arr[7] == 8);
    /* each task of 16 iterations starts from the original array, then overwrites its copy */
    long serial = 0;
    {
      int chunk_arr[8];
      for (int t = 0; t < N; t += 16) {
        for (int k = 0; k < 8; ++k) chunk_arr[k] = k + 1;
        for (int i = t; i < t + 16 && i < N; ++i) {
          serial += chunk_arr[i % 8];
          chunk_arr[i % 8] = -1000;
        }
      }
    }
    CHECK(red == serial);
  }

  /* task reductions: taskgroup task_reduction, in_reduction tasks, nested groups, a UDR */
  {
    long s = 0, outer = 0;
    acc a = {1000, 0};
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskgroup task_reduction(+ : outer)
      {
#pragma omp taskgroup task_reduction(+ : s) task_reduction(accum : a)
        {
          for (int i = 0; i < N; ++i) {
#pragma omp task in_reduction(+ : s, outer) in_reduction(accum : a) firstprivate(i)
            {
              s += i;
              outer += 1;
              a.sum += i;
              a.count++;
#pragma omp task in_reduction(+ : s)
              s += 1;
            }
          }
        }
#pragma omp taskloop reduction(+ : s) in_reduction(+ : outer) grainsize(10)
        for (int i = 0; i < N; ++i) {
          s += 2;
          outer += 2;
        }
      }
    }
    CHECK(s == (long)N * (N - 1) / 2 + N + 2 * N);
    CHECK(outer == 3 * N);
    CHECK(a.sum == 1000 + (long)N * (N - 1) / 2 && a.count == N && orig_bad == 0);
  }

  /* reduction(task, ...) on parallel and on a worksharing loop */
  {
    long p = 0, f = 0;
    int team = 1;
#pragma omp parallel reduction(task, + : p)
    {
#pragma omp single
      team = omp_get_num_threads();
      p += 1;
#pragma omp task in_reduction(+ : p)
      p += 10;
    }
    CHECK(p == 11L * team);
#pragma omp parallel for reduction(task, + : f) schedule(dynamic, 3)
    for (int i = 0; i < N; ++i) {
      f += 1;
#pragma omp task in_reduction(+ : f)
      f += i;
    }
    CHECK(f == N + (long)N * (N - 1) / 2);
  }

  /* dependences: mutexinoutset, iterators, depobj, a chain of inout */
  {
    int cell[4] = {0, 0, 0, 0}, chain = 0, excl = 0, bad = 0;
    omp_depend_t obj;
#pragma omp parallel
#pragma omp single
    {
      for (int k = 0; k < 50; ++k) {
#pragma omp task depend(inout : chain) firstprivate(k) shared(chain, bad)
        {
          if (chain != k) bad++;
          chain = k + 1;
        }
      }
      for (int k = 0; k < 20; ++k) {
#pragma omp task depend(mutexinoutset : excl) shared(excl, bad)
        {
          int v = excl;
          for (volatile int d = 0; d < 1000; ++d) {
          }
          excl = v + 1;
        }
      }
#pragma omp task depend(iterator(j = 0 : 4), out : cell[j]) shared(cell)
      for (int j = 0; j < 4; ++j) cell[j] = j + 1;
#pragma omp depobj(obj) depend(in : cell[0])
#pragma omp task depend(depobj : obj) shared(cell, bad)
      {
        if (cell[0] != 1) bad++;
      }
#pragma omp taskwait depend(in : cell[3])
      if (cell[3] != 4) bad++;
#pragma omp taskwait
#pragma omp depobj(obj) destroy
    }
    CHECK(chain == 50 && excl == 20 && bad == 0);
  }

  /* final (included tasks), mergeable, priority */
  {
    int in_final = 0, ran = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp task final(1) shared(in_final, ran)
      {
#pragma omp task shared(in_final, ran)
        {
          if (omp_in_final()) in_final++;
#pragma omp atomic
          ran++;
        }
#pragma omp atomic
        ran++;
      }
#pragma omp task mergeable priority(5) shared(ran)
      {
#pragma omp atomic
        ran++;
      }
    }
    CHECK(in_final == 1 && ran == 3);
  }
  printf("kmpc_tasks: ok\n");
  return 0;
}

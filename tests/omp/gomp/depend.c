/* depend: sibling tasks ordered by in/out/inout dependences (chains, fan-out/fan-in, readers
   between writers), mutexinoutset, depobj, if(0) tasks that wait for their predecessors,
   taskwait depend, and a wavefront whose result is only right in dependence order. */
#include <omp.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define M 24

int main(void) {
  /* a chain: each task doubles then adds, so any reordering changes the result */
  long x = 1;
#pragma omp parallel
#pragma omp single
  for (int i = 0; i < 200; ++i) {
#pragma omp task depend(inout : x) firstprivate(i)
    {
      if (i % 50 == 0) usleep(500);
      x = (x * 3 + i) % 1000003;
    }
  }
  long expect = 1;
  for (int i = 0; i < 200; ++i) expect = (expect * 3 + i) % 1000003;
  CHECK(x == expect);

  /* writer, then readers that must see it, then a writer that must wait for every reader */
  int bad = 0;
  int v = 0, readers_done = 0, seen_after = -1;
#pragma omp parallel
#pragma omp single
  {
#pragma omp task depend(out : v)
    {
      usleep(2000);
      v = 42;
    }
    for (int r = 0; r < 8; ++r) {
#pragma omp task depend(in : v) shared(bad, readers_done)
      {
        if (v != 42) {
#pragma omp atomic
          bad++;
        }
        usleep(300);
#pragma omp atomic
        readers_done++;
      }
    }
#pragma omp task depend(out : v) shared(seen_after)
    {
      seen_after = readers_done;
      v = 7;
    }
#pragma omp taskwait
  }
  CHECK(bad == 0 && seen_after == 8 && v == 7);

  /* a 2-D wavefront: cell (i, j) needs (i-1, j) and (i, j-1) */
  static long g[M][M];
  memset(g, 0, sizeof g);
#pragma omp parallel
#pragma omp single
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < M; ++j) {
#pragma omp task depend(in : g[i > 0 ? i - 1 : i][j], g[i][j > 0 ? j - 1 : j]) depend(out : g[i][j]) firstprivate(i, j)
      g[i][j] = (i == 0 || j == 0) ? 1 : (g[i - 1][j] + g[i][j - 1]) % 1000000007L;
    }
  static long h[M][M];
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < M; ++j) h[i][j] = (i == 0 || j == 0) ? 1 : (h[i - 1][j] + h[i][j - 1]) % 1000000007L;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < M; ++j) CHECK(g[i][j] == h[i][j]);

  /* mutexinoutset: never two at once, and after the earlier writer */
  int inside = 0, overlap = 0, m = 0, total = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp task depend(out : m)
    {
      usleep(1000);
      m = 1;
    }
    for (int k = 0; k < 10; ++k) {
#pragma omp task depend(mutexinoutset : m) shared(inside, overlap, total)
      {
        if (__atomic_add_fetch(&inside, 1, __ATOMIC_SEQ_CST) != 1) overlap++;
        if (m != 1) overlap++;
        usleep(200);
        total++;
        __atomic_sub_fetch(&inside, 1, __ATOMIC_SEQ_CST);
      }
    }
#pragma omp taskwait
  }
  CHECK(overlap == 0 && total == 10);

  /* depobj, if(0) with dependences, taskwait depend */
  int a = 0, b = 0, after_if0 = 0, after_wait = 0;
  omp_depend_t obj;
#pragma omp depobj(obj) depend(inout : a)
#pragma omp parallel
#pragma omp single
  {
#pragma omp task depend(depobj : obj) shared(a)
    {
      usleep(2000);
      a = 5;
    }
#pragma omp task if (0) depend(in : a) shared(after_if0)
    after_if0 = a;
#pragma omp task depend(out : b) shared(b)
    {
      usleep(2000);
      b = 9;
    }
#pragma omp taskwait depend(in : b)
    after_wait = b;
  }
#pragma omp depobj(obj) destroy
  CHECK(after_if0 == 5 && after_wait == 9);
  puts("depend: ok");
  return 0;
}

/* parallel: team size and thread numbers, num_threads, if(false), a 16-thread team whose
   members must all run at once, threadprivate persistence per thread number, copyin,
   reductions, proc_bind accepted, omp_in_parallel. */
#include <omp.h>
#include <pthread.h>
#include <string.h>

#include "check.h"

static int tp_value;
#pragma omp threadprivate(tp_value)

int main(void) {
  int max = omp_get_max_threads();
  CHECK(max >= 1);
  CHECK(!omp_in_parallel());
  CHECK(omp_get_thread_num() == 0 && omp_get_num_threads() == 1);

  int seen[64];
  memset(seen, 0, sizeof seen);
  int team = -1;
#pragma omp parallel
  {
    int id = omp_get_thread_num();
#pragma omp atomic
    seen[id]++;
#pragma omp single
    team = omp_get_num_threads();
    CHECK(omp_in_parallel() == (omp_get_num_threads() > 1));
  }
  CHECK(team == max);
  for (int i = 0; i < 64; ++i) CHECK(seen[i] == (i < max ? 1 : 0));

  int n3 = 0;
#pragma omp parallel num_threads(3)
  {
#pragma omp atomic
    n3++;
    CHECK(omp_get_num_threads() == 3);
  }
  CHECK(n3 == 3);

  volatile int cond = 0;
  int nif = 0;
#pragma omp parallel num_threads(4) if (cond)
  { nif += omp_get_num_threads(); }
  CHECK(nif == 1);

  /* 16 threads that spin until all 16 arrived: needs 16 live threads on any machine. */
  int arrived = 0;
#pragma omp parallel num_threads(16)
  {
    CHECK(omp_get_num_threads() == 16);
#pragma omp atomic
    arrived++;
    int a;
    do {
#pragma omp atomic read
      a = arrived;
    } while (a < 16);
  }
  CHECK(arrived == 16);

  /* thread k is the same OS thread across consecutive regions; threadprivate persists */
  pthread_t who[64];
#pragma omp parallel num_threads(4)
  {
    who[omp_get_thread_num()] = pthread_self();
    tp_value = 100 + omp_get_thread_num();
  }
  for (int rep = 0; rep < 3; ++rep) {
    int bad = 0;
#pragma omp parallel num_threads(4) reduction(+ : bad)
    {
      if (!pthread_equal(who[omp_get_thread_num()], pthread_self())) bad++;
      if (tp_value != 100 + omp_get_thread_num()) bad++;
    }
    CHECK(bad == 0);
  }
  CHECK(pthread_equal(who[0], pthread_self()));

  /* copyin broadcasts the primary thread's value */
  tp_value = 7;
  int copied = 0;
#pragma omp parallel num_threads(4) copyin(tp_value) reduction(+ : copied)
  copied += tp_value;
  CHECK(copied == 28);

  /* reductions of several kinds; the last one merges under GOMP_atomic_start */
  long sum = 0;
  double dsum = 0;
  long mx = 0, s2 = 0;
#pragma omp parallel for reduction(+ : sum, dsum)
  for (long i = 1; i <= 100000; ++i) {
    sum += i;
    dsum += 0.5;
  }
  CHECK(sum == 5000050000L);
  CHECK(dsum == 50000.0);
#pragma omp parallel for reduction(max : mx) reduction(+ : s2)
  for (long i = 0; i < 1000; ++i) {
    if (i * 7 % 1000 > mx) mx = i * 7 % 1000;
    s2 += i;
  }
  CHECK(mx == 999 && s2 == 499500);

  int spread = 0;
#pragma omp parallel proc_bind(spread) num_threads(2) reduction(+ : spread)
  spread = 1;
  CHECK(spread == 2);
  puts("parallel: ok");
  return 0;
}

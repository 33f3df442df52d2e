/* target: target constructs run on the host (there are no devices). target teams distribute
   parallel for with map clauses and a reduction; target with firstprivate scalars and arrays
   (private copies); target nowait with dependences (and its firstprivate copies taken when
   the construct is encountered); the data constructs with nowait/depend; the thread_limit
   clause; host teams num_teams(3) with nested parallel regions; the device memory routines
   on the host device. Every answer is compared with the serial one. */
#include <errno.h>
#include <limits.h>
#include <omp.h>
#include <string.h>
#include <time.h>

#include "check.h"

enum { k_n = 10000, k_teams = 4 };

static void nap(void) {
  struct timespec t = {0, 10 * 1000 * 1000};
  nanosleep(&t, NULL);
}

static void target_teams_loop(void) {
  static double a[k_n], b[k_n];
  int seen[k_teams] = {0};
  long sum = 0, serial = 0;
  for (int i = 0; i < k_n; ++i) {
    a[i] = i;
    b[i] = -1;
    serial += i % 7;
  }
  int num_teams = 0, initial = 0, level = -1;
#pragma omp target teams distribute parallel for num_teams(k_teams) map(to : a[0 : k_n]) map(from : b[0 : k_n]) \
    map(tofrom : seen[0 : k_teams], num_teams, initial, level) reduction(+ : sum)
  for (int i = 0; i < k_n; ++i) {
    b[i] = 2 * a[i];
    sum += i % 7;
    int t = omp_get_team_num();
    if (t >= 0 && t < k_teams) {
#pragma omp atomic write
      seen[t] = 1;
    }
    if (i == 0) {
      num_teams = omp_get_num_teams();
      initial = omp_is_initial_device();
      level = omp_get_level();
    }
  }
  for (int i = 0; i < k_n; ++i) CHECK(b[i] == 2.0 * i);
  CHECK(sum == serial);
  CHECK(num_teams == k_teams);
  for (int t = 0; t < k_teams; ++t) CHECK(seen[t] == 1);
  CHECK(initial == 1);
  CHECK(level == 1); /* the parallel region inside the target region's initial thread */
  CHECK(omp_get_num_teams() == 1 && omp_get_team_num() == 0);
}

static void target_firstprivate(void) {
  int x = 5;
  int arr[8], orig[8], out[8] = {0};
  for (int i = 0; i < 8; ++i) arr[i] = orig[i] = 10 * i;
  int r = 0, level = -1, in_par = -1, threads = -1;
#pragma omp parallel num_threads(2) shared(x, arr, out, r, level, in_par, threads)
#pragma omp single
  {
#pragma omp target firstprivate(x, arr) map(from : out [0:8]) map(tofrom : r, level, in_par, threads)
    {
      x += 1;
      arr[0] = 100;
      for (int i = 0; i < 8; ++i) out[i] = arr[i] + x;
      r = x;
      level = omp_get_level();
      in_par = omp_in_parallel();
      threads = omp_get_num_threads();
    }
  }
  CHECK(x == 5);
  for (int i = 0; i < 8; ++i) CHECK(arr[i] == orig[i]);
  CHECK(out[0] == 106);
  for (int i = 1; i < 8; ++i) CHECK(out[i] == orig[i] + 6);
  CHECK(r == 6);
  CHECK(level == 0 && in_par == 0 && threads == 1); /* a fresh initial thread, as the host fallback */
  /* the if clause and the device clause pick the host too */
  int ran = 0, dev = 0;
#pragma omp target if (dev) map(tofrom : ran)
  ran += 1;
#pragma omp target device(omp_get_initial_device()) map(tofrom : ran)
  ran += 2;
  CHECK(ran == 3);
}

static void target_nowait_depend(void) {
  int x = 0, y = 0, z = 0, got = 0;
  int fa[4] = {1, 2, 3, 4};
#pragma omp parallel shared(x, y, z, got, fa)
#pragma omp single
  {
#pragma omp task depend(out : x) shared(x)
    {
      nap();
      x = 1;
    }
#pragma omp target nowait depend(in : x) depend(out : y) map(tofrom : x, y)
    y = x + 1;
#pragma omp task depend(in : y) shared(y, z)
    z = y + 1;
#pragma omp target nowait firstprivate(fa) map(tofrom : got) depend(out : got)
    {
      nap();
      got = fa[0] + fa[3];
    }
    fa[0] = 100; /* after the construct: the region keeps the values it was given */
#pragma omp taskwait
  }
  CHECK(y == 2 && z == 3);
  CHECK(got == 5);

  /* the data constructs' own dependences: enter data nowait orders a reader of w after the
     writer through wz; target update (without nowait) waits for the second writer */
  int w = 0, seen_w = -1, wz = 0, w_at_update = -1;
#pragma omp parallel shared(w, seen_w, wz, w_at_update)
#pragma omp single
  {
#pragma omp task depend(out : w) shared(w)
    {
      nap();
      w = 1;
    }
#pragma omp target enter data map(to : w) nowait depend(in : w) depend(out : wz)
#pragma omp task depend(in : wz) shared(w, seen_w)
    seen_w = w;
#pragma omp task depend(out : w) depend(inout : wz) shared(w)
    {
      nap();
      w = 2;
    }
#pragma omp target update to(w) depend(in : w)
    w_at_update = w;
#pragma omp taskwait
  }
  CHECK(seen_w == 1);
  CHECK(w_at_update == 2);

  /* data constructs: enter data / a region / exit data chained by dependences, nowait */
  static int v[k_n];
  long total = 0;
#pragma omp parallel shared(v, total)
#pragma omp single
  {
#pragma omp task depend(out : v) shared(v)
    {
      nap();
      for (int i = 0; i < k_n; ++i) v[i] = i;
    }
#pragma omp target enter data map(to : v [0:k_n]) nowait depend(inout : v)
#pragma omp target teams distribute parallel for map(tofrom : v [0:k_n]) nowait depend(inout : v)
    for (int i = 0; i < k_n; ++i) v[i] *= 3;
#pragma omp target exit data map(from : v [0:k_n]) nowait depend(inout : v)
#pragma omp target update to(v [0:k_n]) depend(in : v)
#pragma omp task depend(in : v) shared(v, total)
    for (int i = 0; i < k_n; ++i) total += v[i];
#pragma omp taskwait
  }
  CHECK(total == 3L * k_n * (k_n - 1) / 2);
#pragma omp target data map(tofrom : v [0:k_n])
  {
#pragma omp target update from(v [0:k_n])
    CHECK(v[7] == 21);
  }
}

static void thread_limit(void) {
  int limit = 0, biggest = 0;
#pragma omp target teams num_teams(2) thread_limit(2) map(tofrom : limit, biggest)
  {
#pragma omp parallel num_threads(4)
    {
#pragma omp critical
      {
        if (omp_get_num_threads() > biggest) biggest = omp_get_num_threads();
        limit = omp_get_thread_limit();
      }
    }
  }
  CHECK(limit == 2);
  CHECK(biggest >= 1 && biggest <= 2);
}

static void host_teams(void) {
  int visits[3] = {0}, members[3] = {0}, sizes[3] = {0}, levels[3] = {-1, -1, -1};
  long sum = 0;
#pragma omp teams num_teams(3) shared(visits, members, sizes, levels)
  {
    int t = omp_get_team_num();
    CHECK(omp_get_num_teams() == 3);
    CHECK(t >= 0 && t < 3);
    visits[t] += 1;
#pragma omp parallel shared(members, sizes)
    {
      CHECK(omp_get_team_num() == t);
      CHECK(omp_get_num_teams() == 3);
#pragma omp atomic
      members[t] += 1;
      if (omp_get_thread_num() == 0) {
        sizes[t] = omp_get_num_threads();
        levels[t] = omp_get_level();
      }
    }
  }
  for (int t = 0; t < 3; ++t) {
    CHECK(visits[t] == 1);
    CHECK(levels[t] == 1); /* the teams construct itself adds no level */
    CHECK(sizes[t] >= 1 && members[t] == sizes[t]);
  }
  /* host teams distribute: gcc splits the loop with the league queries */
#pragma omp teams distribute num_teams(3) reduction(+ : sum)
  for (int i = 0; i < k_n; ++i) sum += i;
  CHECK(sum == (long)k_n * (k_n - 1) / 2);
  CHECK(omp_get_num_teams() == 1 && omp_get_team_num() == 0);
}

static void device_api(void) {
  const int host = omp_get_initial_device();
  CHECK(omp_get_num_devices() == 0);
  CHECK(omp_is_initial_device() == 1);
  CHECK(host == omp_get_num_devices());
  int* p = omp_target_alloc(16 * sizeof(int), host);
  CHECK(p != NULL);
  CHECK(omp_target_is_present(p, host) == 1);
  int src[16], back[16];
  for (int i = 0; i < 16; ++i) src[i] = i * i;
  CHECK(omp_target_memcpy(p, src, 16 * sizeof(int), 0, 0, host, host) == 0);
  CHECK(omp_target_memcpy(back, p, 8 * sizeof(int), 0, 8 * sizeof(int), host, host) == 0);
  for (int i = 0; i < 8; ++i) CHECK(back[i] == (i + 8) * (i + 8));
  CHECK(omp_target_memcpy(back, p, 4, 0, 0, host, 5) == EINVAL);
  CHECK(omp_target_alloc(8, 3) == NULL);
  /* a 2x3 block out of a 4x5 matrix into the corner of a 3x4 one */
  int m[4][5], d[3][4];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) m[i][j] = 10 * i + j;
  memset(d, 0, sizeof d);
  size_t volume[2] = {2, 3}, src_off[2] = {1, 2}, dst_off[2] = {0, 1}, src_dim[2] = {4, 5}, dst_dim[2] = {3, 4};
  CHECK(omp_target_memcpy_rect(d, m, sizeof(int), 2, volume, dst_off, src_off, dst_dim, src_dim, host, host) == 0);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      int want = (i < 2 && j >= 1) ? m[1 + i][2 + j - 1] : 0;
      CHECK(d[i][j] == want);
    }
  CHECK(omp_target_memcpy_rect(NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, host, host) > 0);
  CHECK(omp_target_associate_ptr(src, p, 4, 0, host) == EINVAL);
  omp_target_free(p, host);
}

int main(void) {
  target_teams_loop();
  target_firstprivate();
  target_nowait_depend();
  thread_limit();
  host_teams();
  device_api();
  printf("target: ok\n");
  return 0;
}

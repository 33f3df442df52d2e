/* audit_dlopen forkjoin|native FJ_OMP FJ_TBB GOMP TBB: opens GOMP (libgomp.so.1, by soname or
 * by absolute path, as R's packages and Python's modules do) and TBB (libtbb.so.12 or
 * libtbb.so, likewise) with dlopen, long after the program started (it links no runtime).
 * Through GOMP's handle it runs a region of 3 threads asking omp_get_num_threads and their
 * thread names; through TBB's it asks TBB_runtime_version. Then it reads /proc/self/maps.
 * "forkjoin" (under the launcher, whose audit library redirects both loads): the region's
 * other threads are forkjoin's (named forkjoin-*), TBB_runtime_version names libforkjoin-tbb,
 * omp_get_num_threads lies in FJ_OMP (the same file, by device and inode), GOMP's handle lacks
 * GOMP_PLUGIN_malloc (libgomp's, not forkjoin's), and no mapped file but FJ_OMP and FJ_TBB is
 * named as an OpenMP or oneTBB runtime. "native": the opposite (the control, without it).
 * Exit status 0 when all of that holds. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

typedef int (*num_threads_fn)(void);
typedef int (*thread_num_fn)(void);
typedef void (*parallel_fn)(void (*)(void*), void*, unsigned, unsigned);
typedef const char* (*version_fn)(void);

static num_threads_fn num_threads;
static thread_num_fn thread_num;
static int team_of_3;      /* members that saw a team of 3 */
static int forkjoin_named; /* members other than the primary named forkjoin-* */

static void region(void* data) {
  (void)data;
  if (num_threads() == 3) __atomic_fetch_add(&team_of_3, 1, __ATOMIC_RELAXED);
  char name[16] = "";
  pthread_getname_np(pthread_self(), name, sizeof name);
  if (thread_num() != 0 && strncmp(name, "forkjoin", 8) == 0) __atomic_fetch_add(&forkjoin_named, 1, __ATOMIC_RELAXED);
}

struct id {
  unsigned long dev_major, dev_minor, ino;
};

static int id_of(const char* path, struct id* out) {
  struct stat st;
  if (stat(path, &st) != 0) return 0;
  out->dev_major = major(st.st_dev);
  out->dev_minor = minor(st.st_dev);
  out->ino = st.st_ino;
  return 1;
}

static int same(const struct id* a, unsigned long maj, unsigned long min, unsigned long ino) {
  return a->dev_major == maj && a->dev_minor == min && a->ino == ino;
}

/* A file name of a runtime: libgomp.so*, libomp.so*, libiomp5.so*, libtbb.so* (not libtbbmalloc) */
static int runtime_name(const char* path) {
  const char* base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  return strncmp(base, "libgomp", 7) == 0 || strncmp(base, "libomp.so", 9) == 0 || strncmp(base, "libiomp5", 8) == 0 ||
         strncmp(base, "libtbb.so", 9) == 0;
}

int main(int argc, char** argv) {
  if (argc != 6 || (strcmp(argv[1], "forkjoin") != 0 && strcmp(argv[1], "native") != 0)) {
    fprintf(stderr, "usage: audit_dlopen forkjoin|native FJ_OMP FJ_TBB GOMP TBB\n");
    return 2;
  }
  const int want_forkjoin = strcmp(argv[1], "forkjoin") == 0;
  struct id fj_omp, fj_tbb;
  if (!id_of(argv[2], &fj_omp) || !id_of(argv[3], &fj_tbb)) {
    printf("audit_dlopen: cannot stat %s or %s\n", argv[2], argv[3]);
    return 2;
  }
  void* gomp = dlopen(argv[4], RTLD_NOW | RTLD_LOCAL);
  void* tbb = dlopen(argv[5], RTLD_NOW | RTLD_GLOBAL);
  if (!gomp || !tbb) {
    printf("audit_dlopen: dlopen: %s\n", dlerror());
    return 1;
  }
  num_threads = (num_threads_fn)dlsym(gomp, "omp_get_num_threads");
  thread_num = (thread_num_fn)dlsym(gomp, "omp_get_thread_num");
  parallel_fn parallel = (parallel_fn)dlsym(gomp, "GOMP_parallel");
  version_fn version = (version_fn)dlsym(tbb, "TBB_runtime_version");
  if (!num_threads || !thread_num || !parallel || !version) {
    printf("audit_dlopen: an entry point is missing: %s\n", dlerror());
    return 1;
  }
  parallel(region, NULL, 3, 0);
  const int plugin_api = dlsym(gomp, "GOMP_PLUGIN_malloc") != NULL;
  const int tbb_ours = strstr(version(), "libforkjoin-tbb") != NULL;

  /* the file that holds omp_get_num_threads, and every runtime's file mapped */
  int omp_in_forkjoin = 0, natives = 0, ours = 0;
  unsigned long last_native = 0;
  FILE* maps = fopen("/proc/self/maps", "r");
  char line[4096];
  while (maps && fgets(line, sizeof line, maps)) {
    unsigned long lo, hi, maj, min, ino;
    int path_at = 0;
    if (sscanf(line, "%lx-%lx %*s %*s %lx:%lx %lu %n", &lo, &hi, &maj, &min, &ino, &path_at) < 5 || path_at == 0)
      continue;
    char* path = line + path_at;
    path[strcspn(path, "\n")] = '\0';
    const int forkjoin = same(&fj_omp, maj, min, ino) || same(&fj_tbb, maj, min, ino);
    if ((uintptr_t)num_threads >= lo && (uintptr_t)num_threads < hi) omp_in_forkjoin = same(&fj_omp, maj, min, ino);
    if (forkjoin) ++ours;
    if (!forkjoin && runtime_name(path) && ino != last_native) { /* once per file, not per segment */
      printf("native runtime mapped: %s\n", path);
      ++natives;
      last_native = ino;
    }
  }
  if (maps) fclose(maps);
  printf(
      "team of 3: %d members saw it, %d of the 2 others named forkjoin-*; TBB_runtime_version: %s; "
      "omp_get_num_threads in %s; GOMP_PLUGIN_malloc %s; %d native runtime mappings\n",
      team_of_3, forkjoin_named, version(), omp_in_forkjoin ? "libforkjoin-omp" : "another file",
      plugin_api ? "present" : "absent", natives);
  int failed = team_of_3 != 3;
  if (want_forkjoin)
    failed |= forkjoin_named != 2 || !tbb_ours || !omp_in_forkjoin || plugin_api || natives != 0;
  else
    failed |= forkjoin_named != 0 || tbb_ours || omp_in_forkjoin || !plugin_api || natives == 0 || ours != 0;
  printf("audit_dlopen: %s (expected %s)\n", failed ? "FAILED" : "ok", argv[1]);
  return failed;
}

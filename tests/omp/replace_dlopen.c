/* replace_dlopen forkjoin|libgomp LIBRARY: opens libgomp.so.1 with dlopen, as Python's and R's
 * extension modules have it loaded long after the program started (it links no OpenMP
 * runtime), starts a parallel region of 3 threads through that handle and has each thread ask
 * omp_get_num_threads through it; then says which file served the calls: the file mapped at
 * omp_get_num_threads' address in /proc/self/maps (libforkjoin-omp when it is LIBRARY, the
 * same file by whichever name: the replace folder's libgomp.so.1 is a hard link to it), and
 * whether the handle has GOMP_PLUGIN_malloc, which libgomp exports (for its offload plugins)
 * and libforkjoin-omp does not. Exit status 0 when that runtime is the one named in argv[1]. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

typedef int (*num_threads_fn)(void);
typedef void (*parallel_fn)(void (*)(void*), void*, unsigned, unsigned);

static num_threads_fn num_threads;
static int seen[3];

static void region(void* data) {
  (void)data;
  int n = num_threads();
  __atomic_fetch_add(&seen[n == 3 ? 0 : 1], 1, __ATOMIC_RELAXED);
}

/* The path of the file mapped at addr, from /proc/self/maps (empty when none). */
static void mapped_file(const void* addr, char* out, size_t size) {
  out[0] = '\0';
  FILE* maps = fopen("/proc/self/maps", "r");
  if (!maps) return;
  char line[4096];
  while (fgets(line, sizeof line, maps)) {
    unsigned long lo, hi;
    int path_at = 0;
    if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &lo, &hi, &path_at) < 2 || path_at == 0) continue;
    if ((uintptr_t)addr < lo || (uintptr_t)addr >= hi) continue;
    snprintf(out, size, "%s", line + path_at);
    out[strcspn(out, "\n")] = '\0';
    break;
  }
  fclose(maps);
}

int main(int argc, char** argv) {
  if (argc != 3 || (strcmp(argv[1], "forkjoin") != 0 && strcmp(argv[1], "libgomp") != 0)) {
    fprintf(stderr, "usage: replace_dlopen forkjoin|libgomp LIBRARY\n");
    return 2;
  }
  void* gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!gomp) {
    printf("dlopen(libgomp.so.1): %s\n", dlerror());
    return 1;
  }
  num_threads = (num_threads_fn)dlsym(gomp, "omp_get_num_threads");
  parallel_fn parallel = (parallel_fn)dlsym(gomp, "GOMP_parallel");
  if (!num_threads || !parallel) {
    printf("omp_get_num_threads or GOMP_parallel missing: %s\n", dlerror());
    return 1;
  }
  parallel(region, NULL, 3, 0);
  char file[4096];
  mapped_file((const void*)num_threads, file, sizeof file);
  const char* base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
  struct stat mapped, library;
  int ours = stat(file, &mapped) == 0 && stat(argv[2], &library) == 0 && mapped.st_dev == library.st_dev &&
             mapped.st_ino == library.st_ino;
  int plugin_api = dlsym(gomp, "GOMP_PLUGIN_malloc") != NULL;
  const char* runtime = ours && !plugin_api                                           ? "forkjoin"
                        : !ours && strncmp(base, "libgomp.so", 10) == 0 && plugin_api ? "libgomp"
                                                                                      : "unknown";
  printf("omp_get_num_threads mapped from %s; GOMP_PLUGIN_malloc %s; team of 3: %d threads saw 3, %d another count\n",
         file, plugin_api ? "present" : "absent", seen[0], seen[1]);
  if (seen[0] != 3 || seen[1] != 0) {
    printf("replace_dlopen: FAILED, a region of 3 threads was not one\n");
    return 1;
  }
  if (strcmp(runtime, argv[1]) != 0) {
    printf("replace_dlopen: FAILED, served by %s, expected %s\n", runtime, argv[1]);
    return 1;
  }
  printf("replace_dlopen: served by %s\n", runtime);
  return 0;
}

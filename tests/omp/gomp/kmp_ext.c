/* kmp_ext: libomp's conventions on libforkjoin-omp ([P-OMP KMP] in omp/DESIGN.md), built by
   gcc (libgomp's ABI) and by clang (libomp's), linked against libforkjoin-omp.
   "kmp_ext api": the kmp_* routines (blocktime, modes, stack size, kmp_set_defaults, affinity
   masks, memory), omp_pause_resource followed by more regions, depend(inout: omp_all_memory)
   (earlier sibling tasks finished before it starts, later ones start after it finished).
   "kmp_ext env KEY=VALUE...": what the KMP_* variables of the test's environment set. */
#define _GNU_SOURCE
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

/* libomp's extension API (clang's omp.h declares it; gcc's does not) */
int kmp_get_blocktime(void);
void kmp_set_blocktime(int);
int kmp_get_library(void);
void kmp_set_library(int);
void kmp_set_library_serial(void);
void kmp_set_library_throughput(void);
size_t kmp_get_stacksize_s(void);
void kmp_set_stacksize_s(size_t);
int kmp_get_stacksize(void);
void kmp_set_defaults(char const*);
void kmp_create_affinity_mask(void**);
void kmp_destroy_affinity_mask(void**);
int kmp_set_affinity_mask_proc(int, void**);
int kmp_unset_affinity_mask_proc(int, void**);
int kmp_get_affinity_mask_proc(int, void**);
int kmp_get_affinity(void**);
int kmp_get_affinity_max_proc(void);
void* kmp_malloc(size_t);
void* kmp_aligned_malloc(size_t, size_t);
void* kmp_calloc(size_t, size_t);
void* kmp_realloc(void*, size_t);
void kmp_free(void*);

static int team_size(void) {
  int n = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  n = omp_get_num_threads();
  return n;
}

static long region_sum(void) {
  long sum = 0;
#pragma omp parallel for num_threads(2) reduction(+ : sum)
  for (long i = 1; i <= 1000; ++i) sum += i;
  return sum;
}

/* ---- depend(inout: omp_all_memory) through each ABI's own encoding ---- */

static volatile int before_done[4], all_ran, all_saw_before, after_saw_all;

static void all_body(void* arg) {
  (void)arg;
  int ok = 1;
  for (int i = 0; i < 4; ++i) ok &= before_done[i];
  all_saw_before = ok;
  usleep(20000); /* later siblings must still wait */
  __atomic_store_n(&all_ran, 1, __ATOMIC_SEQ_CST);
}

#if defined(__clang__)
typedef struct {
  intptr_t base_addr;
  size_t len;
  unsigned char flags; /* 0x80: omp_all_memory */
} kmp_depend_info;
typedef struct {
  void* shareds;
  int (*routine)(int, void*);
  int part_id;
} kmp_task;
kmp_task* __kmpc_omp_task_alloc(void* loc, int gtid, int flags, size_t size, size_t shareds, int (*entry)(int, void*));
int __kmpc_omp_task_with_deps(void* loc, int gtid, kmp_task* t, int n, kmp_depend_info* d, int nn, void* dn);
int __kmpc_global_thread_num(void* loc);
static int all_entry(int gtid, void* t) {
  (void)gtid;
  (void)t;
  all_body(0);
  return 0;
}
static void spawn_all_memory(int use_address) {
  kmp_task* t = __kmpc_omp_task_alloc(0, __kmpc_global_thread_num(0), 1, sizeof(kmp_task) + 64, 0, all_entry);
  kmp_depend_info d = {use_address ? (intptr_t)-1 : (intptr_t)&all_ran, 0, use_address ? 2 : 0x80};
  __kmpc_omp_task_with_deps(0, __kmpc_global_thread_num(0), t, 1, &d, 0, 0);
}
#else
void GOMP_task(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long size, long align, _Bool if_clause,
               unsigned flags, void** depend, int priority, void* detach);
static void spawn_all_memory(int use_address) {
  (void)use_address;
  void* depend[3] = {(void*)1, (void*)1, NULL}; /* one dependence, written: the null address (gcc 13) */
  GOMP_task(all_body, NULL, NULL, 0, 1, 1, 8u, depend, 0, NULL);
}
#endif

static void check_all_memory(int use_address) {
  int a = 0, b = 0;
  memset((void*)before_done, 0, sizeof before_done);
  all_ran = all_saw_before = after_saw_all = 0;
#pragma omp parallel num_threads(3)
#pragma omp single
  {
    /* earlier siblings with unrelated dependences: out, in, inout, and a second out */
#pragma omp task depend(out : a)
    {
      usleep(10000);
      before_done[0] = 1;
    }
#pragma omp task depend(in : b)
    {
      usleep(15000);
      before_done[1] = 1;
    }
#pragma omp task depend(inout : b)
    before_done[2] = 1;
#pragma omp task depend(out : before_done)
    {
      usleep(5000);
      before_done[3] = 1;
    }
    spawn_all_memory(use_address);
    /* a later sibling with an unrelated dependence waits for it */
#pragma omp task depend(in : after_saw_all)
    after_saw_all = __atomic_load_n(&all_ran, __ATOMIC_SEQ_CST);
#pragma omp taskwait
  }
  CHECK(all_saw_before == 1);
  CHECK(all_ran == 1);
  CHECK(after_saw_all == 1);
}

static void check_api(void) {
  kmp_set_blocktime(0);
  CHECK(kmp_get_blocktime() == 0);
  kmp_set_blocktime(50);
  CHECK(kmp_get_blocktime() == 50);
  CHECK(region_sum() == 500500);
  kmp_set_library_serial();
  CHECK(kmp_get_library() == 1);
  CHECK(team_size() == 1);
  kmp_set_library_throughput();
  CHECK(kmp_get_library() == 3);
  CHECK(team_size() == 2);
  kmp_set_defaults("KMP_BLOCKTIME=7|KMP_LIBRARY=serial");
  CHECK(kmp_get_blocktime() == 7);
  CHECK(kmp_get_library() == 1);
  CHECK(team_size() == 1);
  kmp_set_library(3);
  CHECK(team_size() == 2);
  kmp_set_stacksize_s((size_t)6 << 20);
  CHECK(kmp_get_stacksize_s() == (size_t)6 << 20);
  CHECK(kmp_get_stacksize() == 6 << 20);

  void* mask = NULL;
  kmp_create_affinity_mask(&mask);
  CHECK(mask != NULL);
  CHECK(kmp_get_affinity_max_proc() >= 1);
  CHECK(kmp_set_affinity_mask_proc(0, &mask) == 0);
  CHECK(kmp_get_affinity_mask_proc(0, &mask) == 1);
  CHECK(kmp_unset_affinity_mask_proc(0, &mask) == 0);
  CHECK(kmp_get_affinity_mask_proc(0, &mask) == 0);
  CHECK(kmp_set_affinity_mask_proc(-1, &mask) == -1);
  CHECK(kmp_get_affinity(&mask) == 0);
  CHECK(kmp_get_affinity_mask_proc(sched_getcpu(), &mask) == 1);
  kmp_destroy_affinity_mask(&mask);
  CHECK(mask == NULL);

  char* p = kmp_aligned_malloc(100, 64);
  CHECK(p != NULL && ((uintptr_t)p & 63) == 0);
  kmp_free(p);
  int* z = kmp_calloc(16, sizeof(int));
  CHECK(z != NULL && z[15] == 0);
  z = kmp_realloc(z, 64 * sizeof(int));
  CHECK(z != NULL && z[15] == 0);
  kmp_free(z);
  kmp_free(kmp_malloc(10));

  /* omp_pause_resource: 0 on the host outside regions, and the next region works */
  CHECK(omp_pause_resource(omp_pause_soft, omp_get_initial_device()) == 0);
  CHECK(region_sum() == 500500);
  CHECK(omp_pause_resource(omp_pause_hard, omp_get_initial_device()) == 0);
  CHECK(region_sum() == 500500);
  CHECK(omp_pause_resource_all(omp_pause_soft) == 0);
  CHECK(team_size() == 2);
  CHECK(omp_pause_resource_all((omp_pause_resource_t)7) != 0);
  int inside = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  inside = omp_pause_resource_all(omp_pause_soft);
  CHECK(inside != 0);
  CHECK(region_sum() == 500500);

  check_all_memory(0);
  check_all_memory(1);
}

/* the settings the environment made, as KEY=VALUE arguments */
static void check_env(int argc, char** argv) {
  for (int i = 2; i < argc; ++i) {
    const char* eq = strchr(argv[i], '=');
    CHECK(eq != NULL);
    const long want = strtol(eq + 1, NULL, 10);
    const size_t n = (size_t)(eq - argv[i]);
    if (strncmp(argv[i], "blocktime", n) == 0) {
      CHECK(kmp_get_blocktime() == want);
    } else if (strncmp(argv[i], "library", n) == 0) {
      CHECK(kmp_get_library() == want);
    } else if (strncmp(argv[i], "team", n) == 0) {
      CHECK(team_size() == want);
    } else if (strncmp(argv[i], "stacksize", n) == 0) {
      CHECK(kmp_get_stacksize_s() == (size_t)want);
      size_t got = 0;
#pragma omp parallel num_threads(2)
      if (omp_get_thread_num() == 1) {
        pthread_attr_t attr;
        pthread_getattr_np(pthread_self(), &attr);
        pthread_attr_getstacksize(&attr, &got);
        pthread_attr_destroy(&attr);
      }
      CHECK(got >= (size_t)want); /* the team thread runs on a stack that large */
    } else if (strncmp(argv[i], "teams_thread_limit", n) == 0) {
      CHECK(omp_get_teams_thread_limit() == want);
    } else if (strncmp(argv[i], "bind", n) == 0) {
      CHECK((long)omp_get_proc_bind() == want);
    } else if (strncmp(argv[i], "places", n) == 0) {
      CHECK(omp_get_num_places() == (want < 0 ? omp_get_num_procs() : want));
    } else if (strncmp(argv[i], "schedule", n) == 0) {
      omp_sched_t kind;
      int chunk;
      omp_get_schedule(&kind, &chunk);
      CHECK((long)(kind & ~omp_sched_monotonic) == want);
      CHECK(chunk == atoi(strchr(eq, ',') + 1));
      long sum = 0;
#pragma omp parallel for schedule(runtime) num_threads(2) reduction(+ : sum)
      for (long k = 1; k <= 1000; ++k) sum += k;
      CHECK(sum == 500500);
    } else if (strncmp(argv[i], "throttle", n) == 0) {
      /* as LLVM's tasking/omp_fill_taskqueue.c: tasks block until thread 0 runs one; without
         the throttle every task was queued before thread 0 ran any */
      int block = 1, enqueued = 0, seen = -1;
#pragma omp parallel num_threads(2)
#pragma omp master
      {
        for (int k = 0; k < 1000; ++k) {
          enqueued++;
#pragma omp task shared(block, enqueued, seen)
          {
            if (omp_get_thread_num() == 0) {
              if (__atomic_load_n(&seen, __ATOMIC_SEQ_CST) < 0) __atomic_store_n(&seen, enqueued, __ATOMIC_SEQ_CST);
              __atomic_store_n(&block, 0, __ATOMIC_SEQ_CST);
            }
            while (__atomic_load_n(&block, __ATOMIC_SEQ_CST)) sched_yield();
          }
        }
        __atomic_store_n(&block, 0, __ATOMIC_SEQ_CST);
      }
      CHECK(want ? (seen >= 0 && seen < 1000) : (seen < 0 || seen == 1000));
#if defined(__clang__)
    } else if (strncmp(argv[i], "offload", n) == 0) {
      int __kmpc_get_target_offload(void);
      CHECK(__kmpc_get_target_offload() == want);
      kmp_set_defaults("OMP_TARGET_OFFLOAD=MANDATORY");
      CHECK(__kmpc_get_target_offload() == 2);
#endif
    } else {
      CHECK(!"unknown key");
    }
  }
}

int main(int argc, char** argv) {
  CHECK(argc >= 2);
  if (strcmp(argv[1], "api") == 0)
    check_api();
  else
    check_env(argc, argv);
  printf("kmp_ext: ok\n");
  return 0;
}

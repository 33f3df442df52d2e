/* alloc: OpenMP memory allocators. Predefined allocators, omp_init_allocator's traits
   (alignment, pool_size, the four fallbacks, fb_data, pinned) and its refusals, the zero-size
   rules, realloc and calloc, def-allocator-var (per task, inherited by nested regions; set by
   OMP_ALLOCATOR when the test runs with it), the allocate clause (GOMP_alloc), and a pool
   shared by the team. */
#include <omp.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "check.h"

#define ALIGNED(p, a) ((((uintptr_t)(p)) % (a)) == 0)

static omp_allocator_handle_t make(int n, const omp_alloctrait_t* t) {
  omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, n, t);
  CHECK(a != omp_null_allocator);
  return a;
}

/* kB of locked memory (VmLck), -1 if unknown (or when a sanitizer's mlock, which does
   nothing, stands in for the system's) */
static long locked_kb(void) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return -1;
#endif
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f != NULL && fgets(line, sizeof line, f) != NULL)
    if (strncmp(line, "VmLck:", 6) == 0) kb = strtol(line + 6, NULL, 10);
  if (f != NULL) fclose(f);
  return kb;
}

static void zero_sizes(void) {
  omp_allocator_handle_t pool =
      make(2, (omp_alloctrait_t[]){{omp_atk_pool_size, 1}, {omp_atk_fallback, omp_atv_abort_fb}});
  omp_allocator_handle_t all[] = {omp_null_allocator, omp_default_mem_alloc, omp_thread_mem_alloc, pool};
  for (int i = 0; i < 4; ++i) {
    CHECK(omp_alloc(0, all[i]) == NULL);
    CHECK(omp_aligned_alloc(64, 0, all[i]) == NULL);
    CHECK(omp_calloc(0, 8, all[i]) == NULL && omp_calloc(8, 0, all[i]) == NULL);
    CHECK(omp_aligned_calloc(32, 0, 0, all[i]) == NULL);
    CHECK(omp_realloc(NULL, 0, all[i], all[i]) == NULL);
  }
  omp_free(NULL, pool);
  int* p = omp_alloc(sizeof(int), omp_default_mem_alloc);
  CHECK(p != NULL);
  CHECK(omp_realloc(p, 0, omp_null_allocator, omp_null_allocator) == NULL); /* freed */
  omp_destroy_allocator(pool);
}

static void predefined(void) {
  for (omp_allocator_handle_t a = omp_default_mem_alloc; a <= omp_thread_mem_alloc; ++a) {
    long* p = omp_alloc(100 * sizeof(long), a);
    CHECK(p != NULL && ALIGNED(p, sizeof(long)));
    for (int i = 0; i < 100; ++i) p[i] = i;
    char* q = omp_aligned_alloc(4096, 10, a);
    CHECK(q != NULL && ALIGNED(q, 4096));
    omp_free(q, a);
    omp_free(p, omp_null_allocator); /* the block knows its allocator */
  }
}

static void refusals(void) {
  const omp_alloctrait_t ok = {omp_atk_alignment, 64};
  CHECK(omp_init_allocator((omp_memspace_handle_t)99, 1, &ok) == omp_null_allocator);
  CHECK(omp_init_allocator(omp_high_bw_mem_space, 0, NULL) == omp_null_allocator); /* none here */
  const omp_alloctrait_t bad[][1] = {{{omp_atk_alignment, 24}},
                                     {{omp_atk_alignment, 0}},
                                     {{omp_atk_fallback, omp_atv_true}},
                                     {{omp_atk_access, omp_atv_blocked}},
                                     {{omp_atk_pinned, 2}},
                                     {{omp_atk_sync_hint, omp_atv_all}},
                                     {{omp_atk_partition, omp_atv_thread}},
                                     {{(omp_alloctrait_key_t)99, 1}}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
    CHECK(omp_init_allocator(omp_default_mem_space, 1, bad[i]) == omp_null_allocator);
  const omp_memspace_handle_t spaces[] = {omp_default_mem_space, omp_large_cap_mem_space, omp_const_mem_space,
                                          omp_low_lat_mem_space};
  for (int i = 0; i < 4; ++i) {
    omp_allocator_handle_t a = omp_init_allocator(spaces[i], 1, &ok);
    CHECK(a != omp_null_allocator);
    void* p = omp_alloc(10, a);
    CHECK(p != NULL && ALIGNED(p, 64));
    omp_free(p, a);
    omp_destroy_allocator(a);
  }
  omp_destroy_allocator(omp_null_allocator);
}

static void pools_and_fallbacks(void) {
  /* alignment and a pool with null_fb */
  omp_allocator_handle_t a = make(
      3,
      (omp_alloctrait_t[]){{omp_atk_alignment, 256}, {omp_atk_pool_size, 4096}, {omp_atk_fallback, omp_atv_null_fb}});
  char* p = omp_alloc(2000, a);
  CHECK(p != NULL && ALIGNED(p, 256));
  memset(p, 1, 2000);
  CHECK(omp_alloc(3000, a) == NULL);
  char* q = omp_aligned_alloc(1024, 16, a); /* the larger of the two alignments */
  CHECK(q != NULL && ALIGNED(q, 1024));
  omp_free(q, a);
  /* realloc in the same pool may reuse the block's bytes; another allocator copies */
  p = omp_realloc(p, 3000, a, a);
  CHECK(p != NULL && ALIGNED(p, 256) && p[0] == 1 && p[1999] == 1);
  char* r = omp_realloc(p, 5000, omp_default_mem_alloc, a);
  CHECK(r != NULL && r[0] == 1 && r[1999] == 1);
  p = omp_alloc(3000, a); /* the pool is whole again */
  CHECK(p != NULL);
  CHECK(omp_realloc(r, 9000, a, omp_null_allocator) == NULL); /* does not fit: r untouched */
  CHECK(r[1999] == 1);
  omp_free(r, omp_null_allocator);
  omp_free(p, a);

  /* default_mem_fb: beyond the pool, default memory; the pool gets its bytes back */
  omp_allocator_handle_t d =
      make(2, (omp_alloctrait_t[]){{omp_atk_pool_size, 4096}, {omp_atk_fallback, omp_atv_default_mem_fb}});
  void* x = omp_alloc(3000, d);
  void* y = omp_alloc(3000, d);
  CHECK(x != NULL && y != NULL);
  omp_free(y, d);
  omp_free(x, d);
  x = omp_alloc(3000, d);
  CHECK(x != NULL);
  omp_free(x, d);

  /* allocator_fb: a full pool hands over to fb_data's allocator, which may itself be full */
  omp_allocator_handle_t b =
      make(2, (omp_alloctrait_t[]){{omp_atk_pool_size, 8192}, {omp_atk_fallback, omp_atv_null_fb}});
  omp_allocator_handle_t c = make(
      3,
      (omp_alloctrait_t[]){{omp_atk_pool_size, 1024}, {omp_atk_fallback, omp_atv_allocator_fb}, {omp_atk_fb_data, b}});
  void* small = omp_alloc(500, c);
  void* big1 = omp_alloc(3000, c); /* from b */
  void* big2 = omp_alloc(3000, c); /* from b */
  CHECK(small != NULL && big1 != NULL && big2 != NULL);
  CHECK(omp_alloc(3000, c) == NULL); /* b's pool is full too: b's null_fb */
  omp_free(big1, omp_null_allocator);
  CHECK((big1 = omp_alloc(3000, c)) != NULL);
  omp_free(big1, c);
  omp_free(big2, c);
  omp_free(small, c);

  /* a chain: f falls back to e, e (fb_data null) to def-allocator-var */
  omp_alloctrait_t chain[3] = {
      {omp_atk_pool_size, 512}, {omp_atk_fallback, omp_atv_allocator_fb}, {omp_atk_fb_data, 0}};
  omp_allocator_handle_t e = make(3, chain);
  chain[2].value = e;
  omp_allocator_handle_t f = make(3, chain);
  void* far = omp_alloc(100000, f);
  CHECK(far != NULL);
  omp_free(far, f);

  /* calloc zeroes, in a pool and out of one */
  long* z = omp_calloc(100, sizeof(long), d);
  long* w = omp_aligned_calloc(128, 100, sizeof(long), omp_default_mem_alloc);
  CHECK(z != NULL && w != NULL && ALIGNED(w, 128));
  for (int i = 0; i < 100; ++i) CHECK(z[i] == 0 && w[i] == 0);
  volatile size_t huge = (size_t)1 << 40;
  CHECK(omp_calloc(huge, huge, omp_default_mem_alloc) == NULL); /* n * size overflows */
  omp_free(z, d);
  omp_free(w, omp_default_mem_alloc);
  omp_destroy_allocator(f);
  omp_destroy_allocator(a);
  omp_destroy_allocator(b);
  omp_destroy_allocator(c);
  omp_destroy_allocator(d);
  omp_destroy_allocator(e);
}

static void pinned(void) {
  omp_allocator_handle_t a =
      make(2, (omp_alloctrait_t[]){{omp_atk_pinned, omp_atv_true}, {omp_atk_fallback, omp_atv_null_fb}});
  const long before = locked_kb();
  char* p = omp_aligned_alloc(64, 3 * 4096, a);
  if (p != NULL) { /* locking allowed (root, or RLIMIT_MEMLOCK large enough) */
    CHECK(ALIGNED(p, 64) && p[0] == 0 && p[3 * 4096 - 1] == 0);
    if (before >= 0) CHECK(locked_kb() >= before + 12);
    omp_free(p, a);
    if (before >= 0) CHECK(locked_kb() == before);
  }
  omp_destroy_allocator(a);
}

/* def-allocator-var is a task's: a region's threads start with the encountering task's,
   each may change its own, and nested regions inherit it */
static void default_allocator(omp_allocator_handle_t initial) {
  CHECK(omp_get_default_allocator() == initial);
  omp_allocator_handle_t tiny =
      make(2, (omp_alloctrait_t[]){{omp_atk_pool_size, 256}, {omp_atk_fallback, omp_atv_null_fb}});
  int bad = 0;
#pragma omp parallel num_threads(3) reduction(+ : bad)
  {
    if (omp_get_default_allocator() != initial) bad++;
    if (omp_get_thread_num() == 1) {
      omp_set_default_allocator(tiny);
      if (omp_alloc(1000, omp_null_allocator) != NULL) bad++; /* from tiny: does not fit */
#pragma omp parallel num_threads(2) reduction(+ : bad)
      if (omp_get_default_allocator() != tiny) bad++;
    }
#pragma omp barrier
    if (omp_get_thread_num() != 1 && omp_get_default_allocator() != initial) bad++;
  }
  CHECK(bad == 0);
  CHECK(omp_get_default_allocator() == initial);
  omp_set_default_allocator(omp_null_allocator); /* back to the initial value */
  CHECK(omp_get_default_allocator() == initial);
  omp_destroy_allocator(tiny);
}

/* one pool, the whole team allocating at once: never more than it holds, every block its own */
static void shared_pool(void) {
  enum { k_each = 40, k_block = 1000, k_pool = 32768 };
  omp_allocator_handle_t a =
      make(2, (omp_alloctrait_t[]){{omp_atk_pool_size, k_pool}, {omp_atk_fallback, omp_atv_null_fb}});
  for (int round = 0; round < 3; ++round) {
    char* got[8][k_each];
    int n = 0, team = 0;
#pragma omp parallel num_threads(8) reduction(+ : n)
    {
      int me = omp_get_thread_num();
#pragma omp single
      team = omp_get_num_threads();
      for (int k = 0; k < k_each; ++k) {
        got[me][k] = omp_alloc(k_block, a);
        if (got[me][k] != NULL) {
          memset(got[me][k], me + 1, k_block);
          n++;
        }
      }
#pragma omp barrier
      for (int k = 0; k < k_each; ++k)
        if (got[me][k] != NULL) {
          for (int i = 0; i < k_block; ++i)
            if (got[me][k][i] != me + 1) n += 1000; /* another block overlapped it */
          omp_free(got[me][k], a);
        }
    }
    CHECK(team == 8);
    CHECK(n <= k_pool / k_block && n >= k_pool / (k_block + 64));
  }
  omp_destroy_allocator(a);
}

/* the allocate clause: private copies from an allocator (GOMP_alloc / GOMP_free) */
static void allocate_clause(void) {
  omp_allocator_handle_t a = make(1, (omp_alloctrait_t[]){{omp_atk_alignment, 128}});
  int x = 7, sum = 0;
#pragma omp parallel num_threads(4) firstprivate(x) allocate(a : x) reduction(+ : sum)
  {
    if (!ALIGNED(&x, 128)) sum += 1000;
    sum += x;
  }
  CHECK(sum == 7 * 4);
  omp_destroy_allocator(a);
}

int main(void) {
  omp_allocator_handle_t initial = omp_default_mem_alloc;
  const char* env = getenv("OMP_ALLOCATOR");
  char name[64] = "";
  if (env != NULL && sscanf(env, " %63s", name) == 1 && strcasecmp(name, "omp_low_lat_mem_alloc") == 0)
    initial = omp_low_lat_mem_alloc;
  default_allocator(initial);
  zero_sizes();
  predefined();
  refusals();
  pools_and_fallbacks();
  pinned();
  shared_pool();
  allocate_clause();
  puts("alloc: ok");
  return 0;
}

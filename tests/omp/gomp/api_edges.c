/* api_edges: the omp_* API at the edges of its domain. Invalid arguments leave the ICVs as
   they were, too large ones are clamped; the teams ICVs set through the API reach a teams
   construct; the device memory routines refuse devices that do not exist; the place queries
   ignore places out of range; allocator traits at their default and out of range; allocations
   that cannot be had; a lock held by another thread. */
#include <errno.h>
#include <limits.h>
#include <omp.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "check.h"

/* the allocate clause's entry points */
void* GOMP_alloc(size_t alignment, size_t size, uintptr_t allocator);
void GOMP_free(void* p, uintptr_t allocator);

static void icv_setters(void) {
  const int threads = omp_get_max_threads();
  omp_set_num_threads(0);
  omp_set_num_threads(-4);
  CHECK(omp_get_max_threads() == threads);

  omp_sched_t kind0, kind;
  int chunk0, chunk;
  omp_get_schedule(&kind0, &chunk0);
  omp_set_schedule((omp_sched_t)0, 5);
  omp_set_schedule((omp_sched_t)7, 5);
  omp_get_schedule(&kind, &chunk);
  CHECK(kind == kind0 && chunk == chunk0);
  omp_set_schedule(omp_sched_static, 0);
  omp_get_schedule(&kind, &chunk);
  CHECK(kind == omp_sched_static && chunk == 0);
  omp_set_schedule(omp_sched_dynamic, -3);
  omp_get_schedule(&kind, &chunk);
  CHECK(kind == omp_sched_dynamic && chunk == 1);
  omp_set_schedule(kind0, chunk0);

  const int levels = omp_get_max_active_levels();
  omp_set_max_active_levels(-1);
  CHECK(omp_get_max_active_levels() == levels);
  omp_set_max_active_levels(INT_MAX);
  CHECK(omp_get_max_active_levels() == omp_get_supported_active_levels());
  omp_set_max_active_levels(levels);
  CHECK(omp_get_ancestor_thread_num(-1) == -1 && omp_get_team_size(-1) == -1);
}

static void teams_icvs(void) {
  CHECK(omp_get_max_teams() == 0 && omp_get_teams_thread_limit() == 0);
  omp_set_num_teams(0);
  omp_set_num_teams(-1);
  omp_set_teams_thread_limit(0);
  omp_set_teams_thread_limit(-2);
  CHECK(omp_get_max_teams() == 0 && omp_get_teams_thread_limit() == 0);
  omp_set_num_teams(2);
  omp_set_teams_thread_limit(3);
  CHECK(omp_get_max_teams() == 2 && omp_get_teams_thread_limit() == 3);
  int league = 0, limit = 0, seen[2] = {0, 0};
#pragma omp teams
  {
    const int t = omp_get_team_num();
    if (t == 0) league = omp_get_num_teams();
    if (t >= 0 && t < 2) seen[t] = 1;
#pragma omp parallel num_threads(1)
    if (omp_get_team_num() == 0) limit = omp_get_thread_limit();
  }
  CHECK(league == 2 && seen[0] && seen[1] && limit == 3);
}

static void devices(void) {
  const int host = omp_get_initial_device(), absent = omp_get_num_devices() + 5;
  CHECK(omp_target_alloc(16, absent) == NULL);
  omp_target_free(NULL, absent); /* ignored */
  char a[8] = "abcdefg", b[8] = {0};
  CHECK(omp_target_is_present(a, absent) == 0);
  CHECK(omp_target_is_present(NULL, absent) == 1 && omp_target_is_present(a, host) == 1);
  void* p = omp_target_alloc(0, -1); /* -1: omp_initial_device of OpenMP 5.2 */
  CHECK(p != NULL);
  omp_target_free(p, -1);
  CHECK(omp_target_memcpy(b, a, 4, 0, 0, absent, host) == EINVAL);
  CHECK(omp_target_memcpy(b, a, 4, 0, 0, host, absent) == EINVAL);
  CHECK(b[0] == 0);
  CHECK(omp_target_memcpy(b, a, 4, 0, 1, host, host) == 0 && memcmp(b, "bcde", 4) == 0);
  const size_t volume[1] = {4}, offsets[1] = {0}, dims[1] = {8};
  CHECK(omp_target_memcpy_rect(NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, host, host) == INT_MAX);
  CHECK(omp_target_memcpy_rect(b, a, 1, 0, volume, offsets, offsets, dims, dims, host, host) == EINVAL);
  CHECK(omp_target_memcpy_rect(b, NULL, 1, 1, volume, offsets, offsets, dims, dims, host, host) == EINVAL);
  CHECK(omp_target_memcpy_rect(b, a, 1, 1, volume, offsets, offsets, dims, dims, absent, host) == EINVAL);
  CHECK(omp_target_associate_ptr(a, b, 8, 0, host) == EINVAL && omp_target_disassociate_ptr(a, host) == EINVAL);
}

static void places(void) {
  const int n = omp_get_num_places();
  CHECK(omp_get_place_num_procs(-1) == 0 && omp_get_place_num_procs(n) == 0);
  int ids[1] = {-7};
  omp_get_place_proc_ids(-1, ids);
  omp_get_place_proc_ids(n, ids);
  CHECK(ids[0] == -7);
  if (n > 0) {
    omp_get_place_proc_ids(0, NULL); /* ignored */
    omp_get_place_proc_ids(0, ids);
    CHECK(ids[0] >= 0);
  }
}

static void allocators(void) {
  const omp_alloctrait_t defaults[] = {{omp_atk_sync_hint, omp_atv_default}, {omp_atk_alignment, omp_atv_default},
                                       {omp_atk_access, omp_atv_default},    {omp_atk_pool_size, omp_atv_default},
                                       {omp_atk_fallback, omp_atv_default},  {omp_atk_pinned, omp_atv_default},
                                       {omp_atk_partition, omp_atv_default}};
  omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 7, defaults);
  CHECK(a != omp_null_allocator);
  char* p = omp_alloc(100, a);
  CHECK(p != NULL);
  p[99] = 1;
  omp_free(p, a);
  omp_destroy_allocator(a);
  const omp_alloctrait_t valid[] = {{omp_atk_sync_hint, omp_atv_private},
                                    {omp_atk_access, omp_atv_cgroup},
                                    {omp_atk_partition, omp_atv_interleaved},
                                    {omp_atk_pinned, omp_atv_false}};
  a = omp_init_allocator(omp_large_cap_mem_space, 4, valid);
  CHECK(a != omp_null_allocator);
  omp_destroy_allocator(a);
  const omp_alloctrait_t bad[][1] = {{{omp_atk_partition, 999}}, {{(omp_alloctrait_key_t)999, 1}}};
  for (int i = 0; i < 2; ++i) CHECK(omp_init_allocator(omp_default_mem_space, 1, bad[i]) == omp_null_allocator);
  CHECK(omp_init_allocator(omp_default_mem_space, -1, valid) == omp_null_allocator);
  CHECK(omp_init_allocator(omp_default_mem_space, 1, NULL) == omp_null_allocator);
  CHECK(omp_init_allocator((omp_memspace_handle_t)-1, 0, NULL) == omp_null_allocator);
  omp_destroy_allocator(omp_null_allocator);    /* ignored */
  omp_destroy_allocator(omp_default_mem_alloc); /* predefined: never destroyed */
  p = omp_alloc(8, omp_default_mem_alloc);
  CHECK(p != NULL);

  /* sizes no system can give: NULL, through every fallback, and omp_realloc leaves p */
  const size_t huge = SIZE_MAX - 64;
  CHECK(omp_alloc(huge, omp_default_mem_alloc) == NULL);
  CHECK(omp_alloc(huge, omp_large_cap_mem_alloc) == NULL);
  const omp_alloctrait_t to_default[] = {{omp_atk_fallback, omp_atv_default_mem_fb}};
  a = omp_init_allocator(omp_default_mem_space, 1, to_default);
  CHECK(omp_alloc(huge, a) == NULL);
  omp_destroy_allocator(a);
  p[7] = 5;
  CHECK(omp_realloc(p, huge, omp_null_allocator, omp_null_allocator) == NULL && p[7] == 5);
  p = omp_realloc(p, 4096, omp_null_allocator, omp_null_allocator); /* the block's own allocator */
  CHECK(p != NULL && p[7] == 5);
  omp_free(p, omp_null_allocator);

  /* the allocate clause's entry points: size 0 is no block, a NULL block no free */
  CHECK(GOMP_alloc(16, 0, (uintptr_t)omp_default_mem_alloc) == NULL);
  GOMP_free(NULL, (uintptr_t)omp_default_mem_alloc);
  p = GOMP_alloc(64, 10, (uintptr_t)omp_default_mem_alloc);
  CHECK(p != NULL && (uintptr_t)p % 64 == 0);
  GOMP_free(p, (uintptr_t)omp_default_mem_alloc);

  /* pinned memory in a pool: a request larger than the pool is refused (null_fb); one
     aligned past a page, when the system lets this process lock memory, is aligned */
  const omp_alloctrait_t pinned[] = {
      {omp_atk_pinned, omp_atv_true}, {omp_atk_pool_size, 16384}, {omp_atk_fallback, omp_atv_null_fb}};
  a = omp_init_allocator(omp_default_mem_space, 3, pinned);
  CHECK(a != omp_null_allocator);
  CHECK(omp_alloc(32768, a) == NULL);
  p = omp_aligned_alloc(8192, 100, a);
  CHECK(p == NULL || (uintptr_t)p % 8192 == 0);
  omp_free(p, a);
  omp_destroy_allocator(a);
}

static void lock_held_elsewhere(void) {
  omp_lock_t l;
  omp_nest_lock_t nl;
  omp_init_lock(&l);
  omp_init_nest_lock(&nl);
  int refused = -1, nest_refused = -1;
#pragma omp parallel num_threads(2)
  {
    if (omp_get_num_threads() == 2) {
      if (omp_get_thread_num() == 0) {
        omp_set_lock(&l);
        omp_set_nest_lock(&nl);
      }
#pragma omp barrier
      if (omp_get_thread_num() == 1) {
        refused = omp_test_lock(&l);
        nest_refused = omp_test_nest_lock(&nl);
      }
#pragma omp barrier
      if (omp_get_thread_num() == 0) {
        omp_unset_nest_lock(&nl);
        omp_unset_lock(&l);
      }
    } else {
      refused = nest_refused = 0;
    }
  }
  CHECK(refused == 0 && nest_refused == 0);
  /* a free nest lock: testing takes it, and again (depth 2) */
  CHECK(omp_test_nest_lock(&nl) == 1 && omp_test_nest_lock(&nl) == 2);
  omp_unset_nest_lock(&nl);
  omp_unset_nest_lock(&nl);
  CHECK(omp_test_nest_lock(&nl) == 1);
  omp_unset_nest_lock(&nl);
  /* a waiter that outlasts its spinning and parks: thread 1 sets the lock that thread 0 holds
     for 50 ms, and has it only after thread 0 let go */
  int order[2] = {-1, -1}, done = 0;
#pragma omp parallel num_threads(2)
  if (omp_get_num_threads() == 2) {
    if (omp_get_thread_num() == 0) omp_set_lock(&l);
#pragma omp barrier
    if (omp_get_thread_num() == 0) {
      const struct timespec nap = {0, 50 * 1000 * 1000};
      nanosleep(&nap, NULL);
      order[done++] = 0;
      omp_unset_lock(&l);
    } else {
      omp_set_lock(&l);
      order[done++] = 1;
      omp_unset_lock(&l);
    }
  } else {
    order[0] = 0, order[1] = 1, done = 2;
  }
  CHECK(done == 2 && order[0] == 0 && order[1] == 1);
  omp_destroy_nest_lock(&nl);
  omp_destroy_lock(&l);
}

int main(void) {
  icv_setters();
  teams_icvs();
  devices();
  places();
  allocators();
  lock_held_elsewhere();
  puts("api_edges: ok");
  return 0;
}

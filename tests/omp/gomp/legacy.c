/* legacy: the gcc < 4.9 entry points, called directly as old binaries do:
   GOMP_parallel_start + fn + GOMP_parallel_end, GOMP_parallel_loop_*_start,
   GOMP_parallel_sections_start, and the GOMP_loop_*_start/next/end protocol. */
#include <omp.h>
#include <stdbool.h>
#include <string.h>

#include "check.h"

void GOMP_parallel_start(void (*fn)(void*), void* data, unsigned num_threads);
void GOMP_parallel_end(void);
void GOMP_parallel_loop_dynamic_start(void (*fn)(void*), void* data, unsigned n, long start, long end, long incr,
                                      long chunk);
void GOMP_parallel_loop_static_start(void (*fn)(void*), void* data, unsigned n, long start, long end, long incr,
                                     long chunk);
void GOMP_parallel_loop_runtime_start(void (*fn)(void*), void* data, unsigned n, long start, long end, long incr);
void GOMP_parallel_sections_start(void (*fn)(void*), void* data, unsigned n, unsigned count);
bool GOMP_loop_dynamic_next(long* istart, long* iend);
bool GOMP_loop_static_next(long* istart, long* iend);
bool GOMP_loop_runtime_next(long* istart, long* iend);
bool GOMP_loop_guided_start(long start, long end, long incr, long chunk, long* istart, long* iend);
bool GOMP_loop_guided_next(long* istart, long* iend);
void GOMP_loop_end(void);
void GOMP_loop_end_nowait(void);
unsigned GOMP_sections_next(void);
void GOMP_sections_end_nowait(void);
void GOMP_barrier(void);

static int hits[300];
static int threads_seen;

static void region(void* data) {
  (void)data;
  __atomic_fetch_add(&threads_seen, 1, __ATOMIC_RELAXED);
  GOMP_barrier();
}

static void loop_body(void* data) {
  bool (*next)(long*, long*) = (bool (*)(long*, long*))data;
  long s, e;
  while (next(&s, &e))
    for (long i = s; i < e; i += 3) __atomic_fetch_add(&hits[i], 1, __ATOMIC_RELAXED);
  GOMP_loop_end_nowait();
}

static void guided_body(void* data) {
  (void)data;
  long s, e;
  if (GOMP_loop_guided_start(299, -1, -1, 2, &s, &e)) {
    do {
      for (long i = s; i > e; --i) __atomic_fetch_add(&hits[i], 1, __ATOMIC_RELAXED);
    } while (GOMP_loop_guided_next(&s, &e));
  }
  GOMP_loop_end();
}

static void sections_body(void* data) {
  (void)data;
  for (unsigned s = GOMP_sections_next(); s != 0; s = GOMP_sections_next())
    __atomic_fetch_add(&hits[s], 1, __ATOMIC_RELAXED);
  GOMP_sections_end_nowait();
}

int main(void) {
  GOMP_parallel_start(region, NULL, 3);
  region(NULL);
  GOMP_parallel_end();
  CHECK(threads_seen == 3);

  bool (*nexts[3])(long*, long*) = {GOMP_loop_dynamic_next, GOMP_loop_static_next, GOMP_loop_runtime_next};
  for (int k = 0; k < 3; ++k) {
    memset(hits, 0, sizeof hits);
    if (k == 0) GOMP_parallel_loop_dynamic_start(loop_body, (void*)nexts[k], 4, 0, 300, 3, 5);
    if (k == 1) GOMP_parallel_loop_static_start(loop_body, (void*)nexts[k], 4, 0, 300, 3, 0);
    if (k == 2) GOMP_parallel_loop_runtime_start(loop_body, (void*)nexts[k], 4, 0, 300, 3);
    loop_body((void*)nexts[k]);
    GOMP_parallel_end();
    for (int i = 0; i < 300; ++i) CHECK(hits[i] == (i % 3 == 0));
  }

  memset(hits, 0, sizeof hits);
  GOMP_parallel_start(guided_body, NULL, 0);
  guided_body(NULL);
  GOMP_parallel_end();
  for (int i = 0; i < 300; ++i) CHECK(hits[i] == 1);

  memset(hits, 0, sizeof hits);
  GOMP_parallel_sections_start(sections_body, NULL, 2, 9);
  sections_body(NULL);
  GOMP_parallel_end();
  for (int i = 0; i < 300; ++i) CHECK(hits[i] == (i >= 1 && i <= 9));
  puts("legacy: ok");
  return 0;
}

/* kmpc_conventions.c: libomp's conventions for a libomp program ([P-OMP KMPC K15], [P-OMP
 * Display] in omp/DESIGN.md), built by clang against libomp and run under the launcher.
 *   default: run-sched-var starts as libomp's static (OMP_SCHEDULE unset).
 *   setenv:  OMP_SCHEDULE set by the program before its first region is the one it gets.
 *   format:  a leading 0 without '.' and unknown fields read as libomp reads them.
 *   display: OMP_DISPLAY_AFFINITY prints one line per team thread when a region's shape
 *            changes for it (the caller counts the lines: 4 + 12 + 4).
 * [P-OMP KMPC K17], the environment read at the first OpenMP call:
 *   hwsubset:  KMP_HW_SUBSET set by the program before its first call narrows OMP_PLACES=cores
 *              to one core of one CPU.
 *   settle:    with binding on, omp_set_num_threads leaves the initial thread unbound and
 *              the first place query binds it to place 0, as libomp's middle initialisation.
 *   badplaces: a bad OMP_PLACES falls back to cores, with binding on.
 *   blocktime: kmp_set_blocktime as the first OpenMP call outlives KMP_BLOCKTIME.
 * main itself makes no other OpenMP call (see there). */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Through volatile pointers: clang takes the place queries for functions without side
 * effects and may call them earlier or later than written (across sched_getaffinity). */
static int (*volatile num_places)(void) = omp_get_num_places;
static int (*volatile place_num_procs)(int) = omp_get_place_num_procs;
static int (*volatile place_num)(void) = omp_get_place_num;
static cpu_set_t initial_mask;

static __attribute__((noinline)) int run_mode(const char* mode) {
  if (strcmp(mode, "default") == 0) {
    omp_sched_t kind;
    int chunk = -1;
    omp_get_schedule(&kind, &chunk);
    CHECK(kind == omp_sched_static && chunk == 0);
#pragma omp parallel num_threads(2)
    {
      omp_sched_t k;
      int c = -1;
      omp_get_schedule(&k, &c);
      CHECK(k == omp_sched_static && c == 0);
    }
  } else if (strcmp(mode, "setenv") == 0) {
    setenv("OMP_SCHEDULE", "guided,7", 1);
    int bad = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad)
    {
      omp_sched_t k;
      int c = -1;
      omp_get_schedule(&k, &c);
      bad += !(k == omp_sched_guided && c == 7);
    }
    CHECK(bad == 0);
  } else if (strcmp(mode, "format") == 0) {
    char buf[64];
    int bad = 0;
#pragma omp parallel num_threads(2) private(buf) reduction(+ : bad)
    {
      char want[64];
      size_t n = omp_capture_affinity(buf, sizeof buf, "%018n|");
      snprintf(want, sizeof want, "%-18d|", omp_get_thread_num());
      bad += n != 19 || strcmp(buf, want) != 0;
      n = omp_capture_affinity(buf, sizeof buf, "%0.3n %{foobar}%X.");
      snprintf(want, sizeof want, "%03d undefinedundefined.", omp_get_thread_num());
      bad += n != strlen(want) || strcmp(buf, want) != 0;
    }
    CHECK(bad == 0);
  } else if (strcmp(mode, "hwsubset") == 0) {
    cpu_set_t before, after;
    CHECK(sched_getaffinity(0, sizeof before, &before) == 0);
    if (CPU_COUNT(&before) < 2) return 0; /* nothing to narrow */
    CHECK(num_places() == 1);
    CHECK(place_num_procs(0) == 1);
    CHECK(sched_getaffinity(0, sizeof after, &after) == 0);
    CHECK(CPU_COUNT(&after) == 1); /* the first place query binds, as libomp's does */
    int place = -2;
#pragma omp parallel num_threads(1)
    place = omp_get_place_num();
    CHECK(place == 0);
  } else if (strcmp(mode, "settle") == 0) {
    /* main called omp_set_num_threads only: still unbound, until a place query */
    cpu_set_t mask;
    CHECK(sched_getaffinity(0, sizeof mask, &mask) == 0);
    if (CPU_COUNT(&mask) < 2) return 0;
    CHECK(CPU_EQUAL(&mask, &initial_mask));
    CHECK(place_num() == 0);
    CHECK(sched_getaffinity(0, sizeof mask, &mask) == 0);
    CHECK(CPU_COUNT(&mask) == place_num_procs(0));
  } else if (strcmp(mode, "badplaces") == 0) {
    CHECK(num_places() >= 1);
    CHECK(omp_get_proc_bind() != omp_proc_bind_false);
  } else if (strcmp(mode, "blocktime") == 0) {
    CHECK(kmp_get_blocktime() == 0);
#pragma omp parallel num_threads(2)
    {}
    CHECK(kmp_get_blocktime() == 0);
  } else {
    int count = 0;
    omp_set_affinity_format("TESTER: tl:%L tn:%n nt:%N");
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(4) reduction(+ : count)
    {
#pragma omp parallel num_threads(3) reduction(+ : count)
      count++;
#pragma omp parallel num_threads(3) reduction(+ : count)
      count++;
    }
#pragma omp parallel num_threads(4) reduction(+ : count)
    count++;
    CHECK(count == 28);
  }
  return 0;
}

/* main makes no OpenMP call: clang calls __kmpc_global_thread_num on entry to a function
 * that has a region, the program's first OpenMP call here. */
int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "default";
  if (strcmp(mode, "hwsubset") == 0) setenv("KMP_HW_SUBSET", "1s,1c,1t", 1);
  if (strcmp(mode, "blocktime") == 0) kmp_set_blocktime(0); /* the first OpenMP call */
  CHECK(sched_getaffinity(0, sizeof initial_mask, &initial_mask) == 0);
  if (strcmp(mode, "settle") == 0) omp_set_num_threads(2);
  return run_mode(mode);
}

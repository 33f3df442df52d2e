/* kmpc_conventions.c: libomp's conventions for a libomp program ([P-OMP KMPC K15], [P-OMP
 * Display] in omp/DESIGN.md), built by clang against libomp and run under the launcher.
 *   default: run-sched-var starts as libomp's static (OMP_SCHEDULE unset).
 *   setenv:  OMP_SCHEDULE set by the program before its first region is the one it gets.
 *   format:  a leading 0 without '.' and unknown fields read as libomp reads them.
 *   display: OMP_DISPLAY_AFFINITY prints one line per team thread when a region's shape
 *            changes for it (the caller counts the lines: 4 + 12 + 4). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "default";
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

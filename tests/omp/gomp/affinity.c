/* affinity: the affinity-format-var (omp_set/get_affinity_format, OMP_AFFINITY_FORMAT), its
   expansion by omp_capture_affinity (every field type, short and long names, widths, right
   justification and zero padding, in and out of regions and host teams), omp_display_affinity
   and omp_display_env on stderr, and OMP_DISPLAY_AFFINITY's lines at the start of turns.
   argv[1]: "api" (default), "display" (run with OMP_DISPLAY_AFFINITY=true and
   OMP_AFFINITY_FORMAT=T%n/%N@%L), "env" (run with OMP_AFFINITY_FORMAT=hello), "default" (the
   format var holds the default format), "bad" (an invalid format: the program must stop with
   a message). */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

/* Runs fn with stderr sent to a temporary file and returns what it wrote (static buffer). */
static const char* stderr_of(void (*fn)(void)) {
  static char text[16384];
  fflush(stderr);
  int saved = dup(2);
  FILE* tmp = tmpfile();
  CHECK(saved >= 0 && tmp != NULL);
  dup2(fileno(tmp), 2);
  fn();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  rewind(tmp);
  size_t n = fread(text, 1, sizeof text - 1, tmp);
  text[n] = '\0';
  fclose(tmp);
  return text;
}

static void cpu_list(char* out) {
  cpu_set_t set;
  CHECK(sched_getaffinity(0, sizeof set, &set) == 0);
  out[0] = '\0';
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    int last = c;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    char run[32];
    if (last > c)
      sprintf(run, "%s%d-%d", out[0] ? "," : "", c, last);
    else
      sprintf(run, "%s%d", out[0] ? "," : "", c);
    strcat(out, run);
    c = last;
  }
}

static void display_two(void) {
  omp_display_affinity("first %n of %N");
  omp_display_affinity(NULL); /* the affinity-format-var */
}
static void display_env(void) { omp_display_env(0); }
static void display_env_verbose(void) { omp_display_env(1); }

/* regions with a body, which gcc -O2 would remove when empty */
static int turns;
static void regions(void) {
  for (int r = 0; r < 3; ++r) {
#pragma omp parallel num_threads(2)
#pragma omp atomic
    turns++;
  }
#pragma omp parallel num_threads(1)
#pragma omp atomic
  turns++;
#pragma omp parallel num_threads(2)
#pragma omp atomic
  turns++;
}

/* called in a host team (gcc refuses API calls strictly nested in teams) */
static void check_team_line(void) {
  char mine[64], want[64];
  omp_capture_affinity(mine, sizeof mine, "%t/%T");
  sprintf(want, "%d/%d", omp_get_team_num(), omp_get_num_teams());
  CHECK(strcmp(mine, want) == 0);
}

static int count_lines(const char* text, const char* line) {
  int n = 0;
  size_t len = strlen(line);
  for (const char* p = text; (p = strstr(p, line)) != NULL; p += len)
    if ((p == text || p[-1] == '\n') && p[len] == '\n') ++n;
  return n;
}

static void api(void) {
  char buf[8400], expect[8400];
  /* get: the length of the whole format, a truncated NUL-terminated copy */
  omp_set_affinity_format("T%n/%N");
  CHECK(omp_get_affinity_format(NULL, 0) == 6);
  CHECK(omp_get_affinity_format(buf, 3) == 6 && strcmp(buf, "T%") == 0);
  CHECK(omp_get_affinity_format(buf, sizeof buf) == 6 && strcmp(buf, "T%n/%N") == 0);
  /* capture: NULL or "" uses the format var; the full length whatever the buffer */
  CHECK(omp_capture_affinity(buf, sizeof buf, NULL) == 4 && strcmp(buf, "T0/1") == 0);
  CHECK(omp_capture_affinity(buf, sizeof buf, "") == 4 && strcmp(buf, "T0/1") == 0);
  CHECK(omp_capture_affinity(buf, 3, "%L-%n-%N") == 5 && strcmp(buf, "0-") == 0);
  CHECK(omp_capture_affinity(NULL, 0, "abc") == 3);
  /* widths: left by default, "." right, "0." zeros after the sign */
  CHECK(omp_capture_affinity(buf, sizeof buf, "[%3L][%.3L][%0.3L][%0.4a][%.4a][%3a]") == 32);
  CHECK(strcmp(buf, "[0  ][  0][000][-001][  -1][-1 ]") == 0);
  CHECK(omp_capture_affinity(buf, sizeof buf, "%%|%{nesting_level}|%{thread_num}|%{num_threads}|%{ancestor_tnum}") ==
        10);
  CHECK(strcmp(buf, "%|0|0|1|-1") == 0);
  omp_capture_affinity(buf, sizeof buf, "%P %i %{process_id} %{native_thread_id}");
  sprintf(expect, "%d %ld %d %ld", (int)getpid(), (long)syscall(SYS_gettid), (int)getpid(), (long)syscall(SYS_gettid));
  CHECK(strcmp(buf, expect) == 0);
  char host[256] = "";
  CHECK(gethostname(host, sizeof host) == 0);
  omp_capture_affinity(buf, sizeof buf, "%H|%{host}");
  sprintf(expect, "%s|%s", host, host);
  CHECK(strcmp(buf, expect) == 0);
  char cpus[4096];
  cpu_list(cpus);
  omp_capture_affinity(buf, sizeof buf, "%A|%{thread_affinity}");
  sprintf(expect, "%s|%s", cpus, cpus);
  CHECK(strcmp(buf, expect) == 0);
  CHECK(omp_capture_affinity(buf, sizeof buf, "%t %T %{team_num} %{num_teams}") == 7 && strcmp(buf, "0 1 0 1") == 0);

  /* in a region: each thread its own values */
  int bad = 0;
#pragma omp parallel num_threads(3) reduction(+ : bad)
  {
    char mine[128], want[128];
    omp_capture_affinity(mine, sizeof mine, "%n/%N@%L^%a");
    sprintf(want, "%d/%d@1^0", omp_get_thread_num(), omp_get_num_threads());
    bad += strcmp(mine, want) != 0;
#pragma omp parallel num_threads(2)
    {
      char inner[128], inner_want[128];
      omp_capture_affinity(inner, sizeof inner, "%n@%L^%a");
      sprintf(inner_want, "%d@%d^%d", omp_get_thread_num(), omp_get_level(),
              omp_get_ancestor_thread_num(omp_get_level() - 1));
      bad += strcmp(inner, inner_want) != 0;
    }
  }
  CHECK(bad == 0);
  /* in host teams: the team number and the league size */
#pragma omp teams num_teams(2)
  check_team_line();

  /* display: one line each on stderr */
  omp_set_affinity_format("var %L");
  CHECK(strcmp(stderr_of(display_two), "first 0 of 1\nvar 0\n") == 0);
  /* omp_display_env: libgomp's report, with the affinity settings */
  const char* env = stderr_of(display_env);
  CHECK(strstr(env, "OPENMP DISPLAY ENVIRONMENT BEGIN\n  _OPENMP = '201511'\n") != NULL);
  CHECK(strstr(env, "  OMP_DISPLAY_AFFINITY = 'FALSE'\n") != NULL);
  CHECK(strstr(env, "OPENMP DISPLAY ENVIRONMENT END\n") != NULL && strstr(env, "FORKJOIN_OMP_") == NULL);
  CHECK(strstr(stderr_of(display_env_verbose), "  FORKJOIN_OMP_RUNTIME = ") != NULL);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "api";
  if (strcmp(mode, "api") == 0) {
    api();
  } else if (strcmp(mode, "display") == 0) {
    /* OMP_DISPLAY_AFFINITY=true, OMP_AFFINITY_FORMAT=T%n/%N@%L: a line at the first region and
       whenever a thread's line changes. Thread 0 is the initial thread in every region. */
    const char* out = stderr_of(regions);
    CHECK(turns == 9);
    CHECK(count_lines(out, "T0/2@1") == 2);
    CHECK(count_lines(out, "T0/1@1") == 1);
    CHECK(count_lines(out, "T1/2@1") >= 1);
    int lines = 0;
    for (const char* p = out; *p != '\0'; ++p) lines += *p == '\n';
    CHECK(lines == 3 + count_lines(out, "T1/2@1"));
    CHECK(strstr(stderr_of(display_env), "  OMP_DISPLAY_AFFINITY = 'TRUE'\n  OMP_AFFINITY_FORMAT = 'T%n/%N@%L'\n") !=
          NULL);
  } else if (strcmp(mode, "env") == 0) {
    char buf[8];
    CHECK(omp_get_affinity_format(buf, sizeof buf) == 5 && strcmp(buf, "hello") == 0);
  } else if (strcmp(mode, "default") == 0) {
    char buf[64];
    CHECK(omp_get_affinity_format(buf, sizeof buf) == 30 && strcmp(buf, "level %L thread %i affinity %A") == 0);
  } else if (strcmp(mode, "bad") == 0) {
    omp_display_affinity("%Q");
    return 0; /* not reached */
  }
  printf("affinity: ok\n");
  return 0;
}

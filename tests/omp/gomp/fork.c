/* fork: a process that ran parallel regions forks; the child (which has only the forking
   thread) runs parallel regions of its own with new team threads, and so does the parent. */
#include <omp.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static int team_size(int n) {
  int count = 0;
#pragma omp parallel num_threads(n)
  {
#pragma omp atomic
    count++;
#pragma omp barrier
  }
  return count;
}

int main(void) {
  CHECK(team_size(4) == 4);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    int ok = team_size(4) == 4 && team_size(3) == 3;
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK(team_size(4) == 4);
  puts("fork: ok");
  return 0;
}

// hot_team: consecutive regions reuse their primary's last team ([P-OMP Hot]). Many regions in a
// row with changing num_threads and nesting run every thread, single, barrier and task exactly
// once; team thread k stays the same OS thread across regions of any size; a region started from
// a forkjoin parallel_for body while hot teams exist completes without multiplying threads; a
// forked child's regions do not wait for its parent's team threads; and once the regions end the
// team threads burn no CPU. Built with g++ -fopenmp and linked against libforkjoin-omp alone.
#include <dirent.h>
#include <omp.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "check.h"
#include "forkjoin/forkjoin.hpp"

namespace {

// utime + stime (clock ticks) of the main thread and the runtime's threads ("forkjoin*"), and
// how many such threads exist.
struct cpu_sample {
  long ticks = 0;
  int threads = 0;
};
cpu_sample sample_runtime_threads() {
  cpu_sample s;
  DIR* d = opendir("/proc/self/task");
  CHECK(d != nullptr);
  const std::string main_tid = std::to_string(getpid());
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream in(std::string("/proc/self/task/") + e->d_name + "/stat");
    std::string stat;
    std::getline(in, stat);
    const std::size_t open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    const std::string comm = stat.substr(open + 1, close - open - 1);
    if (main_tid != e->d_name && comm.rfind("forkjoin", 0) != 0) continue;
    // after ") ": state (field 3) ... utime (14), stime (15)
    std::istringstream rest(stat.substr(close + 2));
    std::string field;
    long utime = 0, stime = 0;
    for (int f = 3; f <= 15 && rest >> field; ++f) {
      if (f == 14) utime = std::stol(field);
      if (f == 15) stime = std::stol(field);
    }
    if (main_tid != e->d_name) s.threads++;
    s.ticks += main_tid == e->d_name ? 0 : utime + stime;
  }
  closedir(d);
  return s;
}

int tp_id = -1;
#pragma omp threadprivate(tp_id)

// One region of n threads (num_threads clause) that checks each thread id once, a barrier, a
// plain single (nowait, several in a row), a copyprivate single and tasks; nested inner
// regions of 2 threads when `nest`.
void checked_region(int n, bool nest, const std::vector<pthread_t>& who) {
  std::vector<std::atomic<int>> seen(static_cast<std::size_t>(n));
  std::atomic<int> singles{0}, tasks{0}, inner{0}, bad{0}, moved{0};
  constexpr int k_singles = 8;
#pragma omp parallel num_threads(n)
  {
    const int k = omp_get_thread_num();
    if (omp_get_num_threads() != n) bad++;
    seen[static_cast<std::size_t>(k)]++;
    if (static_cast<std::size_t>(k) < who.size() && !pthread_equal(who[static_cast<std::size_t>(k)], pthread_self()))
      moved++;
    tp_id = k;
#pragma omp barrier
    for (int s = 0; s < k_singles; ++s) {
#pragma omp single nowait
      singles++;
    }
    int value = -1;
#pragma omp single copyprivate(value)
    value = 42;
    if (value != 42) bad++;
#pragma omp single
    for (int t = 0; t < 4 * n; ++t) {
#pragma omp task
      tasks++;
    }
    if (nest) {
#pragma omp parallel num_threads(2)
      {
        inner++;
#pragma omp barrier
      }
    }
    if (tp_id != k) bad++;
  }
  CHECK(bad.load() == 0);
  CHECK(moved.load() == 0);  // team thread k is the thread it was in the first region
  for (auto& s : seen) CHECK(s.load() == 1);
  CHECK(singles.load() == k_singles);
  CHECK(tasks.load() == 4 * n);
  if (nest) CHECK(inner.load() == 2 * n);
}

}  // namespace

int main() {
  const int P = omp_get_max_threads();  // the pool's size
  omp_set_max_active_levels(2);

  // A: team thread k is the same OS thread in every region, whatever its size (up to the pool)
  std::vector<pthread_t> who(static_cast<std::size_t>(P));
#pragma omp parallel
  who[static_cast<std::size_t>(omp_get_thread_num())] = pthread_self();

  // B: consecutive regions with changing sizes (within and beyond the pool) and nesting
  const int sizes[] = {P, P, 1, 2, P + 1, 2, P, 3, 3, 1, P};
  for (int rep = 0; rep < 30; ++rep)
    for (int n : sizes) {
      // identity holds where every worker is back in its idle loop when the region starts; a
      // nested rep's inner regions keep workers busy for a while (one that is late past the
      // grace period is replaced by a spare, which only a loaded machine makes happen), and
      // so may the rep after it
      const bool nest = rep % 3 == 1;
      const bool after_nest = rep % 3 == 2;
      checked_region(n, nest, n <= P && !nest && !after_nest ? who : std::vector<pthread_t>{});
    }

  // C: regions started from a forkjoin parallel_for body while the main thread's hot teams
  // exist; the body's teams come from idle workers only
  {
    std::atomic<long> sum{0};
    std::atomic<int> bad{0};
    forkjoin::parallel_for(0, 16 * P, [&](int i) {
      int team = 0;
      long s = 0;
#pragma omp parallel reduction(+ : s)
      {
        s += i;
#pragma omp single
        team = omp_get_num_threads();
      }
      if (team < 1 || team > P || s != static_cast<long>(i) * team) bad++;
      sum += i;
    });
    CHECK(bad.load() == 0);
    CHECK(sum.load() == static_cast<long>(16 * P) * (16 * P - 1) / 2);
    checked_region(P, false, {});  // the main thread's hot team still serves
  }

  // D: a forked child's regions (only the forking thread exists there) right after the parent's
#if !defined(__SANITIZE_THREAD__)  // TSan refuses to start threads in a multi-threaded fork's child
  {
    checked_region(P, false, {});
    const pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
      checked_region(P, false, {});
      checked_region(2, false, {});
      _exit(0);
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
#endif

  // E: idle team threads burn no CPU once the spin is over (and spares retire)
  checked_region(P, false, {});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const cpu_sample before = sample_runtime_threads();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const cpu_sample after = sample_runtime_threads();
  std::printf("idle: %ld ticks over 300 ms in %d runtime threads\n", after.ticks - before.ticks, after.threads);
  CHECK(after.ticks - before.ticks <= 3);  // clock ticks (10 ms): a spinning thread would take ~30
  CHECK(after.threads == P - 1);           // the pool's workers; spares retired
  std::puts("hot_team: ok");
  return 0;
}

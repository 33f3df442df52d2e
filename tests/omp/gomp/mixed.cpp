// mixed: one pool for everything. forkjoin calls inside an OpenMP region and OpenMP regions
// inside forkjoin tasks share the default pool's workers; the process never runs more
// threads than the pool plus the extras a num_threads clause asked for and one spare per
// team thread whose turn waited past the grace period (counted in /proc/self/task while the
// work is busy); team thread k is pool worker k across consecutive regions (threadprivate
// persists); a region started inside a busy pool completes; spare threads retire. Built with
// g++ -fopenmp and linked against libforkjoin-omp alone, whose forkjoin runtime the
// program's forkjoin templates then share.
#include <dirent.h>
#include <omp.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "check.h"
#include "forkjoin/forkjoin.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

// The process's threads that run OpenMP or forkjoin work: the main thread, the pool's workers
// ("forkjoin-<i>") and spare team threads ("forkjoin-spare"); a sanitizer's own helper
// threads are left out.
int count_threads() {
  DIR* d = opendir("/proc/self/task");
  CHECK(d != nullptr);
  const std::string self_tid = std::to_string(getpid());
  int n = 0;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    if (self_tid == e->d_name) {
      ++n;
      continue;
    }
    std::ifstream comm(std::string("/proc/self/task/") + e->d_name + "/comm");
    std::string name;
    std::getline(comm, name);
    if (name.rfind("forkjoin", 0) == 0) ++n;
  }
  closedir(d);
  return n;
}

std::atomic<int> peak{0};
void sample() {
  const int n = count_threads();
  int p = peak.load(std::memory_order_relaxed);
  while (n > p && !peak.compare_exchange_weak(p, n, std::memory_order_relaxed)) {
  }
}

// The busy threads a section may reach: P plus, for each team thread but the primary, one
// spare, never N x N (2P - 1 < P * P from P = 2). A turn that its worker does not take within
// the grace period goes to a spare by design: under a sanitizer, or beside busy processes
// (section E's peak reached P + 1 in 1 run of 80 beside a loaded machine, before and after
// e004610).
int peak_bound(int p) { return 2 * p - 1; }

// Before a section measures its peak: spare threads an earlier section started (a turn
// that a busy worker could not take within the grace period) retire after 200 ms idle;
// wait for them (up to 2 s), so that the peak counts only what this section runs.
void reset_peak(int p) {
  const auto deadline = clock_type::now() + std::chrono::seconds(2);
  while (count_threads() > p && clock_type::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  peak = 0;
}

void spin_for(std::chrono::microseconds d) {
  const auto end = clock_type::now() + d;
  while (clock_type::now() < end) {
  }
}

// true when this thread is a worker of forkjoin's runtime as both the library and this
// program's inline templates see it (one runtime, not two copies)
bool on_worker() {
  const bool lib = forkjoin::this_worker_index() >= 0;
  const bool templates = forkjoin::detail::tls_worker != nullptr;
  CHECK(lib == templates);
  return lib;
}

int tp_value = -1;
#pragma omp threadprivate(tp_value)

long inner_sum(int n) {
  long s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int j = 0; j < n; ++j) s += j;
  return s;
}

}  // namespace

int main() {
  const int P = omp_get_max_threads();  // nthreads-var sizes the default pool
  CHECK(count_threads() == 1);

  // A: an OpenMP region whose body calls forkjoin::parallel_for runs on the pool's workers
  {
    reset_peak(P);
    long total = 0;
    int bad = 0;
#pragma omp parallel reduction(+ : total, bad)
    {
      if (omp_get_num_threads() != P) bad++;
      const int k = omp_get_thread_num();
      if (k > 0 && (!on_worker() || forkjoin::this_worker_index() != k)) bad++;  // thread k: worker k
      std::atomic<long> acc{0};
      forkjoin::parallel_for(0, 16 * P, [&](int i) {
        spin_for(std::chrono::microseconds(100));
        sample();
        acc += i;
      });
      total += acc.load();
    }
    CHECK(bad == 0);
    CHECK(total == static_cast<long>(P) * (16 * P) * (16 * P - 1) / 2);
    CHECK(forkjoin::default_pool().num_threads() == static_cast<std::size_t>(P));
    CHECK(peak.load() <= peak_bound(P));
  }

  // C: consecutive regions: thread k is the same OS thread (worker k), threadprivate persists
  {
    std::vector<pthread_t> who(static_cast<std::size_t>(P));
#pragma omp parallel
    {
      who[static_cast<std::size_t>(omp_get_thread_num())] = pthread_self();
      tp_value = 100 + omp_get_thread_num();
    }
    for (int rep = 0; rep < 20; ++rep) {
      int bad = 0;
#pragma omp parallel reduction(+ : bad)
      {
        const int k = omp_get_thread_num();
        if (!pthread_equal(who[static_cast<std::size_t>(k)], pthread_self())) bad++;
        if (tp_value != 100 + k) bad++;
        if (k > 0 && forkjoin::this_worker_index() != k) bad++;
      }
      CHECK(bad == 0);
    }
  }

  // B: a parallel_for whose body calls an OpenMP-parallel function: teams come from idle
  // workers only, never P x P threads
  {
    reset_peak(P);
    std::vector<long> results(static_cast<std::size_t>(8 * P));
    forkjoin::parallel_for(0, 8 * P, [&](int i) {
      long s = 0;
#pragma omp parallel reduction(+ : s)
      {
#pragma omp for
        for (int j = 0; j < 1000; ++j) s += j;
        spin_for(std::chrono::microseconds(200));
        sample();
      }
      results[static_cast<std::size_t>(i)] = s;
    });
    for (long r : results) CHECK(r == 499500);
    CHECK(peak.load() <= peak_bound(P));
  }

  // E: mixed nesting: region -> parallel_for -> (inactive) region -> loop, results checked
  {
    reset_peak(P);
    long total = 0;
#pragma omp parallel reduction(+ : total)
    {
      std::atomic<long> acc{0};
      forkjoin::parallel_for(0, 50, [&](int) {
        acc += inner_sum(100);
        sample();
      });
      total += acc.load();
    }
    CHECK(total == static_cast<long>(P) * 50 * 4950);
    CHECK(peak.load() <= peak_bound(P));
  }

  // D: a region started inside a busy pool (every other worker busy) completes: without
  // num_threads it is a team of one; num_threads(P) adds P - 1 spare threads
  if (P > 1) {
    std::atomic<int> started{0};
    std::atomic<bool> release{false};
    int solo = 0, full = 0, ids = 0;
    forkjoin::default_pool().run([&] {
      forkjoin::task_group g;
      for (int i = 1; i < P; ++i)
        g.run([&] {
          started.fetch_add(1);
          while (!release.load()) spin_for(std::chrono::microseconds(50));
        });
      const auto deadline = clock_type::now() + std::chrono::seconds(20);
      while (started.load() < P - 1) {
        CHECK(clock_type::now() < deadline);
        std::this_thread::yield();
      }
#pragma omp parallel
      solo = omp_get_num_threads();
      peak = 0;
#pragma omp parallel num_threads(P) reduction(+ : ids)
      {
#pragma omp single
        full = omp_get_num_threads();
        ids += omp_get_thread_num();
#pragma omp barrier
        sample();
      }
      release = true;
      g.wait();
    });
    CHECK(solo == 1);
    CHECK(full == P);
    CHECK(ids == P * (P - 1) / 2);
    CHECK(peak.load() <= P + (P - 1));
  }

  // num_threads(16) beyond the pool: spare threads, which retire once idle
  {
    int n = 0;
#pragma omp parallel num_threads(16) reduction(+ : n)
    {
      n += 1;
#pragma omp barrier
    }
    CHECK(n == 16);
    const auto deadline = clock_type::now() + std::chrono::seconds(20);
    while (count_threads() > P) {
      CHECK(clock_type::now() < deadline);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  std::puts("mixed: ok");
  return 0;
}

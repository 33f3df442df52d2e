// bench_arenas.cpp: task_arena-heavy oneTBB code as real programs write it, linked against
// oneTBB (-ltbb) so that the same binary runs natively and, through the replace folder, on
// libforkjoin-tbb (run_arenas.py runs both, interleaved). Workloads:
//   rcpp_for     a task_arena per call, as RcppParallel's parallelFor: arena(n), a task_group
//                run inside execute, then waited inside execute; 1,000 calls of 20,000 doubles
//   rcpp_reduce  the same with parallel_reduce (RcppParallel's parallelReduce)
//   big_arena    one task_arena(4 x n) kept (OpenCV after setNumThreads(8) on 2 CPUs) and
//                1,000 small parallel_for calls through its execute
//   no_arena     the same 1,000 loops in the implicit arena, no task_arena: what the arena
//                workloads cost beyond their loops
//   two_callers  the same 1,000 loops from two threads of the program at once, 500 each, in
//                the implicit arena (a server's request threads): each caller's loops run
//                beside the other's
// Each call's answer is checked; a wrong one exits 1. Prints one JSON line per workload:
// seconds and the most threads the process held (/proc/self/task).
#include <dirent.h>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int k_calls = 1000;
constexpr std::size_t k_size = 20000;

std::size_t threads_now() {
  std::size_t n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') ++n;
    closedir(d);
  }
  return n;
}

// The most threads the process held at the sample points (every 100 calls and at the end).
struct sampler {
  std::size_t most = 0;
  void sample() {
    const std::size_t n = threads_now();
    if (n > most) most = n;
  }
};

double fill(std::size_t i) { return std::sqrt(static_cast<double>(i)); }

bool rcpp_for(int threads, sampler& s) {
  std::vector<double> out(k_size);
  for (int call = 0; call < k_calls; ++call) {
    tbb::task_arena arena(threads);
    tbb::task_group group;
    arena.execute([&] {
      group.run([&] {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, k_size), [&](const tbb::blocked_range<std::size_t>& r) {
          for (std::size_t i = r.begin(); i != r.end(); ++i) out[i] = fill(i) + call;
        });
      });
    });
    arena.execute([&] { group.wait(); });
    if (out[k_size - 1] != fill(k_size - 1) + call || out[0] != call) return false;
    if (call % 100 == 0) s.sample();
  }
  return true;
}

bool rcpp_reduce(int threads, sampler& s) {
  std::vector<double> in(k_size);
  for (std::size_t i = 0; i < k_size; ++i) in[i] = static_cast<double>(i % 7);
  double expected = 0;
  for (double v : in) expected += v;
  for (int call = 0; call < k_calls; ++call) {
    tbb::task_arena arena(threads);
    tbb::task_group group;
    double sum = 0;
    arena.execute([&] {
      group.run([&] {
        sum = tbb::parallel_reduce(
            tbb::blocked_range<std::size_t>(0, k_size), 0.0,
            [&](const tbb::blocked_range<std::size_t>& r, double acc) {
              for (std::size_t i = r.begin(); i != r.end(); ++i) acc += in[i];
              return acc;
            },
            [](double a, double b) { return a + b; });
      });
    });
    arena.execute([&] { group.wait(); });
    if (sum != expected) return false;
    if (call % 100 == 0) s.sample();
  }
  return true;
}

bool big_arena(int threads, sampler& s) {
  tbb::task_arena arena(4 * threads);
  std::vector<double> out(k_size);
  for (int call = 0; call < k_calls; ++call) {
    arena.execute([&] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, k_size), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) out[i] = fill(i) * call;
      });
    });
    if (out[k_size - 1] != fill(k_size - 1) * call) return false;
    if (call % 100 == 0) s.sample();
  }
  return true;
}

bool no_arena(int, sampler& s) {
  std::vector<double> out(k_size);
  for (int call = 0; call < k_calls; ++call) {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, k_size), [&](const tbb::blocked_range<std::size_t>& r) {
      for (std::size_t i = r.begin(); i != r.end(); ++i) out[i] = fill(i) * call;
    });
    if (out[k_size - 1] != fill(k_size - 1) * call) return false;
    if (call % 100 == 0) s.sample();
  }
  return true;
}

bool two_callers(int, sampler& s) {
  bool ok[2] = {true, true};
  auto caller = [&ok](int c) {
    std::vector<double> out(k_size);
    for (int call = c; call < k_calls; call += 2) {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, k_size), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) out[i] = fill(i) * call;
      });
      if (out[k_size - 1] != fill(k_size - 1) * call) ok[c] = false;
    }
  };
  std::thread other(caller, 1);
  caller(0);
  s.sample();
  other.join();
  return ok[0] && ok[1];
}

}  // namespace

int main(int argc, char** argv) {
  int threads = tbb::info::default_concurrency();
  const char* only = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i];
  }
  struct workload {
    const char* name;
    bool (*run)(int, sampler&);
  };
  const workload workloads[] = {{"rcpp_for", rcpp_for},
                                {"rcpp_reduce", rcpp_reduce},
                                {"big_arena", big_arena},
                                {"no_arena", no_arena},
                                {"two_callers", two_callers}};
  for (const workload& w : workloads) {
    if (only != nullptr && std::strcmp(only, w.name) != 0) continue;
    sampler s;
    const auto t0 = std::chrono::steady_clock::now();
    const bool ok = w.run(threads, s);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    s.sample();
    if (!ok) {
      std::fprintf(stderr, "bench_arenas: %s computed a wrong answer\n", w.name);
      return 1;
    }
    std::printf("{\"workload\": \"%s\", \"threads\": %d, \"seconds\": %.6f, \"most_threads\": %zu}\n", w.name, threads,
                seconds, s.most);
  }
  return 0;
}

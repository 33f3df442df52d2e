// bench_ablation.cpp: why work stealing. The same fork-join workloads (fib and nqueens,
// both spawning through join) on (a) a pool with one mutex-protected global queue, (b)
// per-worker deques behind a mutex each, (c) forkjoin's lock-free split deques, and (d)
// forkjoin with pool_options::steal_half. Reports tasks per second, the steal conflict
// rate (steal attempts that met a held lock or lost a race / all steal attempts) and the
// CPU the process burns in the 200 ms after the run, and steal attempts per run (the
// traffic batch stealing claims to cut). Answers are checked.
//
//   bench_ablation [--threads=1,2,...] [Google Benchmark flags]
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "forkjoin/forkjoin.hpp"
#include "locked_pools.hpp"

namespace ab = forkjoin::ablation;

namespace {

constexpr int k_fib_n = 30;
constexpr int k_queens_n = 11;
bool g_failed = false;

// Each runtime offers run(f) and join(f, g) -> pair.
struct forkjoin_runtime {
  explicit forkjoin_runtime(int threads, bool steal_half) {
    forkjoin::pool_options o;
    o.num_threads = static_cast<std::size_t>(threads);
    o.steal_half = steal_half;
    pool = std::make_unique<forkjoin::pool>(o);
  }
  template <class F>
  auto run(F f) {
    return pool->run(f);
  }
  template <class F, class G>
  auto join(F&& f, G&& g) {
    return forkjoin::join(f, g);
  }
  double attempts() const { return static_cast<double>(pool->statistics().steal_attempts); }
  double conflict_rate() const {
    const auto s = pool->statistics();
    return s.steal_attempts == 0 ? 0.0 : static_cast<double>(s.lost_races) / static_cast<double>(s.steal_attempts);
  }
  std::unique_ptr<forkjoin::pool> pool;
};

template <ab::layout L>
struct locked_runtime {
  explicit locked_runtime(int threads) : pool(std::make_unique<ab::locked_pool<L>>(threads)) {}
  template <class F>
  auto run(F f) {
    return pool->run(f);
  }
  template <class F, class G>
  auto join(F&& f, G&& g) {
    return pool->join(f, g);
  }
  double attempts() const { return static_cast<double>(pool->stats.attempts.load()); }
  double conflict_rate() const {
    const auto a = pool->stats.attempts.load();
    return a == 0 ? 0.0 : static_cast<double>(pool->stats.conflicts.load()) / static_cast<double>(a);
  }
  std::unique_ptr<ab::locked_pool<L>> pool;
};

template <class R>
long fib(R& rt, int n) {
  if (n < 2) return n;
  auto [a, b] = rt.join([&] { return fib(rt, n - 1); }, [&] { return fib(rt, n - 2); });
  return a + b;
}
long fib_joins(int n) { return n < 2 ? 0 : 1 + fib_joins(n - 1) + fib_joins(n - 2); }

using board = std::array<signed char, 16>;
bool safe(const board& b, int row, int c) {
  for (int r = 0; r < row; ++r) {
    const int d = b[static_cast<std::size_t>(r)] - c;
    if (d == 0 || d == row - r || d == r - row) return false;
  }
  return true;
}
// Columns [c0, c1) of `row`, split in halves by join: spawning is binary for every runtime.
template <class R>
long queens(R& rt, const board& b, int row, int n, int c0, int c1) {
  if (row == n) return 1;
  if (c1 - c0 == 1) {
    if (!safe(b, row, c0)) return 0;
    board next = b;
    next[static_cast<std::size_t>(row)] = static_cast<signed char>(c0);
    return queens(rt, next, row + 1, n, 0, n);
  }
  const int mid = c0 + (c1 - c0) / 2;
  auto [x, y] = rt.join([&] { return queens(rt, b, row, n, c0, mid); }, [&] { return queens(rt, b, row, n, mid, c1); });
  return x + y;
}
long queens_joins(const board& b, int row, int n, int c0, int c1) {
  if (row == n) return 0;
  if (c1 - c0 == 1) {
    if (!safe(b, row, c0)) return 0;
    board next = b;
    next[static_cast<std::size_t>(row)] = static_cast<signed char>(c0);
    return queens_joins(next, row + 1, n, 0, n);
  }
  const int mid = c0 + (c1 - c0) / 2;
  return 1 + queens_joins(b, row, n, c0, mid) + queens_joins(b, row, n, mid, c1);
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

template <class R>
void run_workload(benchmark::State& st, R& rt, bool is_fib) {
  const long expect = is_fib ? 832040 : 2680;
  bool wrong = false;
  for (auto _ : st) {
    const long result = is_fib ? rt.run([&] { return fib(rt, k_fib_n); })
                               : rt.run([&] { return queens(rt, board{}, 0, k_queens_n, 0, k_queens_n); });
    wrong = wrong || result != expect;  // every iteration's answer, not just the last
  }
  if (wrong) {
    g_failed = true;
    st.SkipWithError("wrong answer");
    return;
  }
  const double joins =
      static_cast<double>(is_fib ? fib_joins(k_fib_n) : queens_joins(board{}, 0, k_queens_n, 0, k_queens_n));
  st.counters["tasks_per_s"] =
      benchmark::Counter(joins * static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
  st.counters["conflict_rate"] = rt.conflict_rate();
  st.counters["steal_attempts_per_run"] = rt.attempts() / static_cast<double>(st.iterations());
  const double c0 = cpu_seconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  st.counters["idle_cpu_ms_200ms"] = (cpu_seconds() - c0) * 1e3;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> threads;
  for (unsigned t = 1; t <= std::max(1u, std::thread::hardware_concurrency()); t *= 2)
    threads.push_back(static_cast<int>(t));
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--threads=", 10)) {
      threads.clear();
      for (const char* p = argv[i] + 10; *p != '\0';) {
        threads.push_back(std::atoi(p));
        while (*p != '\0' && *p != ',') ++p;
        if (*p == ',') ++p;
      }
    } else {
      rest.push_back(argv[i]);
    }
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  for (const bool is_fib : {true, false})
    for (int t : threads) {
      const std::string w = std::string(is_fib ? "fib30" : "nqueens11") + "/";
      const std::string suffix = "/threads:" + std::to_string(t);
      auto reg = [&](const char* variant, auto make) {
        benchmark::RegisterBenchmark((w + variant + suffix).c_str(),
                                     [make, is_fib](benchmark::State& st) {
                                       auto rt = make();
                                       std::this_thread::sleep_for(std::chrono::milliseconds(50));
                                       run_workload(st, *rt, is_fib);
                                     })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime()
            ->Iterations(3);
      };
      reg("a_global_mutex_queue", [t] { return std::make_unique<locked_runtime<ab::layout::global>>(t); });
      reg("b_per_worker_mutex_deques", [t] { return std::make_unique<locked_runtime<ab::layout::per_worker>>(t); });
      reg("c_forkjoin", [t] { return std::make_unique<forkjoin_runtime>(t, false); });
      reg("d_forkjoin_steal_half", [t] { return std::make_unique<forkjoin_runtime>(t, true); });
    }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return g_failed ? 1 : 0;
}

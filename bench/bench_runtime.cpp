// bench_runtime.cpp: the runtime's own figures, each measured against its baseline in the
// same run. Pairs alternate their order every iteration (A B, B A, ...) and each timed call
// starts after a settle pause, so neither side pays for the other's spinning workers and
// machine drift hits both alike:
//   fib(32) by join at 1 worker vs the plain serial function (work overhead T1/Ts);
//   fib(32) by join vs tbb::parallel_invoke, both with every core;
//   wake latency of a two-thread rendezvous after 20 ms idle, forkjoin vs oneTBB;
//   CPU burned in the 500 ms after a burst, forkjoin vs oneTBB;
//   park latency: time from the end of a burst until every background worker is parked.
// Every answer is checked: a wrong one marks the benchmark with SkipWithError and makes
// the process exit non-zero (so the bench ctest fails).
#include <benchmark/benchmark.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/task_arena.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "forkjoin/forkjoin.hpp"

namespace {

using clock_type = std::chrono::steady_clock;
constexpr int k_fib_n = 32;
constexpr std::uint64_t k_fib_check = 2178309;
bool g_failed = false;

void fail(benchmark::State& state, const char* what) {
  g_failed = true;
  state.SkipWithError(what);
}

// The serial baseline, written as a user writes it and compiled with the same flags as
// everything else: the compiler may inline and unroll its recursion as it likes.
std::uint64_t fib_serial(int n) {
  return n < 2 ? static_cast<std::uint64_t>(n) : fib_serial(n - 1) + fib_serial(n - 2);
}
// n is laundered through DoNotOptimize so the call cannot be folded to a constant, and the
// result is kept alive so the call cannot be dropped.
std::uint64_t fib_serial_opaque(int n) {
  benchmark::DoNotOptimize(n);
  std::uint64_t r = fib_serial(n);
  benchmark::DoNotOptimize(r);
  return r;
}
// forkjoin forks g = fib(n-2) and runs fib(n-1) inline; the oneTBB version below forks the
// same branch (parallel_invoke spawns its first callable and runs its last one itself).
std::uint64_t fib_forkjoin(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  auto [a, b] = forkjoin::join([n] { return fib_forkjoin(n - 1); }, [n] { return fib_forkjoin(n - 2); });
  return a + b;
}
std::uint64_t fib_tbb(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  std::uint64_t a = 0, b = 0;
  tbb::parallel_invoke([&] { b = fib_tbb(n - 2); }, [&] { a = fib_tbb(n - 1); });
  return a + b;
}

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}
double process_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
std::size_t cores() { return std::max(1u, std::thread::hardware_concurrency()); }

// Outside the timed region: lets workers that the previous call left spinning go to sleep.
// After SkipWithError the timer must not be touched: callers leave the loop instead.
void settle(benchmark::State& state) {
  if (state.error_occurred()) return;
  state.PauseTiming();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  state.ResumeTiming();
}

double thread_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct totals {
  double wall = 0, cpu = 0;  // cpu: the calling thread's CPU time
};

// A timed call of f (which returns whether its answer was right); adds its wall time and
// the calling thread's CPU time to *total.
template <class F>
void timed(benchmark::State& state, F& f, totals* total, const char* wrong) {
  settle(state);
  const double c0 = thread_cpu_seconds();
  const auto t0 = clock_type::now();
  const bool ok = f();
  total->wall += seconds_since(t0);
  total->cpu += thread_cpu_seconds() - c0;
  if (!ok) fail(state, wrong);
}

// Interleaved pair: A and B once each per iteration, the order alternating; reports both
// mean wall times and B/A. With cpu_ratio, also B/A in the calling thread's CPU time, which
// is what a 1-thread pair spends, and which other processes on a loaded machine disturb far
// less than wall time (they preempt the thread but do not add to its CPU time).
template <class A, class B>
void interleaved(benchmark::State& state, A a, B b, const char* a_name, const char* b_name, bool cpu_ratio = false) {
  totals ta, tb;
  bool a_first = true;
  for (auto _ : state) {
    if (a_first) {
      timed(state, a, &ta, "wrong answer (A)");
      timed(state, b, &tb, "wrong answer (B)");
    } else {
      timed(state, b, &tb, "wrong answer (B)");
      timed(state, a, &ta, "wrong answer (A)");
    }
    a_first = !a_first;
    if (state.error_occurred()) return;
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters[std::string(a_name) + "_ms"] = ta.wall / n * 1e3;
  state.counters[std::string(b_name) + "_ms"] = tb.wall / n * 1e3;
  state.counters[std::string(b_name) + "_over_" + a_name] = tb.wall / ta.wall;
  if (cpu_ratio) {
    state.counters[std::string(a_name) + "_cpu_ms"] = ta.cpu / n * 1e3;
    state.counters[std::string(b_name) + "_cpu_ms"] = tb.cpu / n * 1e3;
    state.counters[std::string(b_name) + "_over_" + a_name + "_cpu"] = tb.cpu / ta.cpu;
  }
}

// pool(1) has no background thread: the caller runs all of fib, so its CPU time is T1.
void BM_FibWorkOverhead_T1_over_Ts(benchmark::State& state) {
  forkjoin::pool one(1);
  interleaved(
      state, [] { return fib_serial_opaque(k_fib_n) == k_fib_check; },
      [&] { return one.run([] { return fib_forkjoin(k_fib_n); }) == k_fib_check; }, "serial", "forkjoin1", true);
}

void BM_FibAllCores_TbbVsForkjoin(benchmark::State& state) {
  forkjoin::pool all(cores());
  tbb::task_arena arena(static_cast<int>(cores()));
  interleaved(
      state, [&] { return all.run([] { return fib_forkjoin(k_fib_n); }) == k_fib_check; },
      [&] { return arena.execute([] { return fib_tbb(k_fib_n); }) == k_fib_check; }, "forkjoin", "tbb");
}

// Calls a and b, a first when a_first; returns {a's value, b's value}.
template <class A, class B>
std::pair<double, double> in_order(bool a_first, A& a, B& b) {
  if (a_first) {
    const double x = a();
    return {x, b()};
  }
  const double y = b();
  return {a(), y};
}

// Two branches that each wait for the other to start: completes only once a second thread
// has woken up and taken the other branch. Returns the latency, or -1 if a branch did not
// run exactly once.
template <class Invoke>
double rendezvous_latency(Invoke invoke) {
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::atomic<int> arrived{0};
  auto branch = [&] {
    arrived.fetch_add(1);
    while (arrived.load() < 2) std::this_thread::yield();
  };
  auto t0 = clock_type::now();
  invoke(branch);
  const double t = seconds_since(t0);
  return arrived.load() == 2 ? t : -1;
}

void BM_WakeLatencyAfter20msIdle(benchmark::State& state) {
  forkjoin::pool fj(cores());
  tbb::task_arena arena(static_cast<int>(cores()));
  double tf = 0, tt = 0;
  bool fj_first = true;
  for (auto _ : state) {
    auto f = [&] { return rendezvous_latency([&](auto& br) { fj.run([&] { forkjoin::join(br, br); }); }); };
    auto t = [&] {
      return rendezvous_latency([&](auto& br) { arena.execute([&] { tbb::parallel_invoke(br, br); }); });
    };
    const auto [lf, lt] = in_order(fj_first, f, t);
    if (lf < 0 || lt < 0) return fail(state, "rendezvous: a branch did not run exactly once");
    tf += lf;
    tt += lt;
    fj_first = !fj_first;
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["forkjoin_us"] = tf / n * 1e6;
  state.counters["tbb_us"] = tt / n * 1e6;
  state.counters["forkjoin_over_tbb"] = tf / tt;
}

template <class Burst>
double idle_cpu_after(Burst burst) {
  if (!burst()) return -1;
  const double before = process_cpu_seconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  return process_cpu_seconds() - before;
}

void BM_IdleCpuIn500msAfterBurst(benchmark::State& state) {
  forkjoin::pool fj(cores());
  tbb::task_arena arena(static_cast<int>(cores()));
  double cf = 0, ct = 0;
  bool fj_first = true;
  for (auto _ : state) {
    auto f = [&] { return idle_cpu_after([&] { return fj.run([] { return fib_forkjoin(25); }) == 75025; }); };
    auto t = [&] { return idle_cpu_after([&] { return arena.execute([] { return fib_tbb(25); }) == 75025; }); };
    const auto [xf, xt] = in_order(fj_first, f, t);
    if (xf < 0 || xt < 0) return fail(state, "wrong answer in burst");
    cf += xf;
    ct += xt;
    fj_first = !fj_first;
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["forkjoin_cpu_ms"] = cf / n * 1e3;
  state.counters["tbb_cpu_ms"] = ct / n * 1e3;
}

// k branches that each spin until `total` have started: they end together, on k threads.
void all_arrive(std::atomic<int>& arrived, int total, int k) {
  auto branch = [&] {
    arrived.fetch_add(1);
    while (arrived.load() < total) std::this_thread::yield();
  };
  if (k == 1) return branch();
  forkjoin::join(branch, [&] { all_arrive(arrived, total, k - 1); });
}

// Park latency: every thread of the pool busy until the same moment (all_arrive), then the
// time until all background workers have announced they are parked (pool::num_parked). The caller polls every 20 us of
// sleep (a busy poll would take the CPU that a yielding worker hands over, and delay the very park it measures), so the
// figure is an upper bound, coarse by the sleep's granularity (tens of us). Reports the median and the largest over the
// iterations; a worker still awake after 1 s counts as 1 s.
void BM_ParkLatencyAfterBurst(benchmark::State& state) {
  forkjoin::pool fj(cores());
  const std::size_t background = fj.num_threads() - 1;
  std::vector<double> lat;
  for (auto _ : state) {
    settle(state);
    std::atomic<int> arrived{0};
    const int total = static_cast<int>(fj.num_threads());
    fj.run([&] { all_arrive(arrived, total, total); });
    if (arrived.load() != total) return fail(state, "a branch did not run exactly once");
    const auto t0 = clock_type::now();
    while (fj.num_parked() < background && seconds_since(t0) < 1.0)
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    lat.push_back(seconds_since(t0));
  }
  std::sort(lat.begin(), lat.end());
  state.counters["park_median_us"] = lat.empty() ? 0 : lat[lat.size() / 2] * 1e6;
  state.counters["park_max_us"] = lat.empty() ? 0 : lat.back() * 1e6;
}

}  // namespace

BENCHMARK(BM_FibWorkOverhead_T1_over_Ts)->Unit(benchmark::kMillisecond)->Iterations(6)->UseRealTime();
BENCHMARK(BM_FibAllCores_TbbVsForkjoin)->Unit(benchmark::kMillisecond)->Iterations(6)->UseRealTime();
BENCHMARK(BM_WakeLatencyAfter20msIdle)->Unit(benchmark::kMillisecond)->Iterations(20)->UseRealTime();
BENCHMARK(BM_IdleCpuIn500msAfterBurst)->Unit(benchmark::kMillisecond)->Iterations(4)->UseRealTime();
BENCHMARK(BM_ParkLatencyAfterBurst)->Unit(benchmark::kMillisecond)->Iterations(20)->UseRealTime();

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (g_failed) std::fprintf(stderr, "bench_runtime: some answers were wrong\n");
  return g_failed ? 1 : 0;
}

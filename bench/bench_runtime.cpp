// bench_runtime.cpp: the runtime's own figures, each measured against its baseline in the
// same run, interleaved (A B A B ...), so machine drift hits both alike:
//   fib(32) by join at 1 worker vs the serial function (work overhead T1/Ts);
//   fib(32) by join vs tbb::parallel_invoke, both with every core;
//   wake latency of a two-thread rendezvous after 20 ms idle, forkjoin vs oneTBB;
//   CPU burned in the 500 ms after a burst, forkjoin vs oneTBB.
// Every answer is checked; a wrong one fails the run through SkipWithError.
#include <benchmark/benchmark.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/task_arena.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "forkjoin/forkjoin.hpp"

namespace {

using clock_type = std::chrono::steady_clock;
constexpr int k_fib_n = 32;
constexpr std::uint64_t k_fib_check = 2178309;

__attribute__((noinline)) std::uint64_t fib_serial(int n) {
  return n < 2 ? static_cast<std::uint64_t>(n) : fib_serial(n - 1) + fib_serial(n - 2);
}
std::uint64_t fib_forkjoin(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  auto [a, b] = forkjoin::join([n] { return fib_forkjoin(n - 1); }, [n] { return fib_forkjoin(n - 2); });
  return a + b;
}
std::uint64_t fib_tbb(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  std::uint64_t a = 0, b = 0;
  tbb::parallel_invoke([&] { a = fib_tbb(n - 1); }, [&] { b = fib_tbb(n - 2); });
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

// Interleaved pair: A then B each iteration; reports both times and B/A.
template <class A, class B>
void interleaved(benchmark::State& state, A a, B b, const char* a_name, const char* b_name) {
  double ta = 0, tb = 0;
  for (auto _ : state) {
    auto t0 = clock_type::now();
    if (!a()) state.SkipWithError("wrong answer (A)");
    ta += seconds_since(t0);
    t0 = clock_type::now();
    if (!b()) state.SkipWithError("wrong answer (B)");
    tb += seconds_since(t0);
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters[std::string(a_name) + "_ms"] = ta / n * 1e3;
  state.counters[std::string(b_name) + "_ms"] = tb / n * 1e3;
  state.counters[std::string(b_name) + "_over_" + a_name] = tb / ta;
}

void BM_FibWorkOverhead_T1_over_Ts(benchmark::State& state) {
  forkjoin::pool one(1);
  interleaved(
      state, [] { return fib_serial(k_fib_n) == k_fib_check; },
      [&] { return one.run([] { return fib_forkjoin(k_fib_n); }) == k_fib_check; }, "serial", "forkjoin1");
}

void BM_FibAllCores_TbbVsForkjoin(benchmark::State& state) {
  forkjoin::pool all(cores());
  tbb::task_arena arena(static_cast<int>(cores()));
  interleaved(
      state, [&] { return all.run([] { return fib_forkjoin(k_fib_n); }) == k_fib_check; },
      [&] { return arena.execute([] { return fib_tbb(k_fib_n); }) == k_fib_check; }, "forkjoin", "tbb");
}

// Two branches that each wait for the other to start: completes only once a second thread
// has woken up and taken the other branch.
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
  return seconds_since(t0);
}

void BM_WakeLatencyAfter20msIdle(benchmark::State& state) {
  forkjoin::pool fj(cores());
  tbb::task_arena arena(static_cast<int>(cores()));
  double tf = 0, tt = 0;
  for (auto _ : state) {
    tf += rendezvous_latency([&](auto& br) { fj.run([&] { forkjoin::join(br, br); }); });
    tt += rendezvous_latency([&](auto& br) { arena.execute([&] { tbb::parallel_invoke(br, br); }); });
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
  for (auto _ : state) {
    double f = idle_cpu_after([&] { return fj.run([] { return fib_forkjoin(25); }) == 75025; });
    double t = idle_cpu_after([&] { return arena.execute([] { return fib_tbb(25); }) == 75025; });
    if (f < 0 || t < 0) state.SkipWithError("wrong answer in burst");
    cf += f;
    ct += t;
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["forkjoin_cpu_ms"] = cf / n * 1e3;
  state.counters["tbb_cpu_ms"] = ct / n * 1e3;
}

}  // namespace

BENCHMARK(BM_FibWorkOverhead_T1_over_Ts)->Unit(benchmark::kMillisecond)->Iterations(5)->UseRealTime();
BENCHMARK(BM_FibAllCores_TbbVsForkjoin)->Unit(benchmark::kMillisecond)->Iterations(5)->UseRealTime();
BENCHMARK(BM_WakeLatencyAfter20msIdle)->Unit(benchmark::kMillisecond)->Iterations(20)->UseRealTime();
BENCHMARK(BM_IdleCpuIn500msAfterBurst)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK_MAIN();

// bench_compare.cpp: forkjoin against oneTBB, OpenMP (libgomp), std::execution::par and
// serial code on the standard workloads, every answer checked (a wrong answer fails the
// benchmark through SkipWithError and the run exits non-zero).
//
//   bench_compare [--quick | --smoke] [--threads=1,2,...] [--progress=SECONDS] [Google Benchmark flags]
//
// --quick: a look in about a minute: the full sizes, every thread count's row only at all
// cores (unless --threads says otherwise), one iteration of each timed workload, one
// repetition unless asked; indicative figures, not ones to quote. --smoke: tiny sizes and
// short timings, every answer still checked (a unit test). Progress (run k of N, time so
// far, an estimate of the rest) goes to stderr every --progress seconds (default 10; 0: after
// every run), the tables to stdout and to --benchmark_out.
//
// Fairness: same inputs, flags and thread count for all; each benchmark starts after a
// settle pause so that threads another runtime left spinning have gone to sleep; the
// run script interleaves repetitions (--benchmark_enable_random_interleaving).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "progress.hpp"
#include "uts.hpp"
#include "workloads.hpp"

namespace fb = forkjoin::bench;

namespace {

bool g_failed = false;
bool g_quick = false;  // --smoke: tiny sizes and short timings; every answer is still checked
bool g_look = false;   // --quick: full sizes, one iteration per timed run, all cores only
fb::sizes g_size = fb::k_full;
fb::sort_wave_sizes g_sw = fb::k_sort_wave_full;
std::optional<fb::progress> g_progress;  // made just before the benchmarks run

struct inputs {
  std::vector<double> reduce;
  double reduce_expected = 0;
  fb::imbalanced_input imbalanced;
  std::vector<double> ma, mb, mc_expected;
  std::vector<int> sort_input, sort_expected;
  fb::uts::node uts_root;
  std::uint64_t uts_expected = 0;
  std::vector<int> lib_sort_input, lib_sort_expected;  // sort_lib and stable_sort
  std::int64_t wave_expected = 0;
};
inputs g_in;

// The algorithm rows' inputs and serially computed answers.
fb::algorithm_sizes g_algo = fb::k_algorithm_full;
struct algorithm_inputs {
  std::vector<float> grid, jacobi_expected;  // initial grid (interior 0, borders fixed); after the sweeps
  std::vector<double> scan, scan_expected;   // small integers: every prefix sum is exact in any order
  std::vector<std::uint32_t> hist;
  std::vector<std::uint64_t> hist_expected;
  std::vector<int> find;
};
algorithm_inputs g_algo_in;

void build_algorithm_inputs() {
  const auto n = static_cast<std::size_t>(g_algo.jacobi_n);
  g_algo_in.grid.assign(n * n, 0.0f);
  for (std::size_t k = 0; k < n; ++k) {  // borders: a ramp on top and left, 1 on the others
    g_algo_in.grid[k] = static_cast<float>(k) / static_cast<float>(n);
    g_algo_in.grid[k * n] = static_cast<float>(k) / static_cast<float>(n);
    g_algo_in.grid[(n - 1) * n + k] = 1.0f;
    g_algo_in.grid[k * n + n - 1] = 1.0f;
  }
  g_algo_in.jacobi_expected = g_algo_in.grid;
  std::vector<float> other = g_algo_in.grid;
  fb::serial_impl().jacobi(g_algo_in.jacobi_expected.data(), other.data(), g_algo.jacobi_n, g_algo.jacobi_sweeps);
  g_algo_in.scan.resize(g_algo.scan_n);
  for (std::size_t i = 0; i < g_algo.scan_n; ++i) g_algo_in.scan[i] = static_cast<double>(i % 1024);
  g_algo_in.scan_expected.resize(g_algo.scan_n);
  fb::serial_impl().scan(g_algo_in.scan.data(), g_algo_in.scan_expected.data(), g_algo.scan_n);
  std::mt19937 rng(54321);
  g_algo_in.hist.resize(g_algo.hist_n);
  for (auto& v : g_algo_in.hist) v = static_cast<std::uint32_t>(rng());
  g_algo_in.hist_expected.assign(256, 0);
  fb::serial_impl().histogram(g_algo_in.hist.data(), g_algo.hist_n, g_algo_in.hist_expected.data());
  g_algo_in.find.resize(g_algo.find_n);
  for (std::size_t i = 0; i < g_algo.find_n; ++i) g_algo_in.find[i] = static_cast<int>(i % 1000);
  g_algo_in.find[g_algo.find_n / 10] = fb::k_find_needle;
}

void build_inputs() {
  g_in.reduce.resize(g_size.reduce_n);
  for (std::size_t i = 0; i < g_size.reduce_n; ++i)
    g_in.reduce[i] = static_cast<double>(i % 1024);  // integer sums: exact in any order
  g_in.reduce_expected = static_cast<double>(g_size.reduce_n / 1024) * (1023.0 * 1024.0 / 2.0) +
                         static_cast<double>((g_size.reduce_n % 1024) * (g_size.reduce_n % 1024 - 1) / 2);
  g_in.imbalanced.n = g_size.imbalanced_n;
  for (int i = 0; i < g_size.imbalanced_n; ++i) g_in.imbalanced.expected.push_back(fb::imbalanced_iteration(i));
  const auto n = static_cast<std::size_t>(g_size.matmul_n);
  g_in.ma.resize(n * n);
  g_in.mb.resize(n * n);
  for (std::size_t i = 0; i < n * n; ++i) {  // small integers: every product sum is exact
    g_in.ma[i] = static_cast<double>(i * 7 % 8);
    g_in.mb[i] = static_cast<double>(i * 5 % 8);
  }
  g_in.mc_expected.assign(n * n, 0.0);  // serially, with the shared kernel: every entry is checked
  fb::serial_impl().matmul(g_in.ma.data(), g_in.mb.data(), g_in.mc_expected.data(), g_size.matmul_n);
  // UTS: T1 in the full run (its published size); in --quick a small tree of the same
  // shape, counted serially here.
  g_in.uts_root = fb::uts::root(g_size.uts_root_depth);
  g_in.uts_expected = g_size.uts_root_depth == 0 ? fb::uts::k_t1_nodes : fb::uts::count_serial(g_in.uts_root);
  std::mt19937 rng(12345);
  g_in.sort_input.resize(g_size.sort_n);
  for (int& x : g_in.sort_input) x = static_cast<int>(rng());
  g_in.sort_expected = g_in.sort_input;
  std::sort(g_in.sort_expected.begin(), g_in.sort_expected.end());
  g_in.lib_sort_input.resize(g_sw.lib_sort_n);
  for (int& x : g_in.lib_sort_input) x = static_cast<int>(rng());
  g_in.lib_sort_expected = g_in.lib_sort_input;
  std::sort(g_in.lib_sort_expected.begin(), g_in.lib_sort_expected.end());
  g_in.wave_expected = fb::wavefront_expected(g_sw.wave_blocks, g_sw.wave_block);
}

void settle() { std::this_thread::sleep_for(std::chrono::milliseconds(g_quick ? 5 : g_look ? 20 : 50)); }

void fail(benchmark::State& state, const std::string& what) {
  g_failed = true;
  state.SkipWithError(what.c_str());
}

double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

using body = std::function<void(benchmark::State&, const fb::implementation&)>;

struct workload {
  const char* name;
  bool available;                              // at these sizes
  bool (*applies)(const fb::implementation&);  // the implementation has this workload
  body run;
  int iterations;  // 0: let Google Benchmark choose
  bool manual_time;
};

template <class T>
void check_equal(benchmark::State& state, T got, T expect, const char* what) {
  if (got != expect)
    fail(state, std::string(what) + ": wrong answer " + std::to_string(got) + ", expected " + std::to_string(expect));
}

// Compares a whole result against its serially computed expectation, outside the timed region.
template <class T>
bool untimed_equal(benchmark::State& state, const std::vector<T>& got, const std::vector<T>& expect) {
  state.PauseTiming();
  const bool ok = got == expect;
  state.ResumeTiming();
  return ok;
}

// A workload whose answer is one value: run it once per iteration, check every answer.
template <class Compute, class R>
workload answer_workload(const char* name, bool available, bool (*applies)(const fb::implementation&), Compute compute,
                         R expected) {
  return {name,
          available,
          applies,
          [name, compute, expected](benchmark::State& st, const fb::implementation& i) {
            for (auto _ : st) {
              const R r = compute(i);
              if (r != expected) return check_equal(st, r, expected, name);
            }
          },
          1,
          false};
}

// The algorithm rows: a 2-D stencil, an inclusive scan, a histogram with per-worker bins,
// and a find with the match at 10%. Every result is compared with the serial one.
void add_algorithm_workloads(std::vector<workload>& w) {
  w.push_back({"jacobi2d", true, [](const fb::implementation& i) { return i.jacobi != nullptr; },
               [](benchmark::State& st, const fb::implementation& i) {
                 std::vector<float> a, b;
                 for (auto _ : st) {
                   st.PauseTiming();
                   a = g_algo_in.grid;
                   b = g_algo_in.grid;
                   st.ResumeTiming();
                   i.jacobi(a.data(), b.data(), g_algo.jacobi_n, g_algo.jacobi_sweeps);
                   if (!untimed_equal(st, a, g_algo_in.jacobi_expected)) return fail(st, "jacobi2d: wrong grid");
                 }
               },
               3, false});
  w.push_back({"scan", true, [](const fb::implementation& i) { return i.scan != nullptr; },
               [](benchmark::State& st, const fb::implementation& i) {
                 std::vector<double> out(g_algo.scan_n);
                 for (auto _ : st) {
                   st.PauseTiming();
                   std::fill(out.begin(), out.end(), -1.0);
                   st.ResumeTiming();
                   i.scan(g_algo_in.scan.data(), out.data(), g_algo.scan_n);
                   if (!untimed_equal(st, out, g_algo_in.scan_expected)) return fail(st, "scan: wrong prefix sum");
                 }
               },
               5, false});
  w.push_back({"histogram", true, [](const fb::implementation& i) { return i.histogram != nullptr; },
               [](benchmark::State& st, const fb::implementation& i) {
                 std::vector<std::uint64_t> bins(256);
                 for (auto _ : st) {
                   st.PauseTiming();
                   std::fill(bins.begin(), bins.end(), 0);
                   st.ResumeTiming();
                   i.histogram(g_algo_in.hist.data(), g_algo.hist_n, bins.data());
                   if (!untimed_equal(st, bins, g_algo_in.hist_expected)) return fail(st, "histogram: wrong bins");
                 }
               },
               5, false});
  w.push_back(answer_workload(
      "find_if", true, [](const fb::implementation& i) { return i.find != nullptr; },
      [](const fb::implementation& i) { return i.find(g_algo_in.find.data(), g_algo.find_n); }, g_algo.find_n / 10));
}

std::vector<workload> workloads() {
  const fb::sizes s = g_size;
  std::vector<workload> w;
  using impl = fb::implementation;
  w.push_back(answer_workload(
      "fib", true, [](const impl& i) { return i.fib != nullptr; }, [s](const impl& i) { return i.fib(s.fib_n); },
      fb::fib_expected(s.fib_n)));
  w.push_back(answer_workload(
      "fib_invoke", true, [](const impl& i) { return i.fib_invoke != nullptr; },
      [s](const impl& i) { return i.fib_invoke(s.fib_n); }, fb::fib_expected(s.fib_n)));
  w.push_back(answer_workload(
      "skynet", true, [](const impl& i) { return i.skynet != nullptr; },
      [s](const impl& i) { return i.skynet(s.skynet_depth); }, fb::skynet_expected(s.skynet_depth)));
  w.push_back(answer_workload(
      "nqueens", true, [](const impl& i) { return i.nqueens != nullptr; },
      [s](const impl& i) { return i.nqueens(s.nqueens_n); }, fb::nqueens_expected(s.nqueens_n)));
  w.push_back(answer_workload(
      "nqueens14", s.nqueens_big_n != 0, [](const impl& i) { return i.nqueens != nullptr; },
      [s](const impl& i) { return i.nqueens(s.nqueens_big_n); }, fb::nqueens_expected(s.nqueens_big_n)));
  w.push_back(answer_workload(
      s.uts_root_depth == 0 ? "uts_t1" : "uts_small", true, [](const impl& i) { return i.uts != nullptr; },
      [](const impl& i) { return i.uts(g_in.uts_root); }, g_in.uts_expected));
  for (bool with_static : {false, true})
    for (int n : {1000, 100000}) {
      w.push_back(
          {n == 1000 ? (with_static ? "loop_1k_static" : "loop_1k") : (with_static ? "loop_100k_static" : "loop_100k"),
           true,
           with_static ? +[](const fb::implementation& i) { return i.loop_static != nullptr; }
                       : +[](const fb::implementation& i) { return i.loop != nullptr; },
           [n, with_static](benchmark::State& st, const fb::implementation& i) {
             std::vector<int> a(static_cast<std::size_t>(n), 0);
             int calls = 0;
             auto* const loop = with_static ? i.loop_static : i.loop;
             for (auto _ : st) {
               loop(a.data(), n);
               ++calls;
             }
             for (int x : a)
               if (x != calls)
                 return fail(st, "loop: an element was updated " + std::to_string(x) + " times, expected " +
                                     std::to_string(calls));
           },
           0, false});
    }
  w.push_back({"imbalanced", true, [](const fb::implementation& i) { return i.imbalanced != nullptr; },
               [](benchmark::State& st, const fb::implementation& i) {
                 std::vector<double> out(g_in.imbalanced.expected.size());
                 for (auto _ : st) {
                   st.PauseTiming();  // NaN never compares equal: an element not written fails
                   std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
                   st.ResumeTiming();
                   i.imbalanced(out.data(), g_in.imbalanced.n);
                   if (!untimed_equal(st, out, g_in.imbalanced.expected)) return fail(st, "imbalanced: wrong results");
                 }
               },
               3, false});
  w.push_back({"reduce", true, [](const fb::implementation& i) { return i.reduce != nullptr; },
               [](benchmark::State& st, const fb::implementation& i) {
                 double r = 0;
                 for (auto _ : st) {
                   r = i.reduce(g_in.reduce.data(), g_in.reduce.size());
                   if (r != g_in.reduce_expected) return check_equal(st, r, g_in.reduce_expected, "reduce");
                 }
               },
               5, false});
  w.push_back({"matmul", true, [](const fb::implementation& i) { return i.matmul != nullptr; },
               [s](benchmark::State& st, const fb::implementation& i) {
                 const auto n = static_cast<std::size_t>(s.matmul_n);
                 std::vector<double> c(n * n);
                 for (auto _ : st) {
                   st.PauseTiming();
                   std::fill(c.begin(), c.end(), 0.0);
                   st.ResumeTiming();
                   i.matmul(g_in.ma.data(), g_in.mb.data(), c.data(), s.matmul_n);
                   if (!untimed_equal(st, c, g_in.mc_expected)) return fail(st, "matmul: wrong entry");  // exact
                 }
               },
               1, false});
  w.push_back({"sort", true, [](const fb::implementation& i) { return i.sort != nullptr; },
               [](benchmark::State& st, const fb::implementation& i) {
                 std::vector<int> v;
                 for (auto _ : st) {
                   st.PauseTiming();
                   v = g_in.sort_input;
                   st.ResumeTiming();
                   i.sort(v.data(), v.size());
                   if (!untimed_equal(st, v, g_in.sort_expected)) return fail(st, "sort: wrong order");
                 }
               },
               1, false});
  add_algorithm_workloads(w);
  // The library sorts (each runtime's own call; the sort row above is a join quicksort
  // kernel written alike for every runtime) and the dependency wavefront.
  for (bool stable : {false, true})
    w.push_back({stable ? "stable_sort" : "sort_lib", true,
                 stable ? +[](const impl& i) { return i.stable_sort_lib != nullptr; }
                        : +[](const impl& i) { return i.sort_lib != nullptr; },
                 [stable](benchmark::State& st, const impl& i) {
                   std::vector<int> v;
                   for (auto _ : st) {
                     st.PauseTiming();
                     v = g_in.lib_sort_input;
                     st.ResumeTiming();
                     (stable ? i.stable_sort_lib : i.sort_lib)(v.data(), v.size());
                     if (!untimed_equal(st, v, g_in.lib_sort_expected)) return fail(st, "library sort: wrong order");
                   }
                 },
                 3, false});
  w.push_back({"wavefront", true, [](const impl& i) { return i.wave != nullptr; },
               [](benchmark::State& st, const impl& i) {
                 fb::wavefront grid(g_sw.wave_blocks, g_sw.wave_block);
                 for (auto _ : st) {
                   st.PauseTiming();
                   grid.reset();
                   st.ResumeTiming();
                   const std::int64_t r = i.wave(grid);
                   if (r != g_in.wave_expected) return check_equal(st, r, g_in.wave_expected, "wavefront");
                 }
               },
               5, false});
  // Idle behaviour (manual time): CPU burned by the whole process in the 500 ms after a
  // burst, and the latency of a 1,000-element loop after 20 ms of idleness.
  w.push_back({"idle_cpu_500ms", true,
               [](const fb::implementation& i) { return i.fib != nullptr && i.loop != nullptr; },
               [](benchmark::State& st, const fb::implementation& i) {
                 std::vector<int> a(100000, 0);
                 int calls = 0;
                 for (auto _ : st) {
                   std::this_thread::sleep_for(std::chrono::milliseconds(200));  // others asleep
                   for (int k = 0; k < 100; ++k, ++calls) i.loop(a.data(), 100000);
                   const double c0 = process_cpu_seconds();
                   std::this_thread::sleep_for(std::chrono::milliseconds(500));
                   st.SetIterationTime(process_cpu_seconds() - c0);
                 }
                 if (a[0] != calls || a[99999] != calls) fail(st, "idle burst: wrong loop result");
               },
               g_quick ? 1 : 2, true});
  w.push_back({"wake_latency", true, [](const fb::implementation& i) { return i.fib != nullptr && i.loop != nullptr; },
               [](benchmark::State& st, const fb::implementation& i) {
                 std::vector<int> a(1000, 0);
                 int calls = 0;
                 for (auto _ : st) {
                   std::this_thread::sleep_for(std::chrono::milliseconds(20));
                   const auto t0 = std::chrono::steady_clock::now();
                   i.loop(a.data(), 1000);
                   st.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
                   ++calls;
                 }
                 if (a[0] != calls || a[999] != calls) fail(st, "wake latency: wrong loop result");
               },
               g_quick ? 5 : 20, true});
  return w;
}

std::vector<int> parse_threads(const char* list) {
  std::vector<int> out;
  for (const char* p = list; *p != '\0';) {
    const int t = std::atoi(p);
    if (t <= 0) {
      std::fprintf(stderr, "bench_compare: bad --threads list '%s'\n", list);
      std::exit(2);
    }
    out.push_back(t);
    while (*p != '\0' && *p != ',') ++p;
    if (*p == ',') ++p;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  // Default sweep: 1 and 2 threads (T1, and the first step of scaling), and every core.
  std::vector<int> threads{1, 2, static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))};
  std::sort(threads.begin(), threads.end());
  threads.erase(std::unique(threads.begin(), threads.end()), threads.end());
  std::vector<char*> rest{argv[0]};
  bool threads_given = false;
  int repetitions = 1;  // read here too, for the progress report; Google Benchmark reads it as well
  double progress_every = 10;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--smoke")) {
      g_quick = true;
    } else if (!std::strcmp(argv[i], "--quick")) {
      g_look = true;
      if (!threads_given) threads = {threads.back()};
    } else if (!std::strncmp(argv[i], "--threads=", 10)) {
      threads = parse_threads(argv[i] + 10);
      threads_given = true;
    } else if (!std::strncmp(argv[i], "--progress=", 11)) {
      progress_every = std::atof(argv[i] + 11);
    } else {
      if (!std::strncmp(argv[i], "--benchmark_repetitions=", 24)) repetitions = std::atoi(argv[i] + 24);
      rest.push_back(argv[i]);
    }
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each table line as it comes, also through a pipe (ctest)
  if (g_quick) {
    g_size = fb::k_quick;
    g_algo = fb::k_algorithm_quick;
    g_sw = fb::k_sort_wave_quick;
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(rest_argc, rest.data())) return 2;
  build_inputs();
  build_algorithm_inputs();

  std::string cpu = "unknown";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0) {
      cpu = line.substr(line.find(':') + 2);
      break;
    }
  benchmark::AddCustomContext("cpu_model", cpu);
  benchmark::AddCustomContext("compiler", "g++ " __VERSION__);
  benchmark::AddCustomContext("mode", g_quick ? "smoke" : g_look ? "quick" : "full");
  benchmark::AddCustomContext("fib_n", std::to_string(g_size.fib_n));

  const fb::implementation* impls[] = {&fb::forkjoin_impl(), &fb::tbb_impl(), &fb::openmp_impl(), &fb::stdpar_impl(),
                                       &fb::serial_impl()};
  const double min_time = g_quick ? 0.01 : g_look ? 0.05 : 0.2;
  std::size_t registered = 0;
  for (const workload& w : workloads()) {
    if (!w.available) continue;
    for (int t : threads)
      for (const fb::implementation* impl : impls) {
        if (!w.applies(*impl)) continue;
        if (impl->name == "serial" &&
            (t != threads.front() || std::strncmp(w.name, "idle", 4) == 0 || std::strcmp(w.name, "wake_latency") == 0))
          continue;
        const std::string name =
            std::string(w.name) + "/" + impl->name + "/threads:" + std::to_string(impl->name == "serial" ? 1 : t);
        auto* b = benchmark::RegisterBenchmark(name.c_str(), [w, impl, t, name](benchmark::State& st) {
          impl->begin(t);
          settle();
          w.run(st, *impl);
          impl->end();
          st.counters["threads"] = impl->name == "serial" ? 1 : t;
          g_progress->call_done(name, static_cast<long long>(st.max_iterations));
        });
        ++registered;
        b->Unit(benchmark::kMillisecond);
        if (w.manual_time)
          b->UseManualTime();
        else
          b->UseRealTime();
        if (w.iterations > 0)
          b->Iterations(g_look && !w.manual_time ? 1 : w.iterations);
        else
          b->MinTime(min_time);
      }
  }
  if (benchmark::GetBenchmarkFilter() != "" && benchmark::GetBenchmarkFilter() != "." &&
      benchmark::GetBenchmarkFilter() != "all")
    registered = 0;  // a filter runs a subset the count above does not know: no estimate
  g_progress.emplace(registered, repetitions,
                     std::chrono::duration_cast<fb::progress::clock::duration>(
                         std::chrono::duration<double>(progress_every < 0 ? 0 : progress_every)));
  benchmark::RunSpecifiedBenchmarks();
  g_progress->finish();
  benchmark::Shutdown();
  if (g_failed) std::fprintf(stderr, "bench_compare: some answers were wrong\n");
  return g_failed ? 1 : 0;
}

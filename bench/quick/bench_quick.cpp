// bench_quick.cpp: the short comparison (run_quick.py drives it; `cmake --workflow --preset
// quick`): forkjoin against oneTBB, OpenMP and std::execution::par on six workloads users
// write (a recursion, back-to-back loops, a reduction, a matrix product, a sort, a scan),
// with the implementations of the full comparison (bench/compare/impl_*.cpp: each runtime
// written the way its users write it, all compiled with the same flags). A plain program:
// repetitions interleaved across runtimes (in each repetition, each workload runs once on
// every runtime, in a shuffled order, so a ratio pairs two runs a few hundred ms apart),
// after one warm-up repetition that is reported but not counted; every answer checked.
//
//   bench_quick [--reps=N] [--threads=N] [--impls=forkjoin,tbb,openmp,std::par]
//               [--openmp-name=NAME] [--settle-ms=MS] [--openmp-settle-ms=MS] [--smoke] [--plan]
//               [--corrupt=WORKLOAD]
//
// Output on stdout, one record a line, for run_quick.py:
//   plan WORKLOAD IMPL COUNT       how many samples of that pair will come (warm-up included)
//   threads N
//   sample REP WORKLOAD IMPL SECONDS   REP 0 is the warm-up
//   wrong WORKLOAD IMPL MESSAGE    a wrong answer (the program goes on, then exits 1)
// --plan prints the plan lines and exits. --openmp-name renames the OpenMP rows (run_quick.py
// runs the program a second time with LLVM's libomp preloaded, as "libomp"); the settle pause
// after an OpenMP run is then --openmp-settle-ms (libomp's workers spin for 200 ms after a
// parallel region, KMP_BLOCKTIME, which would otherwise take a core from the next runtime).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../compare/workloads.hpp"
#include "forkjoin/forkjoin.hpp"

namespace fb = forkjoin::bench;

namespace {

struct sizes {
  int fib_n;
  int loop_n, loop_calls;  // loop: loop_calls back-to-back loops of loop_n elements in one sample
  std::size_t reduce_n;
  int reduce_calls;
  int matmul_n;
  std::size_t sort_n;
  std::size_t scan_n;
};
constexpr sizes k_quick{27, 100000, 300, std::size_t{1} << 23, 4, 512, std::size_t{1} << 21, std::size_t{1} << 24};
constexpr sizes k_smoke{18, 1000, 10, std::size_t{1} << 14, 2, 32, std::size_t{1} << 14, 3 * 4096 + 5};

using clock_type = std::chrono::steady_clock;

// --corrupt=WORKLOAD (a test of the checks): forkjoin's answer to that workload is made
// wrong after it is computed, so the check must catch it and the program exit 1.
std::string g_corrupt;
int corrupted(const char* workload, const fb::implementation& i) {
  return g_corrupt == workload && i.name == "forkjoin" ? 1 : 0;
}

double since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

// One workload: `run` does one sample on an implementation and returns its timed seconds,
// or sets `wrong` (the answer checks are outside the timed region when they are costly).
struct workload {
  const char* name;
  std::function<bool(const fb::implementation&)> applies;
  std::function<double(const fb::implementation&, std::string& wrong)> run;
};

// The sort row: each runtime's own parallel sort (forkjoin::parallel_sort, tbb::parallel_sort,
// std::sort(par)); OpenMP has none, so its users write the task quicksort (bench/compare's
// sort kernel, three-way partition, std::sort below 2,048 elements).
auto sort_of(const fb::implementation& i) { return i.sort_lib != nullptr ? i.sort_lib : i.sort; }

std::vector<workload> make_workloads(const sizes& s) {
  std::vector<workload> w;
  w.push_back({"fib", [](const fb::implementation& i) { return i.fib != nullptr; },
               [s](const fb::implementation& i, std::string& wrong) {
                 const std::uint64_t expect = fb::fib_expected(s.fib_n);
                 const auto t0 = clock_type::now();
                 const std::uint64_t r = i.fib(s.fib_n) + corrupted("fib", i);
                 const double t = since(t0);
                 if (r != expect) wrong = "fib(" + std::to_string(s.fib_n) + ") = " + std::to_string(r);
                 return t;
               }});
  w.push_back({"loops", [](const fb::implementation& i) { return i.loop != nullptr; },
               [s](const fb::implementation& i, std::string& wrong) {
                 std::vector<int> a(static_cast<std::size_t>(s.loop_n), 0);
                 const auto t0 = clock_type::now();
                 for (int k = 0; k < s.loop_calls; ++k) i.loop(a.data(), s.loop_n);
                 const double t = since(t0);
                 a.back() += corrupted("loops", i);
                 for (int x : a)
                   if (x != s.loop_calls) {
                     wrong = "an element was incremented " + std::to_string(x) + " times, not " +
                             std::to_string(s.loop_calls);
                     break;
                   }
                 return t;
               }});
  auto reduce_in = std::make_shared<std::vector<double>>(s.reduce_n);
  for (std::size_t k = 0; k < s.reduce_n; ++k) (*reduce_in)[k] = static_cast<double>(k % 1024);  // exact sums
  const double reduce_expect = std::accumulate(reduce_in->begin(), reduce_in->end(), 0.0);
  w.push_back({"reduce", [](const fb::implementation& i) { return i.reduce != nullptr; },
               [s, reduce_in, reduce_expect](const fb::implementation& i, std::string& wrong) {
                 double t = 0;
                 for (int k = 0; k < s.reduce_calls && wrong.empty(); ++k) {
                   const auto t0 = clock_type::now();
                   const double r = i.reduce(reduce_in->data(), reduce_in->size()) + corrupted("reduce", i);
                   t += since(t0);
                   if (r != reduce_expect)
                     wrong = "sum " + std::to_string(r) + ", expected " + std::to_string(reduce_expect);
                 }
                 return t;
               }});
  const auto mn = static_cast<std::size_t>(s.matmul_n);
  auto ma = std::make_shared<std::vector<double>>(mn * mn), mb = std::make_shared<std::vector<double>>(mn * mn);
  for (std::size_t k = 0; k < mn * mn; ++k) {  // small integers: every entry is exact in any order
    (*ma)[k] = static_cast<double>(k * 7 % 8);
    (*mb)[k] = static_cast<double>(k * 5 % 8);
  }
  auto mc_expect = std::make_shared<std::vector<double>>(mn * mn, 0.0);
  fb::serial_impl().matmul(ma->data(), mb->data(), mc_expect->data(), s.matmul_n);
  w.push_back({"matmul", [](const fb::implementation& i) { return i.matmul != nullptr; },
               [s, ma, mb, mc_expect](const fb::implementation& i, std::string& wrong) {
                 std::vector<double> c(mc_expect->size(), 0.0);
                 const auto t0 = clock_type::now();
                 i.matmul(ma->data(), mb->data(), c.data(), s.matmul_n);
                 const double t = since(t0);
                 c.back() += corrupted("matmul", i);
                 if (c != *mc_expect) wrong = "a wrong entry in the product";
                 return t;
               }});
  auto sort_in = std::make_shared<std::vector<int>>(s.sort_n);
  std::mt19937 rng(12345);
  for (int& x : *sort_in) x = static_cast<int>(rng());
  auto sort_expect = std::make_shared<std::vector<int>>(*sort_in);
  std::sort(sort_expect->begin(), sort_expect->end());
  w.push_back({"sort", [](const fb::implementation& i) { return sort_of(i) != nullptr; },
               [sort_in, sort_expect](const fb::implementation& i, std::string& wrong) {
                 std::vector<int> v = *sort_in;
                 const auto t0 = clock_type::now();
                 sort_of(i)(v.data(), v.size());
                 const double t = since(t0);
                 if (corrupted("sort", i)) std::swap(v.front(), v.back());
                 if (v != *sort_expect) wrong = "not sorted";
                 return t;
               }});
  auto scan_in = std::make_shared<std::vector<double>>(s.scan_n);
  for (std::size_t k = 0; k < s.scan_n; ++k) (*scan_in)[k] = static_cast<double>(k % 1024);  // exact prefix sums
  auto scan_expect = std::make_shared<std::vector<double>>(s.scan_n);
  std::inclusive_scan(scan_in->begin(), scan_in->end(), scan_expect->begin());
  w.push_back({"scan", [](const fb::implementation& i) { return i.scan != nullptr; },
               [scan_in, scan_expect](const fb::implementation& i, std::string& wrong) {
                 std::vector<double> out(scan_in->size(), -1.0);
                 const auto t0 = clock_type::now();
                 i.scan(scan_in->data(), out.data(), out.size());
                 const double t = since(t0);
                 out.back() += corrupted("scan", i);
                 if (out != *scan_expect) wrong = "a wrong prefix sum";
                 return t;
               }});
  return w;
}

// The workloads' names and which implementation has each, without building inputs (--plan).
struct plan_row {
  const char* name;
  bool (*applies)(const fb::implementation&);
};
const plan_row k_plan[] = {
    {"fib", [](const fb::implementation& i) { return i.fib != nullptr; }},
    {"loops", [](const fb::implementation& i) { return i.loop != nullptr; }},
    {"reduce", [](const fb::implementation& i) { return i.reduce != nullptr; }},
    {"matmul", [](const fb::implementation& i) { return i.matmul != nullptr; }},
    {"sort", [](const fb::implementation& i) { return sort_of(i) != nullptr; }},
    {"scan", [](const fb::implementation& i) { return i.scan != nullptr; }},
};

std::vector<std::string> split(const char* list) {
  std::vector<std::string> out;
  std::string cur;
  for (const char* p = list;; ++p) {
    if (*p == ',' || *p == '\0') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
      if (*p == '\0') break;
    } else {
      cur += *p;
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 9;
  int threads = static_cast<int>(forkjoin::default_concurrency());
  std::vector<std::string> wanted{"forkjoin", "tbb", "openmp", "std::par"};
  std::string openmp_name = "openmp";
  int settle_ms = 50, openmp_settle_ms = -1;
  bool smoke = false, plan_only = false;
  for (int k = 1; k < argc; ++k) {
    const char* a = argv[k];
    if (!std::strncmp(a, "--reps=", 7)) {
      reps = std::atoi(a + 7);
    } else if (!std::strncmp(a, "--threads=", 10)) {
      threads = std::atoi(a + 10);
    } else if (!std::strncmp(a, "--impls=", 8)) {
      wanted = split(a + 8);
    } else if (!std::strncmp(a, "--openmp-name=", 14)) {
      openmp_name = a + 14;
    } else if (!std::strncmp(a, "--settle-ms=", 12)) {
      settle_ms = std::atoi(a + 12);
    } else if (!std::strncmp(a, "--openmp-settle-ms=", 19)) {
      openmp_settle_ms = std::atoi(a + 19);
    } else if (!std::strncmp(a, "--corrupt=", 10)) {
      g_corrupt = a + 10;
    } else if (!std::strcmp(a, "--smoke")) {
      smoke = true;
    } else if (!std::strcmp(a, "--plan")) {
      plan_only = true;
    } else {
      std::fprintf(stderr, "bench_quick: unknown argument '%s' (see the comment at the top of bench_quick.cpp)\n", a);
      return 2;
    }
  }
  if (reps < 1 || threads < 1) {
    std::fprintf(stderr, "bench_quick: --reps and --threads must be at least 1\n");
    return 2;
  }
  if (openmp_settle_ms < 0) openmp_settle_ms = settle_ms;
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each record as it comes, through the pipe

  std::vector<const fb::implementation*> impls;
  for (const fb::implementation* i : {&fb::forkjoin_impl(), &fb::tbb_impl(), &fb::openmp_impl(), &fb::stdpar_impl()})
    if (std::find(wanted.begin(), wanted.end(), i->name) != wanted.end()) impls.push_back(i);
  if (impls.empty()) {
    std::fprintf(stderr, "bench_quick: --impls names none of forkjoin, tbb, openmp, std::par\n");
    return 2;
  }
  auto label = [&](const fb::implementation& i) { return i.name == "openmp" ? openmp_name : i.name; };
  std::printf("threads %d\n", threads);
  for (const plan_row& p : k_plan)
    for (const fb::implementation* i : impls)
      if (p.applies(*i)) std::printf("plan %s %s %d\n", p.name, label(*i).c_str(), reps + 1);
  if (plan_only) return 0;

  const std::vector<workload> work = make_workloads(smoke ? k_smoke : k_quick);
  bool failed = false;
  std::mt19937 order_rng(20261204);
  for (int rep = 0; rep <= reps; ++rep)
    for (const workload& w : work) {
      std::vector<const fb::implementation*> order;
      for (const fb::implementation* i : impls)
        if (w.applies(*i)) order.push_back(i);
      std::shuffle(order.begin(), order.end(), order_rng);
      for (const fb::implementation* i : order) {
        i->begin(threads);
        std::string wrong;
        const double seconds = w.run(*i, wrong);
        i->end();
        std::printf("sample %d %s %s %.9g\n", rep, w.name, label(*i).c_str(), seconds);
        if (!wrong.empty()) {
          failed = true;
          std::printf("wrong %s %s %s\n", w.name, label(*i).c_str(), wrong.c_str());
        }
        // Let the workers this runtime leaves spinning go to sleep before the next one runs.
        std::this_thread::sleep_for(std::chrono::milliseconds(i->name == "openmp" ? openmp_settle_ms : settle_ms));
      }
    }
  return failed ? 1 : 0;
}

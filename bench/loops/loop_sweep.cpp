// loop_sweep.cpp: one row of the loop sweep: back-to-back calls of the same loop,
// a[i] = a[i] * 0.5f + 1 over one std::vector<float>, the way each library's users write
// it. One process per library, schedule, mode and size (run_sweep.py interleaves them);
// the OpenMP rows are loop_sweep_omp.c, run on each OpenMP runtime.
//
//   loop_sweep LIB SCHED MODE N [--threads T] [--rounds R] [--round-ms MS]
//     LIB    serial | forkjoin | tbb | stdpar
//     SCHED  auto | static | dynamic (forkjoin: auto_(), static_(), dynamic(256); tbb: the
//            auto_partitioner, static_partitioner, simple_partitioner with grain 256;
//            serial and stdpar have one form: "auto")
//     MODE   outside: every call made from main, as `parallel_for(0, n, body)` is written
//            inside:  all calls inside one pool.run (tbb: one task_arena::execute)
//
// Prints one JSON object: microseconds per call for each of R rounds (each round at least
// MS milliseconds of calls) and, for forkjoin, the pool's counters per call. Exits 1 if any
// element is wrong.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <execution>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "forkjoin/forkjoin.hpp"

namespace {

constexpr int k_classes = 16;         // a[i] starts at i % 16: the check needs 16 serial recurrences
constexpr std::size_t k_grain = 256;  // the dynamic schedule's chunk (and tbb's simple_partitioner grain)

struct options {
  std::string lib, sched, mode;
  std::size_t n = 0;
  int threads = 2;
  int rounds = 7;
  double round_ms = 20;
};

[[noreturn]] void usage() {
  std::fputs(
      "usage: loop_sweep serial|forkjoin|tbb|stdpar auto|static|dynamic outside|inside N [--threads T] "
      "[--rounds R] [--round-ms MS]\n",
      stderr);
  std::exit(2);
}

options parse(int argc, char** argv) {
  if (argc < 5) usage();
  options o;
  o.lib = argv[1];
  o.sched = argv[2];
  o.mode = argv[3];
  o.n = std::strtoull(argv[4], nullptr, 10);
  for (int i = 5; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--threads"))
      o.threads = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--rounds"))
      o.rounds = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--round-ms"))
      o.round_ms = std::atof(argv[i + 1]);
    else
      usage();
  }
  const bool known_lib = o.lib == "serial" || o.lib == "forkjoin" || o.lib == "tbb" || o.lib == "stdpar";
  const bool known_sched = o.sched == "auto" || o.sched == "static" || o.sched == "dynamic";
  if (!known_lib || !known_sched || (o.mode != "outside" && o.mode != "inside") || o.n == 0 || o.threads < 1 ||
      o.rounds < 1)
    usage();
  if ((o.lib == "serial" || o.lib == "stdpar") && o.sched != "auto") usage();
  return o;
}

forkjoin::schedule fj_schedule(const std::string& s) {
  if (s == "static") return forkjoin::schedule::static_();
  if (s == "dynamic") return forkjoin::schedule::dynamic(k_grain);
  return forkjoin::schedule::auto_();
}

// The measured loop: one call over a[0, n).
using loop_fn = std::function<void(float*, std::size_t)>;

loop_fn make_loop(const options& o) {
  if (o.lib == "serial")
    return [](float* a, std::size_t n) {
      for (std::size_t i = 0; i < n; ++i) a[i] = a[i] * 0.5f + 1;
    };
  if (o.lib == "forkjoin") {
    const forkjoin::schedule s = fj_schedule(o.sched);
    return [s](float* a, std::size_t n) {
      forkjoin::parallel_for(
          std::size_t{0}, n, [a](std::size_t i) { a[i] = a[i] * 0.5f + 1; }, s);
    };
  }
  if (o.lib == "stdpar")
    return [](float* a, std::size_t n) {
      std::for_each(std::execution::par, a, a + n, [](float& x) { x = x * 0.5f + 1; });
    };
  // tbb
  auto body = [](float* a) {
    return [a](const tbb::blocked_range<std::size_t>& r) {
      for (std::size_t i = r.begin(); i != r.end(); ++i) a[i] = a[i] * 0.5f + 1;
    };
  };
  if (o.sched == "static")
    return [body](float* a, std::size_t n) {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n), body(a), tbb::static_partitioner());
    };
  if (o.sched == "dynamic")
    return [body](float* a, std::size_t n) {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, k_grain), body(a), tbb::simple_partitioner());
    };
  return [body](float* a, std::size_t n) { tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n), body(a)); };
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  // Thread counts: forkjoin's default pool reads FORKJOIN_NUM_THREADS (set here, before its
  // first use); oneTBB and std::execution::par (oneTBB underneath) take global_control.
  setenv("FORKJOIN_NUM_THREADS", std::to_string(o.threads).c_str(), 1);
  tbb::global_control threads(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(o.threads));

  std::vector<float> v(o.n);
  for (std::size_t i = 0; i < o.n; ++i) v[i] = static_cast<float>(i % k_classes);
  float* a = v.data();
  const loop_fn loop = make_loop(o);
  long calls_total = 0;

  // One round: `calls` back-to-back calls, from main or inside one pool.run / arena.
  auto round = [&](long calls) {
    auto many = [&] {
      for (long k = 0; k < calls; ++k) loop(a, o.n);
    };
    if (o.mode == "inside" && o.lib == "forkjoin")
      forkjoin::default_pool().run(many);
    else if (o.mode == "inside" && o.lib == "tbb") {
      static tbb::task_arena arena(o.threads);
      arena.execute(many);
    } else {
      many();
    }
    calls_total += calls;
  };

  // Warm up (threads started, data in cache, the site's rate learned) for a round's time,
  // then calibrate: the number of calls that fills one round of round_ms.
  for (auto t0 = std::chrono::steady_clock::now();
       std::chrono::steady_clock::now() - t0 < std::chrono::duration<double, std::milli>(o.round_ms);)
    round(1);
  long calls = 1;
  for (;;) {
    const auto t0 = std::chrono::steady_clock::now();
    round(calls);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (ms >= o.round_ms / 4 || calls >= (1L << 30)) {
      calls = std::max(1L, static_cast<long>(static_cast<double>(calls) * o.round_ms / std::max(ms, 1e-3)));
      break;
    }
    calls *= 4;
  }

  forkjoin::pool::stats before;
  if (o.lib == "forkjoin") before = forkjoin::default_pool().statistics();
  const long calls_before = calls_total;
  std::vector<double> us;
  for (int r = 0; r < o.rounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    round(calls);
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
                 static_cast<double>(calls));
  }
  const long measured = calls_total - calls_before;

  // The answer: every element went through calls_total applications of x * 0.5f + 1.
  float expected[k_classes];
  for (int c = 0; c < k_classes; ++c) {
    float x = static_cast<float>(c);
    for (long k = 0; k < calls_total; ++k) x = x * 0.5f + 1;
    expected[c] = x;
  }
  for (std::size_t i = 0; i < o.n; ++i)
    if (v[i] != expected[i % k_classes]) {
      std::fprintf(stderr, "loop_sweep: element %zu is %g, expected %g\n", i, static_cast<double>(v[i]),
                   static_cast<double>(expected[i % k_classes]));
      return 1;
    }

  std::printf(
      "{\"lib\": \"%s\", \"sched\": \"%s\", \"mode\": \"%s\", \"n\": %zu, \"threads\": %d, \"calls\": %ld, \"us\": [",
      o.lib.c_str(), o.sched.c_str(), o.mode.c_str(), o.n, o.threads, calls);
  for (std::size_t r = 0; r < us.size(); ++r) std::printf("%s%.4f", r ? ", " : "", us[r]);
  std::printf("]");
  if (o.lib == "forkjoin") {
    const forkjoin::pool::stats after = forkjoin::default_pool().statistics();
    const auto per_call = [&](std::uint64_t x, std::uint64_t y) {
      return static_cast<double>(x - y) / static_cast<double>(measured);
    };
    std::printf(", \"per_call\": {\"steals\": %.3f, \"parks\": %.3f, \"jobs\": %.3f, \"splits\": %.3f}",
                per_call(after.steals, before.steals), per_call(after.parks, before.parks),
                per_call(after.jobs_run, before.jobs_run), per_call(after.splits_served, before.splits_served));
  }
  std::printf("}\n");
  return 0;
}

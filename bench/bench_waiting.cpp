// bench_waiting: what the loop budget buys and costs, and what isolated waits cost.
//
// 1. Fairness: a parallel_for of about --seconds of work occupies every worker while another
//    thread submits 1 us jobs through pool::run, one after the other. Reported: p50/p99/max
//    of their latency (submission to start), with the loop engine's budget on and off
//    (detail::g_loop_budget), and the loop's own time alone, budget on and off, interleaved
//    (median of --reps), whose ratio is the budget's cost.
// 2. Isolation (the case for or against isolated waits by default): fib(--fib) with every
//    join inside isolate() against plain joins, and 64 outer tasks each running an inner
//    parallel_reduce, the inner loops isolated or not. Medians of --reps, interleaved.
// Every answer is checked; a wrong one exits with status 1.
//
//   build/release/bench/bench_waiting [--seconds 1] [--reps 5] [--fib 30]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "forkjoin/forkjoin.hpp"

namespace fj = forkjoin;
using clock_type = std::chrono::steady_clock;

namespace {

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

[[noreturn]] void wrong(const char* what) {
  std::fprintf(stderr, "bench_waiting: wrong answer: %s\n", what);
  std::exit(1);
}

// Per-iteration work: a short dependent chain, so that the loop cannot be vectorised away.
inline std::uint64_t work(std::uint64_t i) {
  std::uint64_t x = i * 0x9e3779b97f4a7c15ULL;
  for (int k = 0; k < 8; ++k) x ^= (x << 13) ^ (x >> 7) ^ (x << 17);
  return x & 0xff;
}

std::uint64_t serial_sum(std::uint64_t n) {
  std::uint64_t s = 0;
  for (std::uint64_t i = 0; i < n; ++i) s += work(i);
  return s;
}

std::uint64_t parallel_sum(fj::pool& p, std::uint64_t n) {
  return p.run([n] {
    return fj::parallel_reduce(
        std::uint64_t{0}, n, std::uint64_t{0},
        [](std::uint64_t lo, std::uint64_t hi, std::uint64_t acc) {
          for (std::uint64_t i = lo; i < hi; ++i) acc += work(i);
          return acc;
        },
        std::plus<>{});
  });
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

double median(std::vector<double> v) { return percentile(std::move(v), 0.5); }

struct fairness_run {
  double loop_seconds;
  std::vector<double> latencies_us;
};

// The loop, with a submitter of 1 us jobs running beside it.
fairness_run loop_with_submitter(fj::pool& p, std::uint64_t n, std::uint64_t expect) {
  std::atomic<bool> started{false}, finished{false};
  fairness_run r{};
  std::thread submitter([&] {
    while (!started.load()) std::this_thread::yield();
    while (!finished.load()) {
      const auto submitted = clock_type::now();
      double latency = 0;
      p.run([&] {
        latency = std::chrono::duration<double, std::micro>(clock_type::now() - submitted).count();
        const auto spin_end = clock_type::now() + std::chrono::microseconds(1);
        while (clock_type::now() < spin_end) {
        }
      });
      if (!finished.load()) r.latencies_us.push_back(latency);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  const auto t0 = clock_type::now();
  const std::uint64_t got = p.run([&] {
    started.store(true);
    return fj::parallel_reduce(
        std::uint64_t{0}, n, std::uint64_t{0},
        [](std::uint64_t lo, std::uint64_t hi, std::uint64_t acc) {
          for (std::uint64_t i = lo; i < hi; ++i) acc += work(i);
          return acc;
        },
        std::plus<>{});
  });
  r.loop_seconds = seconds_since(t0);
  finished.store(true);
  submitter.join();
  if (got != expect) wrong("fairness loop sum");
  return r;
}

long fib_plain(int n) {
  if (n < 2) return n;
  auto [a, b] = fj::join([n] { return fib_plain(n - 1); }, [n] { return fib_plain(n - 2); });
  return a + b;
}

long fib_isolated(int n) {
  if (n < 2) return n;
  return fj::isolate([n] {
    auto [a, b] = fj::join([n] { return fib_isolated(n - 1); }, [n] { return fib_isolated(n - 2); });
    return a + b;
  });
}

long serial_fib(int n) { return n < 2 ? n : serial_fib(n - 1) + serial_fib(n - 2); }

// 64 outer tasks, each an inner reduce over `inner` iterations.
std::uint64_t nested(fj::pool& p, std::uint64_t inner, bool isolated) {
  return p.run([&] {
    std::vector<std::uint64_t> parts(64);
    fj::parallel_for(0, 64, [&](int t) {
      auto loop = [&] {
        return fj::parallel_reduce(
            std::uint64_t{0}, inner, std::uint64_t{0},
            [t](std::uint64_t lo, std::uint64_t hi, std::uint64_t acc) {
              for (std::uint64_t i = lo; i < hi; ++i) acc += work(i + static_cast<std::uint64_t>(t));
              return acc;
            },
            std::plus<>{});
      };
      parts[static_cast<std::size_t>(t)] = isolated ? fj::isolate(loop) : loop();
    });
    std::uint64_t s = 0;
    for (std::uint64_t x : parts) s += x;
    return s;
  });
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 1.0;
  int reps = 5, fib_n = 30;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--seconds") == 0)
      seconds = std::atof(argv[i + 1]);
    else if (std::strcmp(argv[i], "--reps") == 0)
      reps = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--fib") == 0)
      fib_n = std::atoi(argv[i + 1]);
  }
  fj::pool p;
  std::printf("bench_waiting: %zu workers\n", p.num_threads());

  // Size the loop: about `seconds` on the whole pool, from a serial sample.
  const auto t0 = clock_type::now();
  const std::uint64_t sample = 1 << 22;
  if (serial_sum(sample) == 0) wrong("sample");
  const double per_iter = seconds_since(t0) / static_cast<double>(sample);
  const auto n = static_cast<std::uint64_t>(seconds * static_cast<double>(p.num_threads()) / per_iter);
  const std::uint64_t expect = serial_sum(n);

  std::vector<double> alone_on, alone_off, lat_on, lat_off;
  for (int r = 0; r < reps; ++r) {
    for (bool on : {true, false}) {
      fj::detail::g_loop_budget.store(on);
      auto t = clock_type::now();
      if (parallel_sum(p, n) != expect) wrong("loop sum");
      (on ? alone_on : alone_off).push_back(seconds_since(t));
      fairness_run fr = loop_with_submitter(p, n, expect);
      auto& lat = on ? lat_on : lat_off;
      lat.insert(lat.end(), fr.latencies_us.begin(), fr.latencies_us.end());
    }
  }
  fj::detail::g_loop_budget.store(true);
  std::printf("\n1. fairness: %.2f s parallel_reduce on every worker, 1 us jobs from outside\n", seconds);
  std::printf("%-12s %10s %10s %10s %10s %14s\n", "budget", "jobs", "p50_us", "p99_us", "max_us", "loop_alone_s");
  std::printf("%-12s %10zu %10.1f %10.1f %10.1f %14.4f\n", "on", lat_on.size(), percentile(lat_on, 0.5),
              percentile(lat_on, 0.99), percentile(lat_on, 1.0), median(alone_on));
  std::printf("%-12s %10zu %10.1f %10.1f %10.1f %14.4f\n", "off", lat_off.size(), percentile(lat_off, 0.5),
              percentile(lat_off, 0.99), percentile(lat_off, 1.0), median(alone_off));
  std::printf("loop time ratio on/off (the budget's cost): %.4f\n", median(alone_on) / median(alone_off));

  const long fib_expect = serial_fib(fib_n);
  const std::uint64_t inner = std::max<std::uint64_t>(n / 64 / 16, 1024);
  const std::uint64_t nested_expect = nested(p, inner, false);
  std::vector<double> fib_p, fib_i, nest_p, nest_i;
  for (int r = 0; r < reps; ++r) {
    auto t = clock_type::now();
    if (p.run([&] { return fib_plain(fib_n); }) != fib_expect) wrong("fib");
    fib_p.push_back(seconds_since(t));
    t = clock_type::now();
    if (p.run([&] { return fib_isolated(fib_n); }) != fib_expect) wrong("fib isolated");
    fib_i.push_back(seconds_since(t));
    t = clock_type::now();
    if (nested(p, inner, false) != nested_expect) wrong("nested");
    nest_p.push_back(seconds_since(t));
    t = clock_type::now();
    if (nested(p, inner, true) != nested_expect) wrong("nested isolated");
    nest_i.push_back(seconds_since(t));
  }
  std::printf("\n2. isolation: medians of %d, seconds\n", reps);
  std::printf("%-34s %10s %10s %8s\n", "workload", "plain", "isolated", "ratio");
  std::printf("%-34s %10.4f %10.4f %8.3f\n", ("fib(" + std::to_string(fib_n) + "), every join").c_str(), median(fib_p),
              median(fib_i), median(fib_i) / median(fib_p));
  std::printf("%-34s %10.4f %10.4f %8.3f\n", "64 tasks x inner parallel_reduce", median(nest_p), median(nest_i),
              median(nest_i) / median(nest_p));
  return 0;
}

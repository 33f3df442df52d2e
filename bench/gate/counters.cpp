// counters.cpp: the performance gate's counter checks, run natively at two workers. Counts,
// not times, so that they hold on a noisy machine (run_gate.py compares them with the limits
// in baseline.json):
//   back-to-back loops (2000 calls of a ~20 us parallel_for, inside one run and from
//   outside): sleepers woken per call (the idle window should keep worker 1 awake between
//   calls) and steals per call;
//   a loop worth ~40 us started on an idle pool (worker 1 parked): the share of its
//   iterations that worker 1 runs (median over 21 starts).
// Prints one JSON object; exits 1 if a loop computed a wrong answer.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "forkjoin/forkjoin.hpp"

namespace {

namespace fj = forkjoin;
using clock_type = std::chrono::steady_clock;

std::vector<float> g_a;

void axpy_loop(std::size_t n) {
  float* a = g_a.data();
  fj::parallel_for(std::size_t{0}, n, [a](std::size_t i) { a[i] = a[i] * 0.5f + 1; });
}

struct per_call {
  double wakes, steals;
};

per_call back_to_back(fj::pool& p, std::size_t n, int calls, bool inside) {
  for (int k = 0; k < 200; ++k) axpy_loop(n);  // warm: the site's rate and the workers' window
  const fj::pool::stats before = p.statistics();
  if (inside)
    p.run([&] {
      for (int k = 0; k < calls; ++k) axpy_loop(n);
    });
  else
    for (int k = 0; k < calls; ++k) axpy_loop(n);
  const fj::pool::stats after = p.statistics();
  return {static_cast<double>(after.wakes - before.wakes) / calls,
          static_cast<double>(after.steals - before.steals) / calls};
}

// The n whose serial loop takes about `us` microseconds here: the fastest of 200 timed
// passes over 2^16 elements (the fastest, so that a pass the OS interrupted does not count).
std::size_t size_for(double us) {
  std::vector<float> v(std::size_t{1} << 16, 1.0f);
  double best = 1e30;
  for (int rep = 0; rep < 200; ++rep) {
    const auto t0 = clock_type::now();
    for (float& x : v) x = x * 0.5f + 1;
    best = std::min(best, std::chrono::duration<double, std::nano>(clock_type::now() - t0).count());
  }
  if (v[0] == 0.0f) std::exit(3);  // keeps the loop
  const double ns_per = best / static_cast<double>(v.size());
  return static_cast<std::size_t>(us * 1000.0 / std::max(ns_per, 0.01));
}

// Worker 1's share of a loop started while it is parked.
double idle_share(fj::pool& p, std::size_t n) {
  std::vector<int> owner(n, -1);
  std::vector<double> shares;
  for (int trial = 0; trial < 21; ++trial) {
    const auto deadline = clock_type::now() + std::chrono::seconds(2);
    while (p.num_parked() < 1 && clock_type::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    fj::parallel_for(std::size_t{0}, n, [&owner](std::size_t i) { owner[i] = fj::this_worker_index(); });
    std::size_t mine = 0;
    for (int w : owner) {
      if (w != 0 && w != 1) {
        std::fprintf(stderr, "counters: an iteration ran on worker %d\n", w);
        std::exit(1);
      }
      mine += w == 1 ? 1 : 0;
    }
    shares.push_back(static_cast<double>(mine) / static_cast<double>(n));
    std::fill(owner.begin(), owner.end(), -1);
  }
  std::sort(shares.begin(), shares.end());
  return shares[shares.size() / 2];
}

}  // namespace

int main() {
  setenv("FORKJOIN_NUM_THREADS", "2", 1);
  fj::pool& p = fj::default_pool();
  if (p.num_threads() != 2) {
    std::fprintf(stderr, "counters: the default pool has %zu threads, not 2\n", p.num_threads());
    return 2;
  }
  const std::size_t n_b2b = std::max<std::size_t>(10000, size_for(20));
  const std::size_t n_idle = std::max<std::size_t>(10000, size_for(40));
  g_a.assign(std::max(n_b2b, n_idle), 0.0f);
  const int calls = 2000;
  const per_call in = back_to_back(p, n_b2b, calls, true);
  const per_call out = back_to_back(p, n_b2b, calls, false);
  const double share = idle_share(p, n_idle);
  // Every element went through the same number of applications: all equal, and not 0.
  for (std::size_t i = 0; i < n_b2b; ++i)
    if (g_a[i] != g_a[0] || g_a[0] == 0.0f) {
      std::fprintf(stderr, "counters: element %zu is %g, element 0 is %g\n", i, static_cast<double>(g_a[i]),
                   static_cast<double>(g_a[0]));
      return 1;
    }
  std::printf(
      "{\"n_back_to_back\": %zu, \"n_idle\": %zu, \"wakes_per_call_inside\": %.4f, \"wakes_per_call_outside\": %.4f, "
      "\"steals_per_call_inside\": %.3f, \"steals_per_call_outside\": %.3f, \"idle_share_worker1\": %.3f}\n",
      n_b2b, n_idle, in.wakes, out.wakes, in.steals, out.steals, share);
  return 0;
}

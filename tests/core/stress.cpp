// stress.cpp: randomized stress and soak program. Seeded (the seed is printed, --seed
// reproduces it). Each round picks a pool size and runs random scenarios from 1-8
// external submitter threads: join trees, task groups of 1 to 10^4 children, dependency
// graphs, nested loops of every schedule, reductions, random throws. Every result is checked against a serial
// model; a watchdog dumps what every thread is doing and aborts after --watchdog seconds
// without progress.
//
//   forkjoin_stress [--seconds S] [--seed N] [--watchdog W]
//   S defaults to FORKJOIN_SOAK_SECONDS, else 10.
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "forkjoin/forkjoin.hpp"

namespace fj = forkjoin;

namespace {

std::atomic<std::uint64_t> g_progress{0};  // bumped by every finished scenario
std::atomic<std::uint64_t> g_scenarios{0};

// What each submitter thread is doing, for the watchdog's dump.
constexpr int k_max_submitters = 8;
std::atomic<const char*> g_phase[k_max_submitters];
std::atomic<fj::pool*> g_current_pool{nullptr};

struct injected_failure {
  int code;
};

[[noreturn]] void fail(const std::string& what, std::uint64_t seed) {
  std::fprintf(stderr, "stress: FAILED: %s (seed %llu)\n", what.c_str(), static_cast<unsigned long long>(seed));
  std::fflush(stderr);
  std::abort();
}

fj::schedule random_schedule(std::mt19937_64& rng) {
  switch (rng() % 6) {
    case 0:
      return fj::schedule::auto_();
    case 1:
      return fj::schedule::auto_(1 + rng() % 64);
    case 2:
      return fj::schedule::static_();
    case 3:
      return fj::schedule::static_(1 + rng() % 16);
    case 4:
      return fj::schedule::dynamic(1 + rng() % 16);
    default:
      return fj::schedule::guided(1 + rng() % 8);
  }
}

// A join tree whose shape comes from `seed`; returns the sum of its leaf values. The same
// function run serially is the model. `throw_at` (>= 0) makes that leaf throw.
long join_tree(std::uint64_t seed, int depth, long throw_at) {
  if (depth == 0 || seed % 7 == 0) {
    if (throw_at >= 0 && static_cast<long>(seed % 1000) == throw_at)
      throw injected_failure{static_cast<int>(seed % 1000)};
    return static_cast<long>(seed % 1000);
  }
  const std::uint64_t a = seed * 6364136223846793005ull + 1442695040888963407ull;
  const std::uint64_t b = a * 6364136223846793005ull + 1442695040888963407ull;
  auto [x, y] = fj::join([&] { return join_tree(a >> 1, depth - 1, throw_at); },
                         [&] { return join_tree(b >> 1, depth - 1, throw_at); });
  return x + y;
}
long join_tree_serial(std::uint64_t seed, int depth) {
  if (depth == 0 || seed % 7 == 0) return static_cast<long>(seed % 1000);
  const std::uint64_t a = seed * 6364136223846793005ull + 1442695040888963407ull;
  const std::uint64_t b = a * 6364136223846793005ull + 1442695040888963407ull;
  return join_tree_serial(a >> 1, depth - 1) + join_tree_serial(b >> 1, depth - 1);
}

// The value of one leaf of that tree, reached by random turns: a throw_at that some leaf
// really matches, so that the throwing path runs whenever a scenario asks for it.
long random_leaf(std::uint64_t seed, int depth, std::mt19937_64& rng) {
  while (!(depth == 0 || seed % 7 == 0)) {
    const std::uint64_t a = seed * 6364136223846793005ull + 1442695040888963407ull;
    const std::uint64_t b = a * 6364136223846793005ull + 1442695040888963407ull;
    seed = (rng() % 2 == 0 ? a : b) >> 1;
    --depth;
  }
  return static_cast<long>(seed % 1000);
}

void scenario(fj::pool& p, std::mt19937_64& rng, std::uint64_t seed, int slot) {
  const int kind = static_cast<int>(rng() % 6);
  switch (kind) {
    case 0: {  // join tree, sometimes throwing
      g_phase[slot] = "join tree";
      const std::uint64_t s = rng();
      const int depth = 4 + static_cast<int>(rng() % 12);
      const long expect = join_tree_serial(s, depth);
      const bool do_throw = rng() % 4 == 0;
      const long throw_at = do_throw ? random_leaf(s, depth, rng) : -1;
      try {
        const long got = p.run([&] { return join_tree(s, depth, throw_at); });
        if (do_throw) fail("join tree: leaf " + std::to_string(throw_at) + " exists but nothing was thrown", seed);
        if (got != expect) fail("join tree sum " + std::to_string(got) + " != " + std::to_string(expect), seed);
      } catch (const injected_failure& e) {
        if (!do_throw) fail("join tree threw without an injected failure", seed);
        if (e.code != throw_at) fail("join tree rethrew the wrong exception", seed);
      }
      break;
    }
    case 1: {  // task group, exactly once per child
      g_phase[slot] = "task group";
      const std::size_t n = 1 + rng() % 10000;
      std::vector<std::atomic<int>> hits(n);
      const std::size_t throw_at = rng() % 3 == 0 ? rng() % n : n;
      bool threw = false;
      try {
        p.run([&] {
          fj::task_group g;
          for (std::size_t i = 0; i < n; ++i)
            g.run([&hits, i, throw_at] {
              hits[i].fetch_add(1, std::memory_order_relaxed);
              if (i == throw_at) throw injected_failure{static_cast<int>(i)};
            });
          g.wait();
        });
      } catch (const injected_failure& e) {
        threw = true;
        if (static_cast<std::size_t>(e.code) != throw_at) fail("task group rethrew the wrong exception", seed);
      }
      if (threw != (throw_at < n)) fail("task group exception lost or invented", seed);
      if (throw_at < n && hits[throw_at].load() != 1)
        fail("task group: the throwing child ran " + std::to_string(hits[throw_at].load()) + " times", seed);
      for (std::size_t i = 0; i < n; ++i) {
        const int h = hits[i].load();
        // A throw cancels children not yet started: each child ran at most once, and
        // exactly once when nothing threw.
        if (h > 1 || (throw_at >= n && h != 1))
          fail("task group child " + std::to_string(i) + " ran " + std::to_string(h) + " times", seed);
      }
      break;
    }
    case 2: {  // nested loops with random schedules
      g_phase[slot] = "nested loops";
      const int outer = 1 + static_cast<int>(rng() % 64), inner = 1 + static_cast<int>(rng() % 300);
      const fj::schedule so = random_schedule(rng), si = random_schedule(rng);
      std::vector<std::atomic<int>> hits(static_cast<std::size_t>(outer * inner));
      p.run([&] {
        fj::parallel_for(
            0, outer,
            [&](int i) {
              fj::parallel_for(
                  0, inner,
                  [&](int j) { hits[static_cast<std::size_t>(i * inner + j)].fetch_add(1, std::memory_order_relaxed); },
                  si);
            },
            so);
      });
      for (auto& h : hits)
        if (h.load() != 1) fail("nested loop index visited " + std::to_string(h.load()) + " times", seed);
      break;
    }
    case 3: {  // reduce, non-commutative combine keeps order
      g_phase[slot] = "reduce";
      const long n = static_cast<long>(rng() % 20000);
      const fj::schedule s = random_schedule(rng);
      // (a, len) pairs folded as a polynomial hash: associative, not commutative.
      using h = std::pair<std::uint64_t, std::uint64_t>;  // hash, 31^len
      auto combine = [](h x, h y) { return h{x.first * y.second + y.first, x.second * y.second}; };
      auto body = [](long i) { return h{static_cast<std::uint64_t>(i) + 1, 31}; };
      h expect{0, 1};
      for (long i = 0; i < n; ++i) expect = combine(expect, body(i));
      const h got = p.run([&] { return fj::parallel_reduce(0L, n, h{0, 1}, body, combine, s); });
      if (got != expect) fail("reduce lost order or elements", seed);
      break;
    }
    case 4: {  // dependency graph: each child once, after every predecessor; a throw skips
      g_phase[slot] = "dependency graph";
      constexpr int k_keys = 8;
      const std::size_t n = 1 + rng() % 3000;
      struct child {
        int key[2];
        fj::dependency::access mode[2];
      };
      std::vector<child> spec(n);
      for (auto& c : spec)
        for (int d = 0; d < 2; ++d) {
          c.key[d] = static_cast<int>(rng() % k_keys);
          c.mode[d] = static_cast<fj::dependency::access>(1 + rng() % 3);
        }
      const std::size_t throw_at = rng() % 4 == 0 ? rng() % n : n;
      std::vector<std::atomic<int>> hits(n);
      std::vector<std::int64_t> start(n, -1), end(n, -1);
      std::atomic<std::int64_t> clock{0};
      std::array<char, k_keys> keys{};
      bool threw = false;
      try {
        p.run([&] {
          fj::task_group g;
          for (std::size_t i = 0; i < n; ++i) {
            const child& c = spec[i];
            g.run(fj::dependency{&keys[static_cast<std::size_t>(c.key[0])], c.mode[0]},
                  fj::dependency{&keys[static_cast<std::size_t>(c.key[1])], c.mode[1]}, [&, i, throw_at] {
                    hits[i].fetch_add(1, std::memory_order_relaxed);
                    start[i] = clock.fetch_add(1);
                    if (i == throw_at) throw injected_failure{static_cast<int>(i)};
                    end[i] = clock.fetch_add(1);
                  });
          }
          g.wait();
        });
      } catch (const injected_failure& e) {
        threw = true;
        if (static_cast<std::size_t>(e.code) != throw_at) fail("dependency graph rethrew the wrong exception", seed);
      }
      if (threw != (throw_at < n)) fail("dependency graph exception lost or invented", seed);
      // The serial model's edges: an in after the key's last writer, a writer after it and
      // every in since (a key named twice counts once, with the union of its modes).
      std::array<long, k_keys> writer;
      writer.fill(-1);
      std::array<std::vector<std::size_t>, k_keys> readers;
      for (std::size_t i = 0; i < n; ++i) {
        const int h = hits[i].load();
        if (h > 1 || (!threw && h != 1))
          fail("dependency child " + std::to_string(i) + " ran " + std::to_string(h) + " times", seed);
        const child& c = spec[i];
        for (int d = 0; d < 2; ++d) {
          if (d == 1 && c.key[1] == c.key[0]) break;
          unsigned mode = static_cast<unsigned>(c.mode[d]);
          if (d == 0 && c.key[1] == c.key[0]) mode |= static_cast<unsigned>(c.mode[1]);
          const auto k = static_cast<std::size_t>(c.key[d]);
          auto before = [&](std::size_t from) {
            // only children that both ran and ended are ordered (a throw skips the rest)
            if (h == 1 && end[from] >= 0 && !(end[from] < start[i]))
              fail("dependency child " + std::to_string(i) + " started before " + std::to_string(from) + " ended",
                   seed);
            if (h == 1 && hits[from].load() == 0) fail("dependency child ran before a skipped predecessor", seed);
            if (h == 1 && hits[from].load() == 1 && end[from] < 0)
              fail("dependency child " + std::to_string(i) + " ran after its predecessor threw", seed);
          };
          if (writer[k] >= 0) before(static_cast<std::size_t>(writer[k]));
          if (mode == 1) {
            readers[k].push_back(i);
          } else {
            for (std::size_t r : readers[k]) before(r);
            readers[k].clear();
            writer[k] = static_cast<long>(i);
          }
        }
      }
      break;
    }
    default: {  // loop body throws: rethrown once, pool stays usable
      g_phase[slot] = "throwing loop";
      const int n = 1 + static_cast<int>(rng() % 5000);
      const int at = static_cast<int>(rng() % static_cast<unsigned>(n));
      const fj::schedule s = random_schedule(rng);
      try {
        p.run([&] {
          fj::parallel_for(
              0, n,
              [&](int i) {
                if (i == at) throw injected_failure{i};
              },
              s);
        });
        fail("loop exception lost", seed);
      } catch (const injected_failure& e) {
        if (e.code != at) fail("loop rethrew the wrong exception", seed);
      }
      break;
    }
  }
  g_phase[slot] = "idle";
  g_scenarios.fetch_add(1, std::memory_order_relaxed);
  g_progress.fetch_add(1, std::memory_order_relaxed);
}

void watchdog(std::atomic<bool>& stop, int limit_s, std::uint64_t seed) {
  std::uint64_t last = g_progress.load();
  auto last_change = std::chrono::steady_clock::now();
  while (!stop.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const std::uint64_t now = g_progress.load();
    if (now != last) {
      last = now;
      last_change = std::chrono::steady_clock::now();
      continue;
    }
    if (std::chrono::steady_clock::now() - last_change > std::chrono::seconds(limit_s)) {
      std::fprintf(stderr, "stress: WATCHDOG: no progress for %d s (seed %llu)\n", limit_s,
                   static_cast<unsigned long long>(seed));
      if (fj::pool* p = g_current_pool.load()) {
        const auto st = p->statistics();
        std::fprintf(stderr,
                     "  pool: %zu threads, %zu sleeping, steals %llu, attempts %llu, lost races %llu, parks %llu\n",
                     p->num_threads(), p->num_sleeping(), static_cast<unsigned long long>(st.steals),
                     static_cast<unsigned long long>(st.steal_attempts), static_cast<unsigned long long>(st.lost_races),
                     static_cast<unsigned long long>(st.parks));
      }
      for (int i = 0; i < k_max_submitters; ++i)
        if (const char* ph = g_phase[i].load()) std::fprintf(stderr, "  submitter %d: %s\n", i, ph);
      std::fflush(stderr);
      std::abort();  // a core dump (or gdb) shows every worker's stack
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 10;
  if (const char* env = std::getenv("FORKJOIN_SOAK_SECONDS")) seconds = std::atof(env);
  std::uint64_t seed = std::random_device{}();
  int watchdog_s = 60;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--seconds"))
      seconds = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seed"))
      seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--watchdog"))
      watchdog_s = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: %s [--seconds S] [--seed N] [--watchdog W]\n", argv[0]);
      return 2;
    }
  }
  std::printf("stress: seed %llu, %.0f s, watchdog %d s\n", static_cast<unsigned long long>(seed), seconds, watchdog_s);
  std::fflush(stdout);

  std::atomic<bool> stop{false};
  std::thread dog(watchdog, std::ref(stop), watchdog_s, seed);
  std::mt19937_64 rng(seed);
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  constexpr std::size_t k_sizes[] = {1, 2, 3, 4, 7, 8, 16};
  std::uint64_t rounds = 0;
  while (std::chrono::steady_clock::now() < end) {
    fj::pool p(k_sizes[rng() % std::size(k_sizes)]);
    g_current_pool = &p;
    const int submitters = 1 + static_cast<int>(rng() % k_max_submitters);
    const int per_thread = 1 + static_cast<int>(rng() % 20);
    std::vector<std::thread> threads;
    for (int t = 0; t < submitters; ++t) {
      const std::uint64_t thread_seed = rng();
      threads.emplace_back([&p, thread_seed, per_thread, t, seed] {
        std::mt19937_64 r(thread_seed);
        for (int k = 0; k < per_thread; ++k) scenario(p, r, seed, t);
      });
    }
    for (auto& t : threads) t.join();
    g_current_pool = nullptr;
    ++rounds;
  }
  stop = true;
  dog.join();
  std::printf("stress: passed: %llu rounds, %llu scenarios (seed %llu)\n", static_cast<unsigned long long>(rounds),
              static_cast<unsigned long long>(g_scenarios.load()), static_cast<unsigned long long>(seed));
  return 0;
}

// icount.cpp: the hot paths the performance gate counts instructions of (run_gate.py runs
// this under valgrind's callgrind with collection off, and each operation turns it on
// around K repetitions of itself). Deterministic by construction: the default pool has two
// workers and worker 1 is held inside a job for the whole run, so nobody is idle, nothing
// is stolen, no wake-up happens and the main thread runs every path alone; the loop
// engine still sees a team of two (two blocks, its joins and claims) as in a real call.
// The loops' budget is off and their rate is fixed (10 iterations per nanosecond, the axpy
// body's speed natively): clock-driven slices and a measured rate would make the count, and
// the path a loop takes, depend on time.
//
//   icount OPERATION   (icount --list prints each operation with the units its count is
//                       divided by: repetitions times joins or children per repetition)
//
// Prints "OPERATION K checksum"; exits 1 on a wrong answer.
#include <valgrind/callgrind.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "forkjoin/forkjoin.hpp"

namespace {

namespace fj = forkjoin;

std::vector<float> g_a(100000);
long g_sink = 0;

long fib(int n) {
  if (n < 2) return n;
  auto [a, b] = fj::join([n] { return fib(n - 1); }, [n] { return fib(n - 2); });
  return a + b;
}

template <class Body>
void loop(std::size_t n, Body body, fj::schedule s) {
  fj::parallel_for(std::size_t{0}, n, body, s);
}

struct operation {
  const char* name;
  long reps;                 // repetitions between the collection toggles
  std::function<long()> op;  // one repetition; returns something to check
  long expected;             // the sum of op() over the repetitions, or -1 to skip the check
  bool inside;               // run inside one default_pool().run (else every call from main)
  long per = 1;              // units in one repetition (joins, children): the count is per unit
};

void axpy(std::size_t i) { g_a[i] = g_a[i] * 0.5f + 1; }

std::vector<operation> operations() {
  using fj::schedule;
  auto for_op = [](std::size_t n, schedule s) {
    return [n, s]() -> long {
      loop(
          n, [](std::size_t i) { axpy(i); }, s);
      return 0;
    };
  };
  std::vector<operation> ops = {
      {"join", 20000,
       [] {
         auto [a, b] = fj::join([] { return 1L; }, [] { return 2L; });
         return a + b;
       },
       3 * 20000, true},
      {"join_in_fib20", 10, [] { return fib(20); }, 10 * 6765, true, 10945},  // fib(20) makes 10945 joins
      {"task_group_child", 20000,
       [] {
         fj::task_group g;
         long x = 0;
         g.run([&x] { x = 1; });
         g.wait();
         return x;
       },
       20000, true},
      {"dependent_child", 200,
       [] {
         fj::task_group g;
         long cells[64] = {};
         for (int i = 0; i < 64 * 4; ++i) g.run(fj::inout(cells[i % 64]), [&cells, i] { cells[i % 64] += i; });
         g.wait();
         long s = 0;
         for (long c : cells) s += c;
         return s;
       },
       200L * (64 * 4) * (64 * 4 - 1) / 2, true, 64 * 4},
  };
  const std::pair<const char*, schedule> scheds[] = {
      {"auto", schedule::auto_()}, {"static", schedule::static_()}, {"dynamic", schedule::dynamic(256)}};
  for (auto [sname, s] : scheds)
    for (std::size_t n : {std::size_t{1000}, std::size_t{100000}})
      for (bool inside : {true, false}) {
        static std::vector<std::string> names;  // operation::name outlives this function
        names.push_back(std::string("for_") + sname + "_" + std::to_string(n) + (inside ? "_inside" : "_outside"));
        ops.push_back({nullptr, n == 1000 ? 2000L : 20L, for_op(n, s), -1, inside});
        ops.back().name = names.back().c_str();
      }
  ops.push_back({"reduce_100000", 20,
                 [] {
                   return fj::parallel_reduce(
                       0, 100000, 0L,
                       [](int b, int e, long acc) {
                         for (int i = b; i < e; ++i) acc += i;
                         return acc;
                       },
                       std::plus<>());
                 },
                 20L * (100000L * 99999L / 2), true});
  return ops;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<operation> ops = operations();
  if (argc == 2 && !std::strcmp(argv[1], "--list")) {
    for (const operation& o : ops) std::printf("%s %ld\n", o.name, o.reps * o.per);
    return 0;
  }
  if (argc != 2) {
    std::fputs("usage: icount OPERATION | --list\n", stderr);
    return 2;
  }
  const operation* op = nullptr;
  for (const operation& o : ops)
    if (!std::strcmp(o.name, argv[1])) op = &o;
  if (op == nullptr) {
    std::fprintf(stderr, "icount: no operation %s\n", argv[1]);
    return 2;
  }
  setenv("FORKJOIN_NUM_THREADS", "2", 1);
  fj::detail::g_loop_budget.store(false, std::memory_order_relaxed);
  fj::detail::g_loop_fixed_rate.store(10 * fj::detail::loop_budget::k_slice_ns, std::memory_order_relaxed);
  fj::pool& p = fj::default_pool();
  if (p.num_threads() != 2) {
    std::fprintf(stderr, "icount: the default pool has %zu threads, not 2\n", p.num_threads());
    return 2;
  }

  // Hold worker 1: a child of a group that outlives the measurement, parked on a flag.
  std::atomic<int> held{0}, release{0};
  fj::task_group holder_group;
  p.run([&] {  // the child is published at once; wait here until worker 1 has taken it
    holder_group.run([&] {
      held.store(1, std::memory_order_release);  // pairs with main's acquire load below
      while (release.load(std::memory_order_acquire) == 0) release.wait(0, std::memory_order_acquire);
    });
    while (held.load(std::memory_order_acquire) == 0) std::this_thread::yield();  // pairs with the store above
  });

  long sum = 0;
  auto repeat = [&] {
    for (long k = 0; k < op->reps; ++k) sum += op->op();
  };
  op->op();  // warm: first-touch allocations (free lists, dependency state) stay out of the count
  CALLGRIND_TOGGLE_COLLECT;
  if (op->inside)
    p.run(repeat);
  else
    repeat();
  CALLGRIND_TOGGLE_COLLECT;

  release.store(1, std::memory_order_release);  // pairs with the holder's acquire load
  release.notify_all();
  p.run([&] { holder_group.wait(); });
  for (std::size_t i = 0; i < g_a.size(); ++i) g_sink += static_cast<long>(g_a[i]);
  if (op->expected >= 0 && sum != op->expected) {
    std::fprintf(stderr, "icount: %s computed %ld, expected %ld\n", op->name, sum, op->expected);
    return 1;
  }
  std::printf("%s %ld %ld\n", op->name, op->reps, sum);
  return 0;
}

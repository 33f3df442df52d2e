// doc_snippets.cpp: the C++ code of README.md and docs/tracing.md, word for word between the
// "[doc:NAME]" and "[/doc]" lines (.ci/check_docs.py checks that each snippet matches), with
// the definitions around it that make it a program. Run by ctest as example_doc_snippets:
// it checks what the snippets computed, so the docs' code compiles, runs and is right.
// clang-format off
// [doc:tour-join]
#include <forkjoin/forkjoin.hpp>

long fib(int n) {                                  // fork-join by join: g lives on this frame
  if (n < 2) return n;
  auto [a, b] = forkjoin::join([&] { return fib(n - 1); }, [&] { return fib(n - 2); });
  return a + b;
}
// [/doc]
// clang-format on

#include <unistd.h>

#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <numeric>
#include <vector>

namespace {

int failures = 0;
void check(bool ok, const char* what) {
  std::printf("%-40s %s\n", what, ok ? "ok" : "WRONG");
  if (!ok) ++failures;
}

// What the tour's snippets call.
std::atomic<int> worked{0};
void work(int i) { worked.fetch_add(i, std::memory_order_relaxed); }
int produce() { return 20; }
int transform(int v) { return v + 1; }
void update(int& v) { v *= 3; }
std::atomic<int> invoked{0};
void a() { invoked.fetch_add(1); }
void b() { invoked.fetch_add(10); }
void c() { invoked.fetch_add(100); }
std::size_t key(int i) { return static_cast<std::size_t>(i) % 256; }

void tour_basics() {
  int x = 0, y = 0, z = 2;
  std::vector<int> v{5, 3, 9, 1, 7};
  auto comp = std::greater<>();
  // clang-format off
  // [doc:tour-basics]
  forkjoin::pool pool(4);                            // or forkjoin::default_pool()
  long r = pool.run([] { return fib(30); });         // the caller works as worker 0

  forkjoin::task_group g;                            // any number of children
  for (int i = 0; i < 100; ++i) g.run([i] { work(i); });
  g.wait();                                          // helps, then rethrows the first exception

  forkjoin::task_group h;                            // OpenMP's task depend: ordered by what they read and write
  h.run(forkjoin::out(x), [&] { x = produce(); });
  h.run(forkjoin::in(x), forkjoin::out(y), [&] { y = transform(x); });  // after the first
  h.run(forkjoin::inout(z), [&] { update(z); });                        // independent of both
  h.wait();

  forkjoin::parallel_sort(v.begin(), v.end());                 // in place; any comparator
  forkjoin::parallel_stable_sort(v.begin(), v.end(), comp);    // one buffer of v.size()

  forkjoin::parallel_invoke([] { a(); }, [] { b(); }, [] { c(); });
  int w = forkjoin::this_worker_index();             // 0..N-1 inside a pool, -1 outside
  // [/doc]
  // clang-format on
  check(r == 832040, "tour: fib(30) by join");
  check(worked.load() == 4950, "tour: task_group");
  check(x == 20 && y == 21 && z == 6, "tour: task dependencies");
  check(v == std::vector<int>{9, 7, 5, 3, 1}, "tour: sorts");
  check(invoked.load() == 111 && w == -1, "tour: parallel_invoke, worker index");
}

void tour_waiting() {
  std::mutex m;
  const int n = 1000;
  std::atomic<long> sum{0};
  auto body = [&](int i) { sum.fetch_add(i, std::memory_order_relaxed); };
  int fds[2];
  if (pipe(fds) != 0 || write(fds[1], "tour", 4) != 4) std::abort();
  const int fd = fds[0];
  char buf[8] = {};
  const std::size_t len = 4;
  ssize_t got = 0;
  // clang-format off
  // [doc:tour-waiting]
  std::lock_guard lock(m);                           // held across a parallel loop:
  forkjoin::isolate([&] { forkjoin::parallel_for(0, n, body); });  // its waits run only its own jobs
  forkjoin::blocking([&] { got = read(fd, buf, len); });  // a spare thread keeps the pool busy meanwhile
  forkjoin::yield_now();                             // serve work submitted from outside, then resume
  forkjoin::pool_options o; o.flush_denormals = true;  // workers run with FTZ/DAZ
  // [/doc]
  // clang-format on
  forkjoin::pool ftz(o);
  close(fds[0]);
  close(fds[1]);
  check(sum.load() == 499500 && got == 4 && ftz.num_threads() >= 1, "tour: isolate, blocking, options");
}

void stencil(int i0, int i1, int j0, int j1, std::atomic<long>& points) {
  points.fetch_add(static_cast<long>(i1 - i0) * (j1 - j0), std::memory_order_relaxed);
}

void tour_loops() {
  const int n = 1000;
  std::vector<int> v(static_cast<std::size_t>(n), 1);
  std::vector<double> x(static_cast<std::size_t>(n), 0.5), y(static_cast<std::size_t>(n));
  std::atomic<long> calls{0}, points{0};
  auto body = [&](int) { calls.fetch_add(1, std::memory_order_relaxed); };
  auto pred = [](int e) { return e == 2; };
  // clang-format off
  // [doc:tour-loops]
  forkjoin::parallel_for(0, v.size(), [&](std::size_t i) { v[i] *= 2; });          // auto_: block t on worker t, split on demand
  forkjoin::parallel_for(0, n, body, forkjoin::schedule::dynamic(64));              // schedule(dynamic, 64)
  double s = forkjoin::parallel_reduce(0, n, 0.0,  // 0.0: the identity of +, starting every chunk
      [&](int b, int e, double acc) { return std::reduce(x.data() + b, x.data() + e, acc); },  // chunk form
      std::plus<>());                                                             // reduction(+)
  forkjoin::parallel_for_2d(1, n - 1, 1, n - 1, [&](int i0, int i1, int j0, int j1) { stencil(i0, i1, j0, j1, points); });  // collapse(2)
  forkjoin::parallel_for(0, n, body, forkjoin::schedule::num_tasks(8));              // taskloop num_tasks(8)
  forkjoin::parallel_inclusive_scan(x.begin(), x.end(), y.begin());                  // same bits on any thread count
  auto it = forkjoin::parallel_find_if(v.begin(), v.end(), pred);                    // std::find_if's answer, early exit
  forkjoin::per_worker<std::array<long, 256>> hist;                                  // threadprivate / tbb::combinable
  forkjoin::parallel_for(0, n, [&](int i) { hist.local()[key(i)]++; });
  // [/doc]
  // clang-format on
  long binned = 0;
  hist.for_each([&](const std::array<long, 256>& h) { binned += std::accumulate(h.begin(), h.end(), 0L); });
  check(v[0] == 2 && it == v.begin() && calls.load() == 2 * n, "tour: parallel_for, find_if");
  check(s == 0.5 * n && y.back() == 0.5 * n, "tour: reduce, scan");
  check(points.load() == static_cast<long>(n - 2) * (n - 2) && binned == n, "tour: 2-D loop, per_worker");
}

void tracing_options() {
  // clang-format off
  // [doc:tracing-options]
  forkjoin::pool_options o;
  o.trace_path = "trace.json";   // empty: FORKJOIN_TRACE, if set
  o.trace_events = 100'000;      // per worker; 0: FORKJOIN_TRACE_EVENTS, else 1,000,000
  forkjoin::pool p(o);
  // [/doc]
  // clang-format on
  check(p.run([] { return fib(20); }) == 6765, "tracing.md: a traced pool");
}

}  // namespace

int main() {
  tour_basics();
  tour_waiting();
  tour_loops();
  tracing_options();
  if (std::FILE* f = std::fopen("trace.json", "r")) {  // written when the traced pool ended
    std::fclose(f);
    std::remove("trace.json");
  } else {
    check(false, "tracing.md: the pool wrote trace.json");
  }
  return failures == 0 ? 0 : 1;
}

// kmpc_cxx: what clang's C++ code adds: firstprivate class objects in tasks, destroyed by the
// runtime through the task's destructors thunk (deferred, if(0), final), taskloop copies built
// by the compiler's task_dup (firstprivate and lastprivate objects), copyprivate and
// user-defined reductions of class types, and threadprivate class objects without TLS
// (__kmpc_threadprivate_register, built with -fnoopenmp-use-tls). Every object constructed is
// destroyed exactly once.
#include <omp.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CHECK(cond)                                                                 \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

namespace {
std::atomic<long> live{0};

struct tracked {
  std::vector<int> data;
  tracked() : data(8, 1) { live.fetch_add(1, std::memory_order_relaxed); }
  tracked(const tracked& o) : data(o.data) { live.fetch_add(1, std::memory_order_relaxed); }
  tracked& operator=(const tracked& o) {
    data = o.data;
    return *this;
  }
  ~tracked() { live.fetch_sub(1, std::memory_order_relaxed); }
  int sum() const {
    int s = 0;
    for (int v : data) s += v;
    return s;
  }
};

struct counter_tp {
  int value;
  std::string tag;
  counter_tp() : value(11), tag("initial") {}
};
counter_tp tp;
#pragma omp threadprivate(tp)

struct bag {
  long total = 0;
  int items = 0;
};
}  // namespace

#pragma omp declare reduction(merge:bag                                                       \
                              : omp_out.total += omp_in.total, omp_out.items += omp_in.items) \
    initializer(omp_priv = bag())

int main() {
  {
    tracked t;
    std::atomic<int> sums{0};
#pragma omp parallel
#pragma omp single
    {
      for (int k = 0; k < 100; ++k) {
#pragma omp task firstprivate(t) shared(sums)
        sums.fetch_add(t.sum(), std::memory_order_relaxed);
      }
#pragma omp task if (0) firstprivate(t) shared(sums)
      sums.fetch_add(t.sum(), std::memory_order_relaxed);
#pragma omp task final(1) firstprivate(t) shared(sums)
      {
#pragma omp task firstprivate(t) shared(sums)
        sums.fetch_add(t.sum(), std::memory_order_relaxed);
      }
    }
    CHECK(sums.load() == 102 * 8);
    CHECK(live.load() == 1);  // only t itself: every task's copy was destroyed

    tracked last;
    long n = 0;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(10) firstprivate(t) lastprivate(last) reduction(+ : n)
    for (int i = 0; i < 200; ++i) {
      n += t.sum();
      last.data.assign(1, i);
    }
    CHECK(n == 200 * 8);
    CHECK(last.data.size() == 1 && last.data[0] == 199);
    CHECK(live.load() == 2);
  }
  CHECK(live.load() == 0);

  // copyprivate of a class, a user-defined reduction of one
  {
    int ok = 0, team = 1;
    bag b;
#pragma omp parallel reduction(+ : ok) reduction(merge : b)
    {
      std::string s;
#pragma omp single copyprivate(s)
      {
        team = omp_get_num_threads();
        s = "shared by copyprivate";
      }
      ok += s == "shared by copyprivate";
      b.total += omp_get_thread_num();
      b.items += 1;
    }
    CHECK(ok == team);
    CHECK(b.items == team && b.total == static_cast<long>(team) * (team - 1) / 2);
  }

  // threadprivate class objects: constructed per thread, kept across regions
  {
    int bad = 0, team = 1;
#pragma omp parallel reduction(+ : bad)
    {
#pragma omp single
      team = omp_get_num_threads();
      if (tp.value != 11 || tp.tag != "initial") ++bad;
      tp.value = 100 + omp_get_thread_num();
    }
#pragma omp parallel reduction(+ : bad)
    {
      if (omp_get_num_threads() == team && tp.value != 100 + omp_get_thread_num()) ++bad;
    }
    CHECK(bad == 0);
  }
  std::printf("kmpc_cxx: ok\n");
  return 0;
}

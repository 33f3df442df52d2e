// cancel_copies: tasks of a cancelled taskgroup whose firstprivate C++ objects were copied
// when they were created still destroy those copies (their bodies, which hold the
// destructor calls, run to their first cancellation point). Every task below depends on the
// one that cancels, so none can start before the cancellation; all are created before it.
// Run with OMP_CANCELLATION=true and without it.
#include <omp.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace {

std::atomic<int> live{0};    // objects constructed and not destroyed
std::atomic<int> copies{0};  // copy constructions

struct counted {
  int value = 1;
  counted() { live.fetch_add(1); }
  counted(const counted& other) : value(other.value) {
    live.fetch_add(1);
    copies.fetch_add(1);
  }
  counted& operator=(const counted&) = delete;
  ~counted() { live.fetch_sub(1); }
};

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "cancel_copies: check failed: %s\n", what);
    std::exit(1);
  }
}

constexpr int k_tasks = 50;

}  // namespace

int main() {
  const bool on = omp_get_cancellation() != 0;
  for (int rep = 0; rep < 20; ++rep) {
    int ran = 0;
    {
      counted object;
      std::atomic<bool> created{false};
#pragma omp parallel num_threads(2)
#pragma omp single
      {
        int x = 0;
#pragma omp taskgroup
        {
          // runs on the other thread (or at the taskgroup's end) once every dependent exists
#pragma omp task depend(out : x) shared(x, created)
          {
            while (!created.load()) {
            }
            x = 1;
#pragma omp cancel taskgroup
          }
          for (int k = 0; k < k_tasks; ++k) {
#pragma omp task depend(in : x) firstprivate(object) shared(ran)
            {
#pragma omp cancellation point taskgroup
#pragma omp atomic
              ran += object.value;
            }
          }
          created.store(true);
        }
      }
    }
    check(copies.load() >= k_tasks * (rep + 1), "every task got its copy");
    check(live.load() == 0, "every copy was destroyed");
    check(ran == (on ? 0 : k_tasks), "the bodies stopped at their cancellation point");
  }
  std::printf("cancel_copies: ok (cancellation %s)\n", on ? "on" : "off");
  return 0;
}

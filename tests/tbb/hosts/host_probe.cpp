// host_probe: a library the host checks (tests/tbb/hosts/*.sh) preload into a program they do
// not build (flexbar, Embree's pathtracer), to learn from inside it what it mapped and how many
// threads it ran. It wraps pthread_create and logs each thread's start and end; when the program
// exits it writes to the file FORKJOIN_HOST_PROBE names:
//   started N                    threads started (created with pthread_create)
//   most_alive N                 the most alive at once, the main thread included
//   most_alive_without_spares N  the same, not counting forkjoin's spare threads (forkjoin-spare:
//                                started while a pool thread blocks, in its place)
//   most_spares N                the most spare threads alive at once
//   ended NAME                   each thread that ended, in order
//   thread NAME                  each thread alive at exit but the main one
//   map PATH                     each file mapped at exit
// Only in the process whose /proc/self/exe is FORKJOIN_HOST_PROBE_EXE (the launcher's helpers,
// readelf and stat, inherit the preload too); elsewhere, and where the variables are unset, it
// only passes pthread_create on.
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <vector>

namespace {

using create_fn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

struct thread_record {
  pthread_t self;
  std::string name;  // set when the thread ends, or at exit
  bool ended = false;
};

struct event {
  std::size_t thread;
  bool start;
};

// The log, never destroyed: threads may still start and end while the process exits.
struct thread_log {
  std::mutex mutex;
  std::vector<thread_record> threads;
  std::vector<event> events;  // in the order they happened (under the mutex)
};

thread_log& the_log() {
  static thread_log* log = new thread_log();
  return *log;
}

// Whether this process is the program under test: its executable is FORKJOIN_HOST_PROBE_EXE.
bool probed() {
  static const bool yes = [] {
    const char* want = std::getenv("FORKJOIN_HOST_PROBE_EXE");
    if (want == nullptr || std::getenv("FORKJOIN_HOST_PROBE") == nullptr) return false;
    char exe[4096];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return false;
    exe[n] = '\0';
    return std::strcmp(exe, want) == 0;
  }();
  return yes;
}

struct start_args {
  void* (*fn)(void*);
  void* arg;
};

// Logs the thread's start, and its end on every way out of it: a return, pthread_exit and
// cancellation (both unwind the thread's stack in C++).
class thread_guard {
 public:
  thread_guard() {
    thread_log& log = the_log();
    const std::lock_guard<std::mutex> lock(log.mutex);
    index_ = log.threads.size();
    log.threads.push_back({pthread_self(), {}, false});
    log.events.push_back({index_, true});
  }
  ~thread_guard() {
    char name[16] = "";
    pthread_getname_np(pthread_self(), name, sizeof name);
    thread_log& log = the_log();
    const std::lock_guard<std::mutex> lock(log.mutex);
    log.threads[index_].name = name;
    log.threads[index_].ended = true;
    log.events.push_back({index_, false});
  }
  thread_guard(const thread_guard&) = delete;
  thread_guard& operator=(const thread_guard&) = delete;

 private:
  std::size_t index_ = 0;
};

void* trampoline(void* p) {
  const start_args a = *static_cast<start_args*>(p);
  delete static_cast<start_args*>(p);
  const thread_guard guard;
  return a.fn(a.arg);
}

void write_threads(FILE* out) {
  thread_log& log = the_log();
  const std::lock_guard<std::mutex> lock(log.mutex);
  for (thread_record& t : log.threads) {
    if (t.ended) continue;
    char name[16] = "";
    pthread_getname_np(t.self, name, sizeof name);
    t.name = name;
  }
  const auto spare = [&](std::size_t i) { return log.threads[i].name == "forkjoin-spare"; };
  int alive = 1, others = 1, spares = 0;  // the main thread
  int most = 1, most_others = 1, most_spares = 0;
  for (const event& e : log.events) {
    const int step = e.start ? 1 : -1;
    alive += step;
    (spare(e.thread) ? spares : others) += step;
    most = std::max(most, alive);
    most_others = std::max(most_others, others);
    most_spares = std::max(most_spares, spares);
  }
  std::fprintf(out, "started %zu\nmost_alive %d\nmost_alive_without_spares %d\nmost_spares %d\n", log.threads.size(),
               most, most_others, most_spares);
  for (const thread_record& t : log.threads) {
    if (t.ended) std::fprintf(out, "ended %s\n", t.name.c_str());
  }
}

void write_report() {
  FILE* out = std::fopen(std::getenv("FORKJOIN_HOST_PROBE"), "w");
  if (out == nullptr) return;
  write_threads(out);
  if (DIR* tasks = opendir("/proc/self/task")) {
    while (const dirent* e = readdir(tasks)) {
      if (e->d_name[0] == '.' || std::atol(e->d_name) == getpid()) continue;
      const std::string comm = std::string("/proc/self/task/") + e->d_name + "/comm";
      char name[64] = "";
      if (FILE* f = std::fopen(comm.c_str(), "r")) {
        if (std::fgets(name, sizeof name, f) == nullptr) name[0] = '\0';
        std::fclose(f);
      }
      name[std::strcspn(name, "\n")] = '\0';
      std::fprintf(out, "thread %s\n", name);
    }
    closedir(tasks);
  }
  std::set<std::string> files;
  if (FILE* maps = std::fopen("/proc/self/maps", "r")) {
    char line[8192];
    while (std::fgets(line, sizeof line, maps) != nullptr) {
      const char* slash = std::strchr(line, '/');
      if (slash == nullptr) continue;
      std::string file(slash);
      if (!file.empty() && file.back() == '\n') file.pop_back();
      files.insert(file);
    }
    std::fclose(maps);
  }
  for (const std::string& f : files) std::fprintf(out, "map %s\n", f.c_str());
  std::fclose(out);
}

// exit runs the destructors but unmaps nothing: every library the program loaded is listed.
__attribute__((destructor)) void at_exit() {
  if (probed()) write_report();
}

}  // namespace

extern "C" int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*fn)(void*), void* arg) {
  static const auto next = reinterpret_cast<create_fn>(dlsym(RTLD_NEXT, "pthread_create"));
  if (!probed()) return next(thread, attr, fn, arg);
  auto* a = new (std::nothrow) start_args{fn, arg};
  if (a == nullptr) return EAGAIN;
  const int error = next(thread, attr, &trampoline, a);
  if (error != 0) delete a;
  return error;
}

// threads_held.hpp: how many threads the process holds, for the one-pool tests: the main
// thread and those forkjoin names ("forkjoin*") in /proc/self/task, so that a sanitizer's
// own thread is not counted; note_max keeps the most seen; mapped says whether a library of
// that name is loaded.
#pragma once

#include <dirent.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <fstream>
#include <string>

inline std::size_t process_threads() {
  std::size_t n = 0;
  const std::string main_tid = std::to_string(getpid());
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      std::ifstream comm(std::string("/proc/self/task/") + e->d_name + "/comm");
      std::string name;
      std::getline(comm, name);
      if (e->d_name == main_tid || name.rfind("forkjoin", 0) == 0) ++n;
    }
    closedir(d);
  }
  return n;
}

inline void note_max(std::atomic<std::size_t>& max_seen) {
  const std::size_t now = process_threads();
  std::size_t m = max_seen.load(std::memory_order_relaxed);
  while (now > m && !max_seen.compare_exchange_weak(m, now)) {
  }
}

inline bool mapped(const char* name) {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find(name) != std::string::npos) return true;
  return false;
}

// affinity.hpp: the affinity format and OMP_DISPLAY_AFFINITY (affinity.cpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <string>

namespace forkjoin::omp {

// ---- affinity display (affinity.cpp) -----------------------------------------------------

const char* default_affinity_format() noexcept;
bool valid_affinity_format(const char* format, std::string& error);  // error: why not
void set_affinity_format(const char* format, std::size_t length);
// `fortran`: the result is blank-padded to size without a terminator (Fortran's character
// arguments); else NUL-terminated within size. Both return the full length.
std::size_t get_affinity_format(char* buffer, std::size_t size, bool fortran);
std::size_t capture_affinity(char* buffer, std::size_t size, const char* format, bool fortran);
void display_affinity(const char* format);  // format null or empty: the affinity-format-var
// OMP_DISPLAY_AFFINITY, set once with the configuration; start_turn calls show_affinity, which
// prints the calling team thread's line when its team displays, or when the line differs
// from the last one that team thread printed ([P-OMP Display]).
extern std::atomic<bool> g_display_affinity;
// [P-OMP Display] what an OpenMP thread (a team thread number of a team, the primary's being
// its number in the parent team) last displayed, and the region shape it displayed in.
struct affinity_shown {
  std::string line, format;
  unsigned level = 0, nthreads = 0;
  int place = -2;  // never displayed
};
struct team;
void plan_display(team& t) noexcept;  // begin_region, before the team starts
void show_affinity_slow() noexcept;
inline void show_affinity() noexcept {
  // relaxed: a flag written once while the configuration is read, before any region
  if (g_display_affinity.load(std::memory_order_relaxed)) [[unlikely]]
    show_affinity_slow();
}
// Affinity lines go to stderr, as libgomp prints them, until the KMPC front-end displays one or
// starts a region while OMP_DISPLAY_AFFINITY is on: from then on to stdout, as libomp prints
// them (a clang program's first region comes before its first line).
extern std::atomic<bool> g_affinity_stdout;
inline void kmpc_affinity_to_stdout() noexcept {
  // relaxed: it only picks a stream; a team's threads see it after the region's start
  if (!g_affinity_stdout.load(std::memory_order_relaxed)) g_affinity_stdout.store(true, std::memory_order_relaxed);
}
}  // namespace forkjoin::omp

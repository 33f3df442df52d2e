// places.hpp: binding team threads to places ([P-OMP Bind], places.cpp).
#pragma once

#include "icv.hpp"

namespace forkjoin::omp {

struct team;
struct thread_state;

// ---- binding to places (places.cpp, [P-OMP Bind]) ------------------------------------------

// Called by begin_region before the team starts: the team's binding policy, the primary's
// place and partition, and the implicit tasks' bind-var (the clause, then the OMP_PROC_BIND list).
void plan_binding(thread_state& ts, team& t, unsigned flags, icv& inherited) noexcept;
// Pins the calling thread to team thread `id`'s place (or unpins it for an unbound team). Every
// team member calls it at the start of its turn, the primary included.
void bind_team_thread(const team& t, unsigned id) noexcept;
// Returns a pinned thread to the process's initial CPUs (a thread that leaves team duty for
// other work, e.g. a pool worker lent to a bound team, calls it).
void unbind_thread() noexcept;
void bind_initial_thread() noexcept;    // at load: the initial thread takes place 0 when binding is on
void remember_initial_mask() noexcept;  // at load: the mask an unbound thread returns to
// [P-OMP KMPC K17] once per process: the calling thread takes place 0 when binding is on (at
// load for a gcc program; a libomp program's first region or place query, as libomp's)
void settle_initial_place() noexcept;
int place_of(const team& t, unsigned id) noexcept;
void partition_of(const team& t, unsigned id, int& lo, int& len) noexcept;
// The place list (OMP_PLACES): how many places, the processors of one (none for a number
// outside the list), the calling thread's place (-1: not bound).
int num_places() noexcept;
int place_num_procs(int place) noexcept;
void place_proc_ids(int place, int* ids) noexcept;
int current_place() noexcept;
}  // namespace forkjoin::omp

// crowding.hpp: whether the CPUs this process runs on are crowded, as its waiting threads
// observe it, and the timed yield that observes it (DESIGN.md [P-SLEEP Crowd]). Shared by the
// pool's idle and helping waits (worker.cpp) and every OpenMP wait (omp/).
#pragma once

#include <chrono>
#include <cstdint>

namespace forkjoin::detail {

// A sched_yield that kept this thread off its CPU longer than this handed the CPU to another
// runnable thread for a time slice (0.75 ms and up under EEVDF): the run queue is crowded.
// Shorter: the process's own extra threads, which hand it back after a chunk or a task, and
// the interrupts and hypervisor exits of a virtual machine (100-350 us seen on an idle VM).
inline constexpr std::chrono::microseconds k_crowd_yield_gap{500};
// Two steps of a spin further apart than this: the spinning thread was preempted (counted
// only in a pool no larger than its CPUs, where its own threads do not preempt each other),
// for a time slice, not for an interrupt (the same bound as a yield's).
inline constexpr std::chrono::microseconds k_crowd_spin_gap{500};
// What a wait that cannot park sleeps instead of a yield while the CPUs are crowded.
inline constexpr std::chrono::microseconds k_crowd_nap{50};
// How long a mark stands: after it, waits spin and yield again until the next one. It takes
// two observations this close together to set it: a neighbour's slices come one after the
// other, while a lone long gap (an interrupt storm, a hypervisor exit) would otherwise park
// every wait of an idle machine for this long.
inline constexpr std::chrono::milliseconds k_crowd_hold{50};

// Now on the steady clock, in nanoseconds.
std::int64_t crowd_clock_ns() noexcept;
// True while an observation made within k_crowd_hold of `now_ns` stands: waits then skip
// their yield phase and park after a short spin.
bool crowded(std::int64_t now_ns) noexcept;
// A waiter saw its CPU taken (a slow yield, a gap in its spin): marks the CPUs crowded for
// k_crowd_hold when the previous observation is at most k_crowd_hold old.
void note_crowded(std::int64_t now_ns) noexcept;
// sched_yield, timed: false, and an observation noted, when it took longer than
// k_crowd_yield_gap (the caller parks rather than yield again).
// False at once, without yielding, while crowded.
bool yield_if_uncrowded() noexcept;
// Observations since the process started (statistics and tests).
std::uint64_t crowd_observations() noexcept;

}  // namespace forkjoin::detail

// kmpc_ext.cpp: libomp's kmp_* extension API ([P-OMP KMP]) under its version node VERSION:
// blocktime, execution modes, stack size, kmp_set_defaults, warnings, affinity masks, each
// mapped onto this layer's settings (core/kmp_env.cpp); the kmpc_* forms other compilers
// call; and the Fortran forms (kmp_*_: arguments by reference) that libomp exports. The
// memory routines (kmp_malloc and friends) are in kmpc_api.cpp.
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "kmpc.hpp"

using namespace forkjoin::omp;

namespace {
// kmp_get_stacksize_s: the size set, else the size a thread gets by default
std::size_t stack_size_now() {
  const std::size_t s = current_settings().stack_size.load(std::memory_order_relaxed);
  if (s != 0) return s;
  pthread_attr_t attr;
  std::size_t size = 0;
  pthread_attr_init(&attr);
  pthread_attr_getstacksize(&attr, &size);
  pthread_attr_destroy(&attr);
  return size;
}
int max_proc() {
  const long n = sysconf(_SC_NPROCESSORS_CONF);
  return n > CPU_SETSIZE ? CPU_SETSIZE : static_cast<int>(n);
}
cpu_set_t* mask_of(void** mask) { return mask != nullptr ? static_cast<cpu_set_t*>(*mask) : nullptr; }
}  // namespace

// ---- blocktime: how long a waiting thread spins before it sleeps ---------------------------

FORKJOIN_OMP_EXPORT void kmp_set_blocktime(int ms) { set_blocktime(ms); }
FORKJOIN_OMP_EXPORT void kmpc_set_blocktime(int ms) { set_blocktime(ms); }
// The default ladder's active spin (k_active_spin, 200 us) reads as 1 ms, rounded up.
FORKJOIN_OMP_EXPORT int kmp_get_blocktime() {
  const int b = current_settings().blocktime.load(std::memory_order_relaxed);
  return b == k_blocktime_ladder ? 1 : b;
}

// ---- execution modes ------------------------------------------------------------------------

FORKJOIN_OMP_EXPORT void kmp_set_library(int mode) { set_library(mode); }
FORKJOIN_OMP_EXPORT void kmpc_set_library(int mode) { set_library(mode); }
FORKJOIN_OMP_EXPORT void kmp_set_library_serial() { set_library(1); }
FORKJOIN_OMP_EXPORT void kmp_set_library_turnaround() { set_library(2); }
FORKJOIN_OMP_EXPORT void kmp_set_library_throughput() { set_library(3); }
FORKJOIN_OMP_EXPORT int kmp_get_library() { return current_settings().library.load(std::memory_order_relaxed); }

// ---- stack size of the threads started from now on (the pool's, if it is not running yet) -

FORKJOIN_OMP_EXPORT void kmp_set_stacksize_s(std::size_t size) {
  if (size != 0) current_settings().stack_size.store(size, std::memory_order_relaxed);
}
FORKJOIN_OMP_EXPORT void kmp_set_stacksize(int size) {
  if (size > 0) kmp_set_stacksize_s(static_cast<std::size_t>(size));
}
FORKJOIN_OMP_EXPORT void kmpc_set_stacksize(int size) { kmp_set_stacksize(size); }
FORKJOIN_OMP_EXPORT void kmpc_set_stacksize_s(std::size_t size) { kmp_set_stacksize_s(size); }
FORKJOIN_OMP_EXPORT std::size_t kmp_get_stacksize_s() { return stack_size_now(); }
FORKJOIN_OMP_EXPORT int kmp_get_stacksize() {
  const std::size_t s = stack_size_now();
  return s > 0x7fffffff ? 0x7fffffff : static_cast<int>(s);
}

// ---- settings at run time, notices ----------------------------------------------------------

FORKJOIN_OMP_EXPORT void kmp_set_defaults(const char* text) { apply_kmp_defaults(text); }
FORKJOIN_OMP_EXPORT void kmpc_set_defaults(const char* text) { apply_kmp_defaults(text); }
FORKJOIN_OMP_EXPORT void kmp_set_warnings_on() { current_settings().warnings.store(true, std::memory_order_relaxed); }
FORKJOIN_OMP_EXPORT void kmp_set_warnings_off() { current_settings().warnings.store(false, std::memory_order_relaxed); }

// ---- affinity masks: a heap cpu_set_t; kmp_set_affinity binds the calling thread (until a
// team turn binds it to its place, when OMP_PROC_BIND or KMP_AFFINITY is on) -----------------

FORKJOIN_OMP_EXPORT void kmp_create_affinity_mask(void** mask) {
  auto* set = new cpu_set_t;
  CPU_ZERO(set);
  *mask = set;
}
FORKJOIN_OMP_EXPORT void kmp_destroy_affinity_mask(void** mask) {
  delete mask_of(mask);
  *mask = nullptr;
}
FORKJOIN_OMP_EXPORT int kmp_get_affinity_max_proc() { return max_proc(); }
// libomp's returns: 0 done, -1 a processor out of range, -2 no mask
FORKJOIN_OMP_EXPORT int kmp_set_affinity_mask_proc(int proc, void** mask) {
  if (mask_of(mask) == nullptr) return -2;
  if (proc < 0 || proc >= max_proc()) return -1;
  CPU_SET(proc, mask_of(mask));
  return 0;
}
FORKJOIN_OMP_EXPORT int kmp_unset_affinity_mask_proc(int proc, void** mask) {
  if (mask_of(mask) == nullptr) return -2;
  if (proc < 0 || proc >= max_proc()) return -1;
  CPU_CLR(proc, mask_of(mask));
  return 0;
}
FORKJOIN_OMP_EXPORT int kmp_get_affinity_mask_proc(int proc, void** mask) {
  if (mask_of(mask) == nullptr) return -2;
  if (proc < 0 || proc >= max_proc()) return -1;
  return CPU_ISSET(proc, mask_of(mask)) ? 1 : 0;
}
FORKJOIN_OMP_EXPORT int kmpc_set_affinity_mask_proc(int proc, void** mask) {
  return kmp_set_affinity_mask_proc(proc, mask);
}
FORKJOIN_OMP_EXPORT int kmpc_unset_affinity_mask_proc(int proc, void** mask) {
  return kmp_unset_affinity_mask_proc(proc, mask);
}
FORKJOIN_OMP_EXPORT int kmpc_get_affinity_mask_proc(int proc, void** mask) {
  return kmp_get_affinity_mask_proc(proc, mask);
}
FORKJOIN_OMP_EXPORT int kmp_set_affinity(void** mask) {
  if (mask_of(mask) == nullptr) return -2;
  return sched_setaffinity(0, sizeof(cpu_set_t), mask_of(mask)) == 0 ? 0 : errno;
}
FORKJOIN_OMP_EXPORT int kmp_get_affinity(void** mask) {
  if (mask_of(mask) == nullptr) return -2;
  return sched_getaffinity(0, sizeof(cpu_set_t), mask_of(mask)) == 0 ? 0 : errno;
}
// the calling thread back on every CPU the process started with
FORKJOIN_OMP_EXPORT int kmp_set_thread_affinity_mask_initial() {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : usable_cpus()) CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : -1;
}

// ---- the Fortran forms (flang's programs; gfortran's bind libgomp's names) -----------------

FORKJOIN_OMP_EXPORT void kmp_set_blocktime_(const int* ms) { set_blocktime(*ms); }
FORKJOIN_OMP_EXPORT int kmp_get_blocktime_() { return kmp_get_blocktime(); }
FORKJOIN_OMP_EXPORT void kmp_set_library_(const int* mode) { set_library(*mode); }
FORKJOIN_OMP_EXPORT int kmp_get_library_() { return kmp_get_library(); }
FORKJOIN_OMP_EXPORT void kmp_set_library_serial_() { set_library(1); }
FORKJOIN_OMP_EXPORT void kmp_set_library_turnaround_() { set_library(2); }
FORKJOIN_OMP_EXPORT void kmp_set_library_throughput_() { set_library(3); }
FORKJOIN_OMP_EXPORT void kmp_set_stacksize_(const int* size) { kmp_set_stacksize(*size); }
FORKJOIN_OMP_EXPORT void kmp_set_stacksize_s_(const std::size_t* size) { kmp_set_stacksize_s(*size); }
FORKJOIN_OMP_EXPORT int kmp_get_stacksize_() { return kmp_get_stacksize(); }
FORKJOIN_OMP_EXPORT std::size_t kmp_get_stacksize_s_() { return kmp_get_stacksize_s(); }
// a Fortran character argument: its length comes after the arguments
FORKJOIN_OMP_EXPORT void kmp_set_defaults_(const char* text, int len) {
  apply_kmp_defaults(std::string(text, len > 0 ? static_cast<std::size_t>(len) : 0).c_str());
}
FORKJOIN_OMP_EXPORT void kmp_set_warnings_on_() { kmp_set_warnings_on(); }
FORKJOIN_OMP_EXPORT void kmp_set_warnings_off_() { kmp_set_warnings_off(); }
FORKJOIN_OMP_EXPORT void kmp_set_disp_num_buffers_(const int*) {}
FORKJOIN_OMP_EXPORT void kmp_create_affinity_mask_(void** mask) { kmp_create_affinity_mask(mask); }
FORKJOIN_OMP_EXPORT void kmp_destroy_affinity_mask_(void** mask) { kmp_destroy_affinity_mask(mask); }
FORKJOIN_OMP_EXPORT int kmp_get_affinity_max_proc_() { return max_proc(); }
FORKJOIN_OMP_EXPORT int kmp_set_affinity_mask_proc_(const int* proc, void** mask) {
  return kmp_set_affinity_mask_proc(*proc, mask);
}
FORKJOIN_OMP_EXPORT int kmp_unset_affinity_mask_proc_(const int* proc, void** mask) {
  return kmp_unset_affinity_mask_proc(*proc, mask);
}
FORKJOIN_OMP_EXPORT int kmp_get_affinity_mask_proc_(const int* proc, void** mask) {
  return kmp_get_affinity_mask_proc(*proc, mask);
}
FORKJOIN_OMP_EXPORT int kmp_set_affinity_(void** mask) { return kmp_set_affinity(mask); }
FORKJOIN_OMP_EXPORT int kmp_get_affinity_(void** mask) { return kmp_get_affinity(mask); }
FORKJOIN_OMP_EXPORT void* kmp_malloc_(const std::size_t* size) { return std::malloc(*size); }
FORKJOIN_OMP_EXPORT void* kmp_aligned_malloc_(const std::size_t* size, const std::size_t* alignment) {
  void* p = nullptr;
  const std::size_t a = *alignment;
  if (a < sizeof(void*) || (a & (a - 1)) != 0) return nullptr;  // as posix_memalign
  return posix_memalign(&p, a, *size) == 0 ? p : nullptr;
}
FORKJOIN_OMP_EXPORT void* kmp_calloc_(const std::size_t* n, const std::size_t* size) { return std::calloc(*n, *size); }
FORKJOIN_OMP_EXPORT void* kmp_realloc_(void** p, const std::size_t* size) { return std::realloc(*p, *size); }
FORKJOIN_OMP_EXPORT void kmp_free_(void** p) { std::free(*p); }

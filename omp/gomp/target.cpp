// gomp/target.cpp: libgomp's target constructs on the host. There are no devices
// (omp_get_num_devices() is 0), so every target region runs as libgomp's host fallback does:
// on the encountering thread as the initial thread of a fresh context, with firstprivate data
// copied; data-mapping constructs do nothing but keep their depend/nowait semantics. The
// omp_target_* routines are in api/device.cpp. [P-OMP Target]
#include <climits>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../abi/export.hpp"
#include "../core/internal.hpp"

namespace forkjoin::omp {
namespace {

// gomp-constants.h
constexpr unsigned k_target_nowait = 1;               // GOMP_TARGET_FLAG_NOWAIT
constexpr unsigned k_map_firstprivate = 12;           // GOMP_MAP_FIRSTPRIVATE (kind & 0xff)
constexpr std::intptr_t k_arg_device_mask = 0x7f;     // GOMP_TARGET_ARG_DEVICE_MASK (0: all devices)
constexpr std::intptr_t k_arg_subsequent = 0x80;      // GOMP_TARGET_ARG_SUBSEQUENT_PARAM
constexpr std::intptr_t k_arg_id_mask = 0xff00;       // GOMP_TARGET_ARG_ID_MASK
constexpr std::intptr_t k_arg_thread_limit = 2 << 8;  // GOMP_TARGET_ARG_THREAD_LIMIT
constexpr int k_arg_value_shift = 16;                 // GOMP_TARGET_ARG_VALUE_SHIFT
constexpr unsigned k_task_depend = 8;                 // GOMP_TASK_FLAG_DEPEND

// The thread_limit clause among a target region's arguments (0: none).
unsigned thread_limit_of(void** args) {
  if (args == nullptr) return 0;
  while (*args != nullptr) {
    const auto id = reinterpret_cast<std::intptr_t>(*args++);
    std::intptr_t value;
    if ((id & k_arg_subsequent) != 0)
      value = reinterpret_cast<std::intptr_t>(*args++);
    else
      value = id >> k_arg_value_shift;
    if ((id & k_arg_device_mask) != 0 || (id & k_arg_id_mask) != k_arg_thread_limit) continue;
    return value <= 0 ? 0 : value > INT_MAX ? INT_MAX : static_cast<unsigned>(value);
  }
  return 0;
}

// [P-OMP Target G1] the region runs as the initial thread of a fresh context: level 0, the
// initial ICVs, the thread_limit clause as thread-limit-var.
void run_region(fn_t fn, void** hostaddrs, unsigned thread_limit) {
  icv v = config().initial;
  v.thread_limit = thread_limit;
  run_as_initial_thread(self(), v, fn, hostaddrs, true);
}

bool is_firstprivate(const unsigned short* kinds, std::size_t i) { return (kinds[i] & 0xffu) == k_map_firstprivate; }
std::size_t align_of(const unsigned short* kinds, std::size_t i) { return std::size_t{1} << (kinds[i] >> 8); }
std::size_t round_up(std::size_t n, std::size_t a) { return (n + a - 1) / a * a; }

// Bytes and alignment of the private copies of the GOMP_MAP_FIRSTPRIVATE entries.
std::size_t firstprivate_bytes(std::size_t mapnum, const std::size_t* sizes, const unsigned short* kinds,
                               std::size_t& align) {
  std::size_t bytes = 0;
  align = 1;
  for (std::size_t i = 0; i < mapnum; ++i) {
    if (!is_firstprivate(kinds, i)) continue;
    const std::size_t a = align_of(kinds, i);
    if (a > align) align = a;
    bytes = round_up(bytes, a) + sizes[i];
  }
  return bytes;
}

// [P-OMP Target G2] copies each firstprivate entry into `base` (aligned to the largest
// alignment) at the offsets firstprivate_bytes counted, and calls `place(i, offset)`.
template <class Place>
void copy_firstprivate(char* base, std::size_t mapnum, void** hostaddrs, const std::size_t* sizes,
                       const unsigned short* kinds, Place place) {
  std::size_t offset = 0;
  for (std::size_t i = 0; i < mapnum; ++i) {
    if (!is_firstprivate(kinds, i)) continue;
    offset = round_up(offset, align_of(kinds, i));
    if (hostaddrs[i] != nullptr) {
      std::memcpy(base + offset, hostaddrs[i], sizes[i]);
      place(i, offset);
    }
    offset += sizes[i];
  }
}

// A `target nowait` region's task arguments: this header, the host addresses (a firstprivate
// entry as an offset from the block's start, flagged in `is_copy`), then the copies.
struct deferred_region {
  fn_t fn;
  std::size_t mapnum;
  unsigned thread_limit;
};

void run_deferred_region(void* arg) {
  auto* h = static_cast<deferred_region*>(arg);
  auto** addrs = reinterpret_cast<void**>(h + 1);
  auto* is_copy = reinterpret_cast<unsigned char*>(addrs + h->mapnum);
  for (std::size_t i = 0; i < h->mapnum; ++i)
    if (is_copy[i] != 0) addrs[i] = static_cast<char*>(arg) + reinterpret_cast<std::uintptr_t>(addrs[i]);
  run_region(h->fn, addrs, h->thread_limit);
}

void nothing(void*) {}

// [P-OMP Target G3] depend and nowait of the data constructs (target update, enter/exit
// data): nowait with depend is an empty deferred task with those dependences; depend alone
// waits for the sibling tasks it names.
void data_construct(unsigned flags, void** depend) {
  if (depend == nullptr) return;
  if ((flags & k_target_nowait) != 0)
    task_create(&nothing, nullptr, nullptr, 0, 1, true, k_task_depend, depend, nullptr);
  else
    taskwait_depend(depend);
}

}  // namespace
}  // namespace forkjoin::omp

using namespace forkjoin::omp;

// device: the device clause, -1 the default device, -2 host fallback (if(false)); all run here.
FORKJOIN_OMP_EXPORT void GOMP_target_ext(int, fn_t fn, std::size_t mapnum, void** hostaddrs, std::size_t* sizes,
                                         unsigned short* kinds, unsigned flags, void** depend, void** args) {
  const unsigned thread_limit = thread_limit_of(args);
  std::size_t align = 1;
  const std::size_t bytes = firstprivate_bytes(mapnum, sizes, kinds, align);
  if ((flags & k_target_nowait) != 0) {
    // [P-OMP Target G4] target nowait: a deferred task (with the depend clause's dependences)
    // that owns copies of the host addresses and of the firstprivate data, taken now
    const std::size_t copies = round_up(sizeof(deferred_region) + mapnum * (sizeof(void*) + 1), align);
    std::vector<char> block(copies + bytes + align);
    const std::size_t skew = round_up(reinterpret_cast<std::uintptr_t>(block.data()), align) -
                             reinterpret_cast<std::uintptr_t>(block.data());
    char* base = block.data() + skew;
    auto* h = reinterpret_cast<deferred_region*>(base);
    *h = deferred_region{fn, mapnum, thread_limit};
    auto** addrs = reinterpret_cast<void**>(h + 1);
    auto* is_copy = reinterpret_cast<unsigned char*>(addrs + mapnum);
    for (std::size_t i = 0; i < mapnum; ++i) {
      addrs[i] = hostaddrs[i];
      is_copy[i] = 0;
    }
    copy_firstprivate(base + copies, mapnum, hostaddrs, sizes, kinds, [&](std::size_t i, std::size_t offset) {
      addrs[i] = reinterpret_cast<void*>(copies + offset);
      is_copy[i] = 1;
    });
    const long task_align = static_cast<long>(align > alignof(deferred_region) ? align : alignof(deferred_region));
    task_create(&run_deferred_region, base, nullptr, static_cast<long>(copies + bytes), task_align, true,
                depend != nullptr ? k_task_depend : 0u, depend, nullptr);
    return;
  }
  // [P-OMP Target G1] an undeferred task: wait for the sibling tasks it depends on, copy the
  // firstprivate data (into the caller's address array, as libgomp's fallback), run
  if (depend != nullptr) taskwait_depend(depend);
  std::vector<char> block(bytes + align);
  char* base = block.data() + (round_up(reinterpret_cast<std::uintptr_t>(block.data()), align) -
                               reinterpret_cast<std::uintptr_t>(block.data()));
  copy_firstprivate(base, mapnum, hostaddrs, sizes, kinds,
                    [&](std::size_t i, std::size_t offset) { hostaddrs[i] = base + offset; });
  run_region(fn, hostaddrs, thread_limit);
}

// gcc < 6: no firstprivate mapping kinds, no nowait
FORKJOIN_OMP_EXPORT void GOMP_target(int, fn_t fn, const void*, std::size_t, void** hostaddrs, std::size_t*,
                                     unsigned char*) {
  run_region(fn, hostaddrs, 0);
}

// Data constructs map nothing: host memory is the device memory.
FORKJOIN_OMP_EXPORT void GOMP_target_data(int, const void*, std::size_t, void**, std::size_t*, unsigned char*) {}
FORKJOIN_OMP_EXPORT void GOMP_target_data_ext(int, std::size_t, void**, std::size_t*, unsigned short*) {}
FORKJOIN_OMP_EXPORT void GOMP_target_end_data() {}
FORKJOIN_OMP_EXPORT void GOMP_target_update(int, const void*, std::size_t, void**, std::size_t*, unsigned char*) {}
FORKJOIN_OMP_EXPORT void GOMP_target_update_ext(int, std::size_t, void**, std::size_t*, unsigned short*, unsigned flags,
                                                void** depend) {
  data_construct(flags, depend);
}
FORKJOIN_OMP_EXPORT void GOMP_target_enter_exit_data(int, std::size_t, void**, std::size_t*, unsigned short*,
                                                     unsigned flags, void** depend) {
  data_construct(flags, depend);
}

// Registering offload images for devices this library does not have is harmless.
FORKJOIN_OMP_EXPORT void GOMP_offload_register(const void*, int, const void*) {}
FORKJOIN_OMP_EXPORT void GOMP_offload_unregister(const void*, int, const void*) {}
FORKJOIN_OMP_EXPORT void GOMP_offload_register_ver(unsigned, const void*, int, const void*) {}
FORKJOIN_OMP_EXPORT void GOMP_offload_unregister_ver(unsigned, const void*, int, const void*) {}

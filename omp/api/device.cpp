// api/device.cpp: the omp_* device routines. The host is the only device (the initial
// device, number 0); target regions run on it (gomp/target.cpp, [P-OMP Target]) and the
// device memory routines work on host memory.
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "../abi/export.hpp"
#include "../core/internal.hpp"
#include "api.hpp"

namespace {

bool host_device(int device) { return device == 0 || device == -1; }  // the initial device, omp_initial_device

int copy_rect(char* dst, const char* src, std::size_t element_size, int num_dims, const std::size_t* volume,
              const std::size_t* dst_offsets, const std::size_t* src_offsets, const std::size_t* dst_dimensions,
              const std::size_t* src_dimensions) {
  if (num_dims == 1) {
    std::memcpy(dst + dst_offsets[0] * element_size, src + src_offsets[0] * element_size, volume[0] * element_size);
    return 0;
  }
  std::size_t dst_stride = element_size, src_stride = element_size;
  for (int d = 1; d < num_dims; ++d) {
    dst_stride *= dst_dimensions[d];
    src_stride *= src_dimensions[d];
  }
  for (std::size_t j = 0; j < volume[0]; ++j)
    copy_rect(dst + (dst_offsets[0] + j) * dst_stride, src + (src_offsets[0] + j) * src_stride, element_size,
              num_dims - 1, volume + 1, dst_offsets + 1, src_offsets + 1, dst_dimensions + 1, src_dimensions + 1);
  return 0;
}

}  // namespace

FORKJOIN_OMP_EXPORT void omp_set_default_device(int) {}
FORKJOIN_OMP_EXPORT int omp_get_default_device() { return 0; }
FORKJOIN_OMP_EXPORT int omp_get_num_devices() { return 0; }
FORKJOIN_OMP_EXPORT int omp_is_initial_device() { return 1; }
FORKJOIN_OMP_EXPORT int omp_get_initial_device() { return 0; }
FORKJOIN_OMP_EXPORT int omp_get_device_num() { return 0; }

// [P-OMP KMP Pause] the host is the only device: pausing it is pausing all
FORKJOIN_OMP_EXPORT int omp_pause_resource(int kind, int device) {
  return host_device(device) ? forkjoin::omp::pause_resources(kind) : -1;
}
FORKJOIN_OMP_EXPORT int omp_pause_resource_all(int kind) { return forkjoin::omp::pause_resources(kind); }

// ---- device memory routines on the host device (the initial device, number 0) ------------

FORKJOIN_OMP_EXPORT void* omp_target_alloc(std::size_t size, int device) {
  return host_device(device) ? std::malloc(size == 0 ? 1 : size) : nullptr;
}
FORKJOIN_OMP_EXPORT void omp_target_free(void* p, int device) {
  if (host_device(device)) std::free(p);
}
FORKJOIN_OMP_EXPORT int omp_target_is_present(const void* p, int device) {
  return p == nullptr || host_device(device) ? 1 : 0;
}
FORKJOIN_OMP_EXPORT int omp_target_memcpy(void* dst, const void* src, std::size_t length, std::size_t dst_offset,
                                          std::size_t src_offset, int dst_device, int src_device) {
  if (!host_device(dst_device) || !host_device(src_device)) return EINVAL;
  std::memcpy(static_cast<char*>(dst) + dst_offset, static_cast<const char*>(src) + src_offset, length);
  return 0;
}
// dst == src == NULL asks for the number of dimensions supported
FORKJOIN_OMP_EXPORT int omp_target_memcpy_rect(void* dst, const void* src, std::size_t element_size, int num_dims,
                                               const std::size_t* volume, const std::size_t* dst_offsets,
                                               const std::size_t* src_offsets, const std::size_t* dst_dimensions,
                                               const std::size_t* src_dimensions, int dst_device, int src_device) {
  if (dst == nullptr && src == nullptr) return INT_MAX;
  if (!host_device(dst_device) || !host_device(src_device) || dst == nullptr || src == nullptr || num_dims < 1)
    return EINVAL;
  return copy_rect(static_cast<char*>(dst), static_cast<const char*>(src), element_size, num_dims, volume, dst_offsets,
                   src_offsets, dst_dimensions, src_dimensions);
}
// Associating host memory with the host device is an error, as in libgomp.
FORKJOIN_OMP_EXPORT int omp_target_associate_ptr(const void*, const void*, std::size_t, std::size_t, int) {
  return EINVAL;
}
FORKJOIN_OMP_EXPORT int omp_target_disassociate_ptr(const void*, int) { return EINVAL; }

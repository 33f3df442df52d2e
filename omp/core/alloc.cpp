// alloc.cpp: OpenMP memory allocators (OpenMP 5.0/5.1 section "Memory Management") on the
// host: the predefined allocators, omp_init_allocator with every trait the host can honour
// (alignment, pool_size, fallback, fb_data, pinned, and sync_hint, access and partition,
// which need nothing more on one memory), def-allocator-var (OMP_ALLOCATOR,
// omp_set_default_allocator), allocation with the zero-size rules. The entry points are
// api/alloc.cpp's (omp_alloc and friends) and gomp/alloc.cpp's (the allocate clause).
//
// Every block carries a header just below the pointer returned: where the underlying memory
// starts, what it cost the allocator's pool, the size asked for, and the allocator that
// made it, so omp_free and omp_realloc need no allocator argument to undo it. Memory spaces
// other than omp_high_bw_mem_space are the process's ordinary memory; there is no high
// bandwidth memory here, so omp_init_allocator refuses that space (as libgomp 12 does) and
// the predefined omp_high_bw_mem_alloc is ordinary memory. Pinned blocks are whole pages,
// mapped and locked (mlock); when the system refuses to lock them the allocation fails and
// the fallback trait decides.
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "alloc.hpp"
#include "internal.hpp"

namespace forkjoin::omp {
namespace {

using handle = allocator_handle;
using trait = allocator_trait;

// OpenMP's enumerators (omp.h), as the ABI passes them.
enum : handle {
  k_null_allocator = 0,
  k_default_mem_alloc = 1,
  k_last_predefined = 8,  // omp_thread_mem_alloc
};
enum : std::uintptr_t { k_high_bw_mem_space = 3, k_last_mem_space = 4 };  // omp_memspace_handle_t
enum : int {
  k_atk_sync_hint = 1,
  k_atk_alignment = 2,
  k_atk_access = 3,
  k_atk_pool_size = 4,
  k_atk_fallback = 5,
  k_atk_fb_data = 6,
  k_atk_pinned = 7,
  k_atk_partition = 8,
};
constexpr handle k_atv_default = ~handle{0};
enum : handle {
  k_atv_false = 0,
  k_atv_true = 1,
  k_atv_contended = 3,
  k_atv_private = 6,
  k_atv_all = 7,
  k_atv_thread = 8,
  k_atv_cgroup = 10,
  k_atv_default_mem_fb = 11,
  k_atv_null_fb = 12,
  k_atv_abort_fb = 13,
  k_atv_allocator_fb = 14,
  k_atv_environment = 15,
  k_atv_interleaved = 18,
};

constexpr std::uint32_t k_magic = 0x414c4f43;  // a live allocator record
constexpr std::size_t k_no_pool = ~std::size_t{0};
// allocator_fb chains longer than this fail (fb_data must exist before the allocator that
// names it, so a cycle needs a destroyed fb_data whose record was reused)
constexpr int k_max_fallbacks = 64;

// A user allocator: what omp_init_allocator returns, by address.
struct allocator {
  std::uint32_t magic = k_magic;
  std::size_t alignment = 1;
  std::size_t pool_size = k_no_pool;
  std::atomic<std::size_t> used{0};  // bytes of the pool in use (headers and padding included)
  handle fallback = k_atv_default_mem_fb;
  handle fb_data = k_null_allocator;
  bool pinned = false;
};

struct header {         // just below every block returned
  void* base;           // what malloc or mmap returned
  std::size_t charged;  // bytes taken from the allocator's pool (0: no pool), or mapped (pinned)
  std::size_t size;     // bytes asked for
  handle made_by;       // the allocator that made it (never the null allocator)
};
static_assert(sizeof(header) % alignof(std::max_align_t) == 0);

allocator* record_of(handle a, const char* caller) noexcept {
  if (a <= k_last_predefined) return nullptr;
  auto* r = reinterpret_cast<allocator*>(a);
  if (r->magic != k_magic) {
    std::fprintf(stderr, "forkjoin-omp: %s: 0x%lx is not an allocator (destroyed, or never made)\n", caller,
                 static_cast<unsigned long>(a));
    std::abort();
  }
  return r;
}

bool power_of_two(std::size_t x) { return x != 0 && (x & (x - 1)) == 0; }

// Takes n bytes of r's pool: false when they do not fit. `credit`: bytes of the pool that the
// caller gives back right after (omp_realloc's old block), counted as free.
bool charge(allocator& r, std::size_t n, std::size_t credit) noexcept {
  std::size_t used = r.used.load(std::memory_order_relaxed);
  do {
    const std::size_t after = used - (credit < used ? credit : used);
    if (n > r.pool_size || after > r.pool_size - n) return false;
  } while (!r.used.compare_exchange_weak(used, used + n,
                                         std::memory_order_relaxed));  // a count only: the memory is malloc's
  return true;
}

// One attempt with allocator a (not null): a block of `size` bytes aligned to `align`
// (a power of two), zeroed if asked; nullptr when the pool or the system refuses. `credit`
// as for charge().
void* try_allocate(handle a, std::size_t align, std::size_t size, bool zero, std::size_t credit) noexcept {
  allocator* r = record_of(a, "omp_alloc");
  if (r != nullptr && r->alignment > align) align = r->alignment;
  if (align < alignof(std::max_align_t)) align = alignof(std::max_align_t);
  // the header, then padding up to the alignment (malloc gives max_align_t's)
  const std::size_t extra = sizeof(header) + (align - alignof(std::max_align_t));
  if (size > ~std::size_t{0} - extra - 4096) return nullptr;
  std::size_t total = size + extra;
  void* base = nullptr;
  std::size_t charged = 0;
  if (r != nullptr && r->pinned) {
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    if (align > page) total += align - page;
    total = (total + page - 1) / page * page;
    if (r->pool_size != k_no_pool && !charge(*r, total, credit)) return nullptr;
    base = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base != MAP_FAILED && mlock(base, total) != 0) {
      munmap(base, total);
      base = MAP_FAILED;
    }
    if (base == MAP_FAILED) {
      if (r->pool_size != k_no_pool) r->used.fetch_sub(total, std::memory_order_relaxed);
      return nullptr;
    }
    charged = total;  // mapped pages are zero already
  } else {
    const bool pooled = r != nullptr && r->pool_size != k_no_pool;
    if (pooled && !charge(*r, total, credit)) return nullptr;
    base = zero ? std::calloc(1, total) : std::malloc(total);
    if (base == nullptr) {
      if (pooled) r->used.fetch_sub(total, std::memory_order_relaxed);
      return nullptr;
    }
    charged = pooled ? total : 0;
  }
  const auto at = (reinterpret_cast<std::uintptr_t>(base) + sizeof(header) + align - 1) & ~(align - 1);
  auto* h = reinterpret_cast<header*>(at) - 1;
  *h = header{base, charged, size, a};
  return reinterpret_cast<void*>(at);
}

// An allocation through allocator a (null: the current task's def-allocator-var), following
// the fallback traits; `zero` for calloc. The zero-size and overflow cases are the callers'.
// `old`: omp_realloc's block, whose pool bytes count as free for its own allocator.
void* allocate(handle a, std::size_t align, std::size_t size, bool zero, const char* caller,
               const header* old = nullptr) noexcept {
  if (!power_of_two(align)) {
    std::fprintf(stderr, "forkjoin-omp: %s: alignment %zu is not a power of two\n", caller, align);
    std::abort();
  }
  for (int hop = 0; hop < k_max_fallbacks; ++hop) {
    if (a == k_null_allocator) a = self().cur_task->icvs.def_allocator;
    const std::size_t credit = old != nullptr && old->made_by == a ? old->charged : 0;
    if (void* p = try_allocate(a, align, size, zero, credit)) return p;
    const allocator* r = record_of(a, caller);
    const handle fallback = r != nullptr ? r->fallback : k_atv_default_mem_fb;
    if (fallback == k_atv_null_fb) return nullptr;
    if (fallback == k_atv_abort_fb) {
      std::fprintf(stderr, "forkjoin-omp: %s: out of memory allocating %zu bytes (abort_fb)\n", caller, size);
      std::abort();
    }
    if (fallback == k_atv_allocator_fb) {
      a = r->fb_data;
      continue;
    }
    if (a == k_default_mem_alloc || r == nullptr) return nullptr;  // the system's memory ran out
    a = k_default_mem_alloc;                                       // default_mem_fb
  }
  return nullptr;
}

void release(void* p) noexcept {
  const header h = *(static_cast<header*>(p) - 1);
  allocator* r = record_of(h.made_by, "omp_free");
  if (r != nullptr && r->pinned) {
    if (r->pool_size != k_no_pool) r->used.fetch_sub(h.charged, std::memory_order_relaxed);
    munmap(h.base, h.charged);
    return;
  }
  if (h.charged != 0) r->used.fetch_sub(h.charged, std::memory_order_relaxed);
  std::free(h.base);
}

}  // namespace

handle init_allocator(std::uintptr_t memspace, int ntraits, const trait* traits) {
  // high bandwidth memory: none on this host
  if (memspace > k_last_mem_space || memspace == k_high_bw_mem_space) return k_null_allocator;
  if (ntraits < 0 || (ntraits > 0 && traits == nullptr)) return k_null_allocator;
  allocator a;
  for (int i = 0; i < ntraits; ++i) {
    const handle v = traits[i].value;
    const bool dflt = v == k_atv_default;
    switch (traits[i].key) {
      case k_atk_sync_hint:  // contended, uncontended, serialized, private: one code path serves all
        if (!dflt && (v < k_atv_contended || v > k_atv_private)) return k_null_allocator;
        break;
      case k_atk_alignment:
        if (dflt) break;
        if (!power_of_two(v)) return k_null_allocator;
        a.alignment = v;
        break;
      case k_atk_access:  // all, thread, pteam, cgroup: every thread reaches all of the memory
        if (!dflt && (v < k_atv_all || v > k_atv_cgroup)) return k_null_allocator;
        break;
      case k_atk_pool_size:
        a.pool_size = dflt ? k_no_pool : v;
        break;
      case k_atk_fallback:
        if (dflt) break;
        if (v < k_atv_default_mem_fb || v > k_atv_allocator_fb) return k_null_allocator;
        a.fallback = v;
        break;
      case k_atk_fb_data:
        a.fb_data = v;
        break;
      case k_atk_pinned:
        if (!dflt && v != k_atv_false && v != k_atv_true) return k_null_allocator;
        a.pinned = v == k_atv_true;
        break;
      case k_atk_partition:  // environment, nearest, blocked, interleaved: one memory node
        if (!dflt && (v < k_atv_environment || v > k_atv_interleaved)) return k_null_allocator;
        break;
      default:
        return k_null_allocator;
    }
  }
  auto* r = new allocator;
  r->alignment = a.alignment;
  r->pool_size = a.pool_size;
  r->fallback = a.fallback;
  r->fb_data = a.fb_data;
  r->pinned = a.pinned;
  return reinterpret_cast<handle>(r);
}

void destroy_allocator(handle a) {
  if (a == k_null_allocator) return;
  allocator* r = record_of(a, "omp_destroy_allocator");
  if (r == nullptr) return;  // a predefined allocator is never destroyed
  r->magic = 0;              // later uses of the handle stop with a message (while the memory lasts)
  delete r;
}

void set_default_allocator(handle a) {
  if (a != k_null_allocator) record_of(a, "omp_set_default_allocator");
  // the null allocator: back to the initial value (OMP_ALLOCATOR's)
  self().cur_task->icvs.def_allocator = a != k_null_allocator ? a : config().initial.def_allocator;
}
handle default_allocator() { return self().cur_task->icvs.def_allocator; }

void* allocate_from(handle a, std::size_t alignment, std::size_t size, bool zeroed, const char* caller) {
  return size == 0 ? nullptr : allocate(a, alignment, size, zeroed, caller);
}

void release_block(void* p) noexcept {
  if (p != nullptr) release(p);
}

// NULL p: an allocation; size 0: a release, NULL. Otherwise a new block from `a` (null: the
// block's own allocator) with the old contents, the old block freed; when the new one cannot
// be had, NULL and the old block untouched. In the old block's own pool, the new block may
// use the old one's bytes (as a realloc in place would).
void* reallocate(void* p, std::size_t size, handle a) {
  if (p == nullptr) return allocate_from(a, 1, size, false, "omp_realloc");
  if (size == 0) {
    release(p);
    return nullptr;
  }
  const header& h = *(static_cast<header*>(p) - 1);
  void* q = allocate(a != k_null_allocator ? a : h.made_by, 1, size, false, "omp_realloc", &h);
  if (q == nullptr) return nullptr;
  std::memcpy(q, p, h.size < size ? h.size : size);
  release(p);
  return q;
}

// The predefined allocators' names, for OMP_ALLOCATOR and OMP_DISPLAY_ENV (index = handle).
const char* const k_allocator_names[9] = {"omp_null_allocator",   "omp_default_mem_alloc", "omp_large_cap_mem_alloc",
                                          "omp_const_mem_alloc",  "omp_high_bw_mem_alloc", "omp_low_lat_mem_alloc",
                                          "omp_cgroup_mem_alloc", "omp_pteam_mem_alloc",   "omp_thread_mem_alloc"};

}  // namespace forkjoin::omp

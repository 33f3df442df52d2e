// doacross.cpp: doacross loops, `ordered(n)` with `depend(sink: ...)` and `depend(source)`:
// the table of posted iterations, its posts and waits. The loops themselves start in
// loop.cpp, the entry points are the front-ends'. Protocol: [P-OMP Doacross].
#include <cstdlib>
#include <vector>

#include "internal.hpp"

namespace forkjoin::omp {

// gcc numbers the iterations of each of the ncounts dimensions 0, 1, ... counts[d] - 1 (the
// first dimension spans the collapsed loops, which the work share schedules); an iteration
// vector v has the lexicographic rank ((v0 * c1 + v1) * c2 + v2) ...
struct doacross {
  unsigned ncounts = 0;
  unsigned nthreads = 1;
  std::vector<std::uint64_t> counts;
  int kind = k_sched_static;
  std::uint64_t chunk = 0;
  std::uint64_t q = 0, r = 0;  // static without a chunk: count = q * nthreads + r
  std::size_t stride = 1;      // words between entries (a cache line for per-thread entries)
  bool bits = false;           // one bit per iteration of the whole space instead of entries (X4)
  void* raw = nullptr;
  std::uint64_t* entries = nullptr;  // per entry: 1 + rank of its last posted iteration, 0 none
  event posted;                      // waiters park here ([P-OMP Wait])
};

namespace {

constexpr std::size_t k_line_words = forkjoin::detail::k_cache_line / sizeof(std::uint64_t);

// [P-OMP Doacross X1] the entry that records iteration v0 of the first dimension: the one of
// the thread (static) or the chunk (dynamic) or the iteration (guided) that runs it. Each
// entry's iterations run on one thread in increasing order.
std::size_t entry_of(const doacross& dx, std::uint64_t v0) noexcept {
  switch (dx.kind) {
    case k_sched_static:
      if (dx.chunk == 0) {
        const std::uint64_t boundary = dx.r * (dx.q + 1);  // the first r threads run q + 1 iterations
        return static_cast<std::size_t>(v0 < boundary ? v0 / (dx.q + 1) : dx.r + (v0 - boundary) / dx.q);
      }
      return static_cast<std::size_t>(v0 / dx.chunk % dx.nthreads);
    case k_sched_dynamic:
      return static_cast<std::size_t>(v0 / dx.chunk);
    default:  // guided: chunk boundaries are not known in advance
      return static_cast<std::size_t>(v0);
  }
}

// False when v lies outside the iteration space (such a wait is ignored); else its rank.
bool rank_of(const doacross& dx, const std::uint64_t* v, std::uint64_t& rank) noexcept {
  std::uint64_t x = 0;
  for (unsigned d = 0; d < dx.ncounts; ++d) {
    if (v[d] >= dx.counts[d]) return false;
    x = x * dx.counts[d] + v[d];  // below the product of the counts, which fits (doacross_create)
  }
  rank = x;
  return true;
}

}  // namespace

doacross* current_doacross() noexcept {
  work_share* w = self().cur_ws;
  return w != nullptr ? w->dx : nullptr;
}

unsigned doacross_dims(const doacross& dx) noexcept { return dx.ncounts; }

void doacross_post(doacross& dx, const std::uint64_t* v) noexcept {
  std::uint64_t rank;
  if (!rank_of(dx, v, rank)) return;
  if (dx.bits) {
    std::atomic_ref<std::uint64_t> word(dx.entries[rank / 64]);
    word.fetch_or(std::uint64_t{1} << (rank % 64), std::memory_order_release);  // [P-OMP Doacross X4] pairs with X4
    dx.posted.notify();                                                         // [P-OMP Wait W2]
    return;
  }
  std::atomic_ref<std::uint64_t> e(dx.entries[entry_of(dx, v[0]) * dx.stride]);
  e.store(rank + 1, std::memory_order_release);  // [P-OMP Doacross X2] pairs with X3's acquire
  dx.posted.notify();                            // [P-OMP Wait W2]
}

void doacross_wait(doacross& dx, const std::uint64_t* v) noexcept {
  std::uint64_t rank;
  if (!rank_of(dx, v, rank)) return;  // outside the iteration space: nothing to wait for
  if (dx.bits) {
    std::atomic_ref<std::uint64_t> word(dx.entries[rank / 64]);
    const std::uint64_t bit = std::uint64_t{1} << (rank % 64);
    auto posted = [&] { return (word.load(std::memory_order_acquire) & bit) != 0; };  // [P-OMP Doacross X4]
    if (!posted()) dx.posted.wait_until(posted, [] { return false; });
    return;
  }
  std::atomic_ref<std::uint64_t> e(dx.entries[entry_of(dx, v[0]) * dx.stride]);
  // [P-OMP Doacross X3] the entry's owner posts its iterations in increasing order: once it
  // posted v or a later one, v's writes are visible (acquire, pairs with X2)
  auto done = [&] { return e.load(std::memory_order_acquire) > rank; };
  if (done()) return;
  dx.posted.wait_until(done, [] { return false; });
}

doacross* doacross_create(int kind, std::uint64_t chunk, std::uint64_t count, unsigned nthreads, unsigned ncounts,
                          const std::uint64_t* counts) {
  if (ncounts == 0 || ncounts > k_doacross_max_dims) fatal("a doacross loop with more than 64 ordered dimensions");
  auto* dx = new doacross;
  dx->ncounts = ncounts;
  dx->nthreads = nthreads;
  dx->counts.assign(counts, counts + ncounts);
  std::uint64_t product = 1;
  for (unsigned d = 0; d < ncounts; ++d)
    if (__builtin_mul_overflow(product, counts[d], &product))
      fatal("a doacross loop with 2^64 or more iterations is not supported");
  dx->kind = kind;
  dx->chunk = chunk;
  std::uint64_t nentries;
  if (dx->kind == k_sched_static) {  // one entry per thread, a cache line each
    dx->q = count / nthreads;
    dx->r = count % nthreads;
    nentries = nthreads;
    dx->stride = k_line_words;
  } else {
    nentries = dx->kind == k_sched_dynamic ? count / chunk + (count % chunk != 0 ? 1 : 0) : count;
  }
  std::uint64_t words;
  if (__builtin_mul_overflow(nentries, std::uint64_t{dx->stride}, &words) || words > (SIZE_MAX - 64) / 8)
    fatal("out of memory allocating a doacross loop's table");
  // calloc: zeroed (nothing posted) and, for large tables, untouched until used
  dx->raw = std::calloc(static_cast<std::size_t>(words) * 8 + forkjoin::detail::k_cache_line, 1);
  if (dx->raw == nullptr) fatal("out of memory allocating a doacross loop's table");
  const auto base = reinterpret_cast<std::uintptr_t>(dx->raw);
  const std::uintptr_t line = forkjoin::detail::k_cache_line;
  dx->entries = reinterpret_cast<std::uint64_t*>((base + line - 1) / line * line);
  return dx;
}

doacross* doacross_create_bits(unsigned nthreads, unsigned ncounts, const std::uint64_t* counts) {
  if (ncounts == 0 || ncounts > k_doacross_max_dims) fatal("a doacross loop with more than 64 ordered dimensions");
  auto* dx = new doacross;
  dx->ncounts = ncounts;
  dx->nthreads = nthreads;
  dx->counts.assign(counts, counts + ncounts);
  dx->bits = true;
  std::uint64_t product = 1;
  for (unsigned d = 0; d < ncounts; ++d)
    if (__builtin_mul_overflow(product, counts[d], &product))
      fatal("a doacross loop with 2^64 or more iterations is not supported");
  const std::uint64_t words = product / 64 + 1;
  if (words > (SIZE_MAX - 64) / 8) fatal("out of memory allocating a doacross loop's table");
  // calloc: zeroed (nothing posted) and, for large tables, untouched until used
  dx->raw = std::calloc(static_cast<std::size_t>(words) * 8, 1);
  if (dx->raw == nullptr) fatal("out of memory allocating a doacross loop's table");
  dx->entries = static_cast<std::uint64_t*>(dx->raw);
  return dx;
}

void doacross_free(doacross* dx) noexcept {
  if (dx == nullptr) return;
  std::free(dx->raw);
  delete dx;
}

}  // namespace forkjoin::omp

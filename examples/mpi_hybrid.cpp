// mpi_hybrid.cpp: a distributed sample sort, MPI between ranks and forkjoin inside each.
// Every rank generates its share of the keys, sorts it with a forkjoin merge sort, and the
// ranks agree on splitters from regular samples; one MPI_Alltoallv moves every key to the
// rank that owns its range, and each rank merges what it received, in parallel again. Rank 0
// then gathers the result and checks it against a serial std::sort of all the keys.
//
// Sizing (docs/scale-out.md): each rank's pool gets its share of the node,
// default_concurrency() / OMPI_COMM_WORLD_LOCAL_SIZE, at least 1. MPI is called only from
// the main thread, outside the pool's tasks, so MPI_THREAD_FUNNELED is enough.
//
//   mpirun -np 2 ./example_mpi_hybrid [keys per rank]
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "forkjoin/forkjoin.hpp"

namespace {

// The key with global index i: the same on every rank and in the serial check.
std::uint64_t key_of(std::uint64_t i) {
  std::uint64_t z = i + 0x9e3779b97f4a7c15ULL;  // splitmix64
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Merge sort by join: sort the halves in parallel, merge them through a scratch buffer.
void merge_sort(std::uint64_t* first, std::uint64_t* last, std::uint64_t* scratch) {
  const std::ptrdiff_t n = last - first;
  if (n <= 4096) {
    std::sort(first, last);
    return;
  }
  std::uint64_t* mid = first + n / 2;
  forkjoin::join([&] { merge_sort(first, mid, scratch); }, [&] { merge_sort(mid, last, scratch + n / 2); });
  std::merge(first, mid, mid, last, scratch);
  std::copy(scratch, scratch + n, first);
}

void parallel_sort(std::vector<std::uint64_t>& v) {
  std::vector<std::uint64_t> scratch(v.size());
  merge_sort(v.data(), v.data() + v.size(), scratch.data());
}

// This rank's share of the node: the ranks on one node split its CPUs.
std::size_t threads_per_rank() {
  std::size_t local_ranks = 1;
  if (const char* s = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE")) local_ranks = std::max(1, std::atoi(s));
  return std::max<std::size_t>(1, forkjoin::default_concurrency() / local_ranks);
}

int fail(const char* what) {
  std::fprintf(stderr, "mpi_hybrid: %s\n", what);
  MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  if (provided < MPI_THREAD_FUNNELED) return fail("the MPI library does not provide MPI_THREAD_FUNNELED");
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const std::uint64_t per_rank = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1u << 18;
  const auto p = static_cast<std::size_t>(ranks);

  forkjoin::pool pool(threads_per_rank());

  // 1. Generate and sort the local share.
  std::vector<std::uint64_t> local(per_rank);
  pool.run([&] {
    forkjoin::parallel_for(std::uint64_t{0}, per_rank, [&](std::uint64_t i) {
      local[i] = key_of(static_cast<std::uint64_t>(rank) * per_rank + i);
    });
    parallel_sort(local);
  });

  // 2. Splitters: p regular samples per rank, gathered everywhere, every p-th one kept.
  std::vector<std::uint64_t> samples(p), all_samples(p * p);
  for (std::size_t k = 0; k < p; ++k) samples[k] = local.empty() ? 0 : local[k * local.size() / p];
  MPI_Allgather(samples.data(), ranks, MPI_UINT64_T, all_samples.data(), ranks, MPI_UINT64_T, MPI_COMM_WORLD);
  std::sort(all_samples.begin(), all_samples.end());
  std::vector<std::uint64_t> splitters;
  for (std::size_t k = 1; k < p; ++k) splitters.push_back(all_samples[k * p]);

  // 3. Bucket boundaries in the sorted local keys, counts to every rank, then the keys.
  std::vector<int> send_counts(p), send_offsets(p), recv_counts(p), recv_offsets(p);
  std::size_t start = 0;
  for (std::size_t k = 0; k < p; ++k) {
    const std::size_t end =
        k + 1 < p ? static_cast<std::size_t>(std::upper_bound(local.begin(), local.end(), splitters[k]) - local.begin())
                  : local.size();
    send_offsets[k] = static_cast<int>(start);
    send_counts[k] = static_cast<int>(end - start);
    start = end;
  }
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::size_t received = 0;
  for (std::size_t k = 0; k < p; ++k) {
    recv_offsets[k] = static_cast<int>(received);
    received += static_cast<std::size_t>(recv_counts[k]);
  }
  std::vector<std::uint64_t> mine(received);
  MPI_Alltoallv(local.data(), send_counts.data(), send_offsets.data(), MPI_UINT64_T, mine.data(), recv_counts.data(),
                recv_offsets.data(), MPI_UINT64_T, MPI_COMM_WORLD);

  // 4. The received runs are sorted each; sorting them together merges them.
  pool.run([&] { parallel_sort(mine); });

  // 5. Rank 0 gathers everything and compares with a serial sort of all the keys.
  const int count = static_cast<int>(mine.size());
  std::vector<int> counts(p), offsets(p);
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::size_t total = 0;
  for (std::size_t k = 0; k < p; ++k) {
    offsets[k] = static_cast<int>(total);
    total += static_cast<std::size_t>(counts[k]);
  }
  std::vector<std::uint64_t> gathered(rank == 0 ? total : 0);
  MPI_Gatherv(mine.data(), count, MPI_UINT64_T, gathered.data(), counts.data(), offsets.data(), MPI_UINT64_T, 0,
              MPI_COMM_WORLD);
  int ok = 1;
  if (rank == 0) {
    std::vector<std::uint64_t> serial(per_rank * p);
    for (std::uint64_t i = 0; i < serial.size(); ++i) serial[i] = key_of(i);
    std::sort(serial.begin(), serial.end());
    ok = gathered == serial ? 1 : 0;
    std::printf("mpi_hybrid: %d ranks x %zu threads sorted %zu keys: %s\n", ranks, pool.num_threads(), gathered.size(),
                ok ? "matches the serial sort" : "WRONG");
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return ok ? 0 : 1;
}

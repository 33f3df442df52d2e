// duplicate.cpp: the duplicate-runtime check ([P-OMP Load]): when a native OpenMP
// runtime (libgomp, LLVM's libomp, Intel's libiomp5) or, where forkjoin serves oneTBB, native
// oneTBB 2021 (libtbb.so.12) is mapped in the process beside libforkjoin-omp, one message on
// stderr names both files and what to do; FORKJOIN_STRICT=1 makes it an error. Checked when
// the library is initialised, when the OpenMP layer starts its pool and at exit.
#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common.hpp"
#include "runtimes.hpp"

namespace forkjoin::omp {

namespace {

constexpr int k_max_found = 8;

struct found_runtime {
  const char* path;
  const char* soname;
};

struct scan {
  found_runtime found[k_max_found];
  int count = 0;
  const char* forkjoin_tbb = nullptr;  // libforkjoin-tbb's path, when it is mapped
};

// [P-OMP Load D4] an object's soname, from its dynamic section: the string table's address is
// relocated in place by glibc's loader for every object but the vDSO, whose pages are
// read-only (an address below the object's base is an offset from it)
const char* soname_of(const dl_phdr_info* info) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
    const auto* dyn = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    ElfW(Addr) strtab = 0;
    const ElfW(Dyn)* soname = nullptr;
    for (const ElfW(Dyn)* d = dyn; d->d_tag != DT_NULL; ++d) {
      if (d->d_tag == DT_STRTAB) strtab = d->d_un.d_ptr;
      if (d->d_tag == DT_SONAME) soname = d;
    }
    if (strtab == 0 || soname == nullptr) return nullptr;
    if (strtab < info->dlpi_addr) strtab += info->dlpi_addr;
    return reinterpret_cast<const char*>(strtab + soname->d_un.d_val);
  }
  return nullptr;
}

int scan_object(dl_phdr_info* info, std::size_t, void* data) {
  auto* s = static_cast<scan*>(data);
  const char* soname = soname_of(info);
  if (soname == nullptr) return 0;
  if (std::strcmp(soname, "libforkjoin-tbb.so") == 0) s->forkjoin_tbb = info->dlpi_name;
  const runtimes::family f = runtimes::classify(soname);
  if (f == runtimes::k_none || f == runtimes::k_tbb_unversioned || runtimes::kept(f)) return 0;
  if (s->count < k_max_found) s->found[s->count++] = {info->dlpi_name, soname};
  return 0;
}

// libforkjoin-omp's own path, as the loader opened it
const char* own_path() {
  Dl_info self;
  if (dladdr(reinterpret_cast<void*>(&own_path), &self) != 0 && self.dli_fname != nullptr) return self.dli_fname;
  return "libforkjoin-omp.so";
}

// [P-OMP Load D5] one message per process, whichever check finds the runtime first. Relaxed:
// it orders nothing, and two checks racing at the pool's start print at most twice.
std::atomic<bool> g_reported{false};

}  // namespace

void check_duplicate_runtimes() noexcept {
  if (g_reported.load(std::memory_order_relaxed)) return;
  scan s;
  dl_iterate_phdr(&scan_object, &s);
  // oneTBB counts where forkjoin serves it: libforkjoin-tbb is mapped, or the launcher named it
  const char* tbb_variable = std::getenv("FORKJOIN_TBB_LIBRARY");
  const bool serves_tbb = s.forkjoin_tbb != nullptr || (tbb_variable != nullptr && tbb_variable[0] != '\0');
  char list[2048] = "";
  std::size_t used = 0;
  char keep[64] = "";  // the words of FORKJOIN_KEEP_NATIVE that would accept them
  bool openmp = false;
  bool tbb = false;
  for (int i = 0; i < s.count; ++i) {
    const runtimes::family f = runtimes::classify(s.found[i].soname);
    const bool is_tbb = f == runtimes::k_tbb;
    if (is_tbb && !serves_tbb) continue;
    (is_tbb ? tbb : openmp) = true;
    if (std::strstr(keep, runtimes::family_word(f)) == nullptr && std::strlen(keep) + 9 < sizeof keep) {
      if (keep[0] != '\0') std::strcat(keep, " ");
      std::strcat(keep, runtimes::family_word(f));
    }
    const int n = std::snprintf(list + used, sizeof list - used, "%s%s (%s)", used == 0 ? "" : ", ",
                                s.found[i].path[0] != '\0' ? s.found[i].path : "the program", s.found[i].soname);
    if (n > 0) used = std::strlen(list);
  }
  if (used == 0 || g_reported.exchange(true, std::memory_order_relaxed)) return;
  const char* strict = std::getenv("FORKJOIN_STRICT");
  const bool error = strict != nullptr && strict[0] != '\0' && std::strcmp(strict, "0") != 0;
  const char* ours = openmp && tbb ? "OpenMP and oneTBB" : openmp ? "OpenMP" : "oneTBB";
  char forkjoin[1024];
  if (tbb && s.forkjoin_tbb != nullptr)
    std::snprintf(forkjoin, sizeof forkjoin, "%s%s%s", openmp ? own_path() : "", openmp ? " and " : "", s.forkjoin_tbb);
  else
    std::snprintf(forkjoin, sizeof forkjoin, "%s", own_path());
  // [P-OMP Load D6] FORKJOIN_STRICT: the same message, then the process stops
  std::fprintf(stderr,
               "forkjoin-omp: %s: another %s runtime is mapped in this process: %s, beside forkjoin's %s\n"
               "forkjoin-omp: hint: calls bound to it run on its own threads, outside forkjoin's pool (more threads "
               "than CPUs; thread numbers and locks that do not agree). A preload or a replace folder does not reach "
               "a library loaded by path, as a dependency the program names, or from a folder searched first: run "
               "the program under forkjoin-omp, whose audit library sends every load of libgomp, libomp, libiomp5 "
               "and libtbb.so.12 to forkjoin. FORKJOIN_KEEP_NATIVE='%s' accepts it; FORKJOIN_STRICT=1 stops the "
               "program.\n",
               error ? "error" : "warning", ours, list, forkjoin, keep);
  if (error) std::abort();
}

// [P-OMP Load D1] at the library's initialisation: what the program started with
__attribute__((constructor)) static void check_duplicates_at_start() { check_duplicate_runtimes(); }
// [P-OMP Load D3] at exit (or when the library is closed): a runtime opened later whose calls
// never reached forkjoin's pool is still named, if late
__attribute__((destructor)) static void check_duplicates_at_exit() { check_duplicate_runtimes(); }

}  // namespace forkjoin::omp

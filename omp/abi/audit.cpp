// audit.cpp: libforkjoin-audit.so, the rtld-audit module that the forkjoin-omp launcher puts
// in LD_AUDIT ([P-OMP Load]). The dynamic linker asks it for every library name it is about to
// look up or open (la_objsearch); a name whose file name is an OpenMP runtime's (libgomp,
// LLVM's libomp, Intel's libiomp5) or oneTBB 2021's (libtbb.so.12) is answered with forkjoin's
// library, whether it comes from a DT_NEEDED entry or a dlopen, as a bare soname or as a path,
// and wherever LD_LIBRARY_PATH, an RPATH or ld.so.cache would have found it.
//
// It runs in the dynamic linker's audit namespace, before the program's libraries are
// relocated: it uses the C library alone (no C++ runtime, no exceptions) and keeps its answers
// in static storage, as the loader holds on to the strings it returns.
#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>

#include <cstdlib>
#include <cstring>

#include "../core/runtimes.hpp"

namespace {

using namespace forkjoin::omp::runtimes;

constexpr std::size_t k_path_max = 4096;

// [P-OMP Load A1] the file each family's loads get, "" for none (left alone)
char g_target[k_families][k_path_max];

const char* base_name(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash != nullptr ? slash + 1 : path;
}

bool is_file(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

// out = dir + "/" + name, when it fits and names a file
bool join_existing(char* out, const char* dir, std::size_t dir_len, const char* name) {
  const std::size_t n = std::strlen(name);
  if (dir_len + 1 + n + 1 > k_path_max) return false;
  char path[k_path_max];
  std::memcpy(path, dir, dir_len);
  path[dir_len] = '/';
  std::memcpy(path + dir_len + 1, name, n + 1);
  if (!is_file(path)) return false;
  std::memcpy(out, path, dir_len + 1 + n + 1);
  return true;
}

// The library of a family: the absolute path in `variable` when it is set (the launcher sets
// both), else `file` in this library's own directory (an install puts them side by side);
// then, in its replace folder, the link named as the family's library (so that tools which
// recognise a runtime by its file name still do), or the library itself.
void find_target(family f, const char* variable, const char* own_dir, std::size_t own_len, const char* file,
                 const char* folder, const char* link) {
  char library[k_path_max] = "";
  if (const char* v = std::getenv(variable); v != nullptr) {
    if (v[0] != '/' || std::strlen(v) >= k_path_max || !is_file(v)) return;  // set empty: no such library
    std::strcpy(library, v);
  } else if (!join_existing(library, own_dir, own_len, file)) {
    return;
  }
  const char* slash = std::strrchr(library, '/');
  char folder_path[k_path_max];
  const auto dir_len = static_cast<std::size_t>(slash - library);
  const std::size_t folder_len = std::strlen(folder);
  if (dir_len + 1 + folder_len < k_path_max) {
    std::memcpy(folder_path, library, dir_len + 1);
    std::memcpy(folder_path + dir_len + 1, folder, folder_len + 1);
    if (join_existing(g_target[f], folder_path, dir_len + 1 + folder_len, link)) return;
  }
  std::strcpy(g_target[f], library);
}

// [P-OMP Load A5] an unversioned libtbb.so is oneTBB 2021's when the file it names (a link,
// as Debian's) is libtbb.so.12*; another (TBB 2020's libtbb.so.2) is left alone
bool names_onetbb_2021(const char* path) {
  char real[k_path_max];
  if (realpath(path, real) == nullptr) return false;
  return names_version(base_name(real), "libtbb.so.12");
}

}  // namespace

// [P-OMP Load A1] the loader loads this module and asks which interface version it speaks:
// the lower of the loader's and the one it was built for. The targets are found now, once.
extern "C" __attribute__((visibility("default"))) unsigned la_version(unsigned version) {
  Dl_info self;
  char own_dir[k_path_max] = ".";
  std::size_t own_len = 1;
  if (dladdr(reinterpret_cast<void*>(&la_version), &self) != 0 && self.dli_fname != nullptr) {
    if (const char* slash = std::strrchr(self.dli_fname, '/'); slash != nullptr) {
      own_len = static_cast<std::size_t>(slash - self.dli_fname);
      if (own_len < k_path_max) std::memcpy(own_dir, self.dli_fname, own_len);
    }
  }
  if (!kept(k_gomp))
    find_target(k_gomp, "FORKJOIN_OMP_LIBRARY", own_dir, own_len, "libforkjoin-omp.so", "forkjoin-omp-replace",
                "libgomp.so.1");
  if (!kept(k_omp)) {
    find_target(k_omp, "FORKJOIN_OMP_LIBRARY", own_dir, own_len, "libforkjoin-omp.so", "forkjoin-omp-replace",
                "libomp.so.5");
    find_target(k_iomp5, "FORKJOIN_OMP_LIBRARY", own_dir, own_len, "libforkjoin-omp.so", "forkjoin-omp-replace",
                "libiomp5.so");
  }
  if (!kept(k_tbb)) {
    find_target(k_tbb, "FORKJOIN_TBB_LIBRARY", own_dir, own_len, "libforkjoin-tbb.so", "forkjoin-tbb-replace",
                "libtbb.so.12");
    std::strcpy(g_target[k_tbb_unversioned], g_target[k_tbb]);
  }
  return version < LAV_CURRENT ? version : LAV_CURRENT;
}

// [P-OMP Load A2] The loader calls this with the name it was given (LA_SER_ORIG) and then with
// each path it tries (LA_SER_LIBPATH, LA_SER_RUNPATH, LA_SER_CONFIG, LA_SER_DEFAULT, ...); it
// opens the path returned instead.
extern "C" __attribute__((visibility("default"))) char* la_objsearch(const char* name, uintptr_t* cookie,
                                                                     unsigned int flag) {
  (void)cookie;
  const family f = classify(base_name(name));
  if (f == k_none || g_target[f][0] == '\0') return const_cast<char*>(name);
  // [P-OMP Load A3] a bare soname is left to the search, and each path it tries is answered
  // with forkjoin's: the loader then records the bare name on the library it opens, which the
  // version checks of the requesting object look it up by
  if (flag == LA_SER_ORIG && std::strchr(name, '/') == nullptr) return const_cast<char*>(name);
  // [P-OMP Load A4] a path (given to dlopen, or tried by the search) opens forkjoin's library
  if (f == k_tbb_unversioned && !names_onetbb_2021(name)) return const_cast<char*>(name);
  return g_target[f];
}

// runtimes.hpp: the OpenMP and oneTBB runtimes that forkjoin's libraries stand in for, named
// as their files and sonames are ([P-OMP Load]), and FORKJOIN_KEEP_NATIVE, the families a
// process keeps. Shared by the audit library (abi/audit.cpp), which redirects their loads, and
// by the duplicate check (duplicate.cpp), which reports one mapped anyway. Header-only and C
// library only: the audit library runs before any C++ runtime is there.
#pragma once

#include <cstdlib>
#include <cstring>

namespace forkjoin::omp::runtimes {

// k_tbb_unversioned: libtbb.so, oneTBB 2021's only when the file it names is libtbb.so.12
enum family : int { k_none = -1, k_gomp = 0, k_omp, k_iomp5, k_tbb, k_tbb_unversioned, k_families };

// s is prefix followed by nothing, or by "." and more (a longer version: libtbb.so.12.8)
inline bool names_version(const char* s, const char* prefix) noexcept {
  const std::size_t n = std::strlen(prefix);
  return std::strncmp(s, prefix, n) == 0 && (s[n] == '\0' || s[n] == '.');
}

// [P-OMP Load A2] the family of a file name or a soname. auditwheel's copies inside Python
// wheels carry a hash before ".so" (libgomp-a34b3233.so.1), dropped first. TBB 2020's
// libtbb.so.2 is another interface: k_none.
inline family classify(const char* base) noexcept {
  char name[256];
  const std::size_t len = std::strlen(base);
  if (len >= sizeof name) return k_none;
  std::memcpy(name, base, len + 1);
  if (char* so = std::strstr(name, ".so"); so != nullptr && so - name > 9 && so[-9] == '-') {
    bool hex = true;
    for (const char* p = so - 8; p < so; ++p) hex = hex && ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'));
    if (hex) std::memmove(so - 9, so, std::strlen(so) + 1);
  }
  if (std::strcmp(name, "libgomp.so") == 0 || names_version(name, "libgomp.so.1")) return k_gomp;
  if (std::strcmp(name, "libomp.so") == 0 || names_version(name, "libomp.so.5")) return k_omp;
  if (std::strcmp(name, "libiomp5.so") == 0) return k_iomp5;
  if (names_version(name, "libtbb.so.12")) return k_tbb;
  if (std::strcmp(name, "libtbb.so") == 0) return k_tbb_unversioned;
  return k_none;
}

// The word FORKJOIN_KEEP_NATIVE names a family by: libomp covers libiomp5 (the same runtime).
inline const char* family_word(family f) noexcept {
  switch (f) {
    case k_gomp:
      return "libgomp";
    case k_omp:
    case k_iomp5:
      return "libomp";
    case k_tbb:
    case k_tbb_unversioned:
      return "libtbb";
    default:
      return "";
  }
}

// [P-OMP Load A6] FORKJOIN_KEEP_NATIVE lists (blank-, comma- or colon-separated) the families
// whose native library a process keeps: the audit library leaves their loads alone and the
// duplicate check accepts them.
inline bool kept(family f) noexcept {
  const char* keep = std::getenv("FORKJOIN_KEEP_NATIVE");
  const char* word = family_word(f);
  if (keep == nullptr || word[0] == '\0') return false;
  const std::size_t n = std::strlen(word);
  auto separator = [](char c) { return c == ' ' || c == ',' || c == ':'; };
  for (const char* p = std::strstr(keep, word); p != nullptr; p = std::strstr(p + 1, word))
    if ((p == keep || separator(p[-1])) && (p[n] == '\0' || separator(p[n]))) return true;
  return false;
}

}  // namespace forkjoin::omp::runtimes

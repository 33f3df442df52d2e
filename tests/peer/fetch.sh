#!/usr/bin/env bash
# Unpack the peer runtimes' test suites from Debian's packages into DEST (default
# build/peer-src): libgomp's testsuite from gcc-12-source (a binary package holding gcc's
# source tarball), openmp/runtime/test from the llvm-toolchain-14 source package, and test/
# from the onetbb source package (with src/tbbmalloc/shared_utils.h, which
# test/common/memory_usage.h includes on Linux), nothing else of any. None of it is
# committed. Needs root for apt-get when gcc-12-source is not installed or no deb-src entry
# is configured (one is added for Debian's main archive).
set -euo pipefail
dest=$(mkdir -p "${1:-build/peer-src}" && cd "${1:-build/peer-src}" && pwd)
export DEBIAN_FRONTEND=noninteractive

gcc_tar=$(ls /usr/src/gcc-12/gcc-*.tar.xz 2>/dev/null | grep -v gm2 | head -n1 || true)
if [ -z "$gcc_tar" ]; then
  apt-get install -y -qq gcc-12-source >/dev/null 2>&1 ||
    { apt-get update -qq && apt-get install -y -qq gcc-12-source >/dev/null; }
  gcc_tar=$(ls /usr/src/gcc-12/gcc-*.tar.xz | grep -v gm2 | head -n1)
fi
if [ ! -f "$dest/gcc.stamp" ] || [ "$(cat "$dest/gcc.stamp")" != "$gcc_tar" ]; then
  rm -rf "$dest"/gcc-*/
  # the tests, plus the two headers some of them include (libgomp_g.h, gomp-constants.h)
  tar -xJf "$gcc_tar" -C "$dest" --wildcards '*/libgomp/testsuite/libgomp.c/*' \
    '*/libgomp/testsuite/libgomp.c++/*' '*/libgomp/testsuite/libgomp.c-c++-common/*' \
    '*/libgomp/testsuite/libgomp.fortran/*' '*/libgomp/libgomp_g.h' '*/include/gomp-constants.h'
  # the one setting of libgomp's configure that a test reads (affinity-1.c): glibc has it
  echo '#define HAVE_PTHREAD_AFFINITY_NP 1' >"$(ls -d "$dest"/gcc-*/libgomp)/config.h"
  echo "$gcc_tar" >"$dest/gcc.stamp"
fi

# Download the source package $1 into $dest unless a $2 file is there already.
fetch_source() {
  local package=$1 orig=$2
  ls "$dest"/$orig >/dev/null 2>&1 && return
  if ! (cd "$dest" && apt-get source --download-only -qq "$package" >/dev/null 2>&1); then
    # no deb-src entry: add one for Debian's main archive and this release
    if [ ! -f /etc/apt/sources.list.d/forkjoin-deb-src.sources ]; then
      release=$(. /etc/os-release && echo "$VERSION_CODENAME")
      printf '%s\n' 'Types: deb-src' 'URIs: http://deb.debian.org/debian' "Suites: $release" \
        'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' \
        >/etc/apt/sources.list.d/forkjoin-deb-src.sources
    fi
    apt-get update -qq
    (cd "$dest" && apt-get source --download-only -qq "$package" >/dev/null)
  fi
}

fetch_source llvm-toolchain-14 'llvm-toolchain-14_*.orig.tar.xz'
llvm_tar=$(ls "$dest"/llvm-toolchain-14_*.orig.tar.xz | head -n1)
if [ ! -f "$dest/llvm.stamp" ] || [ "$(cat "$dest/llvm.stamp")" != "$llvm_tar" ]; then
  rm -rf "$dest"/llvm-toolchain-*/
  tar -xJf "$llvm_tar" -C "$dest" --wildcards '*/openmp/runtime/test/*'
  echo "$llvm_tar" >"$dest/llvm.stamp"
fi

# oneTBB's tests: the source package of the installed libtbb-dev (tests/peer/onetbb.py builds
# them against its headers); Debian's patches change these files only for the x32 port.
fetch_source onetbb 'onetbb_*.orig.tar.xz'
tbb_tar=$(ls "$dest"/onetbb_*.orig.tar.xz | head -n1)
if [ ! -f "$dest/onetbb.stamp" ] || [ "$(cat "$dest/onetbb.stamp")" != "$tbb_tar" ]; then
  rm -rf "$dest"/oneTBB-*/
  tar -xJf "$tbb_tar" -C "$dest" --wildcards '*/test/conformance/*' '*/test/tbb/*' \
    '*/test/common/*' '*/src/tbbmalloc/shared_utils.h'
  echo "$tbb_tar" >"$dest/onetbb.stamp"
fi
ls -d "$dest"/gcc-*/libgomp/testsuite "$dest"/llvm-toolchain-*/openmp/runtime/test \
  "$dest"/oneTBB-*/test

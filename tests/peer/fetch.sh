#!/usr/bin/env bash
# Unpack the peer runtimes' test suites from Debian's packages into DEST (default
# build/peer-src): libgomp's testsuite from gcc-12-source (a binary package holding gcc's
# source tarball) and openmp/runtime/test from the llvm-toolchain-14 source package, nothing
# else of either. None of it is committed. Needs root for apt-get when gcc-12-source is not
# installed or no deb-src entry is configured (one is added for Debian's main archive).
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

if ! ls "$dest"/llvm-toolchain-14_*.orig.tar.xz >/dev/null 2>&1; then
  if ! (cd "$dest" && apt-get source --download-only -qq llvm-toolchain-14 >/dev/null 2>&1); then
    # no deb-src entry: add one for Debian's main archive and this release
    if [ ! -f /etc/apt/sources.list.d/forkjoin-deb-src.sources ]; then
      release=$(. /etc/os-release && echo "$VERSION_CODENAME")
      printf '%s\n' 'Types: deb-src' 'URIs: http://deb.debian.org/debian' "Suites: $release" \
        'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' \
        >/etc/apt/sources.list.d/forkjoin-deb-src.sources
    fi
    apt-get update -qq
    (cd "$dest" && apt-get source --download-only -qq llvm-toolchain-14 >/dev/null)
  fi
fi
llvm_tar=$(ls "$dest"/llvm-toolchain-14_*.orig.tar.xz | head -n1)
if [ ! -f "$dest/llvm.stamp" ] || [ "$(cat "$dest/llvm.stamp")" != "$llvm_tar" ]; then
  rm -rf "$dest"/llvm-toolchain-*/
  tar -xJf "$llvm_tar" -C "$dest" --wildcards '*/openmp/runtime/test/*'
  echo "$llvm_tar" >"$dest/llvm.stamp"
fi
ls -d "$dest"/gcc-*/libgomp/testsuite "$dest"/llvm-toolchain-*/openmp/runtime/test

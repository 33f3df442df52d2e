#!/bin/sh
# preload_alone.sh CMAKE BUILD PROBE: libforkjoin-tbb.so preloaded alone (no launcher, no
# LD_LIBRARY_PATH) serves PROBE (tbb_replace_probe, linked against native libtbb), from the
# build tree and from an install into a temporary prefix (omp/'s and tbb/'s install scripts of
# BUILD, run by CMAKE): its RUNPATH finds libforkjoin-omp.so beside it. The installed replace
# folder alone in LD_LIBRARY_PATH as well, where the library is opened through a link one
# folder down. Fails naming the form that did not run on forkjoin.
set -u
cmake=$1 build=$2 probe=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
# run WHAT VARIABLE=VALUE: the probe, expecting forkjoin, with that one variable set
run() {
  if out=$(env -u LD_LIBRARY_PATH -u LD_PRELOAD -u LD_AUDIT "$2" "$probe" forkjoin 2>&1); then
    echo "$1: ok"
  else
    printf 'FAILED: %s (%s):\n%s\n' "$1" "$2" "$out"
    status=1
  fi
}
run "preloaded from the build tree" "LD_PRELOAD=$build/tbb/libforkjoin-tbb.so"
for dir in omp tbb; do
  if ! out=$("$cmake" -DCMAKE_INSTALL_PREFIX="$tmp/prefix" -P "$build/$dir/cmake_install.cmake" 2>&1); then
    printf 'FAILED: installing %s:\n%s\n' "$dir" "$out"
    exit 1
  fi
done
lib=$(find "$tmp/prefix" -name libforkjoin-tbb.so -type f)
case $lib in
  */libforkjoin-tbb.so) ;;
  *) echo "FAILED: no single installed libforkjoin-tbb.so under $tmp/prefix: $lib"; exit 1 ;;
esac
run "preloaded from an install" "LD_PRELOAD=$lib"
run "the installed replace folder" "LD_LIBRARY_PATH=${lib%/*}/forkjoin-tbb-replace"
exit "$status"

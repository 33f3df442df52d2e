#!/bin/sh
# check_bindings.sh COMMAND...: runs COMMAND with LD_DEBUG=bindings and fails if any OpenMP
# symbol (GOMP_*, omp_*, ompc_*, kmp_*, __kmpc_*) of the program or its other libraries binds
# to another runtime (libgomp, LLVM's libomp, Intel's libiomp5), or if none binds to
# libforkjoin-omp. A library is judged by the file it resolves to, so a libomp.so.5 link to
# libforkjoin-omp counts as ours, and so does the replace folder's libgomp.so.1 (a hard link
# to the libforkjoin-omp.so beside the folder); the runtimes' references among themselves are not counted.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
LD_DEBUG=bindings LD_DEBUG_OUTPUT="$log" "$@" >/dev/null || { echo "command failed: $*"; exit 1; }
all=$(cat "$log".* 2>/dev/null; rm -f "$log".*)
lines=$(printf '%s\n' "$all" | grep -E "normal symbol \`(GOMP_|omp_|ompc_|kmp_|__kmpc_)" |
        grep -vE 'binding file ([^ ]*/)?(libgomp|libomp|libiomp5|libforkjoin-omp)[.][^ ]* ')
ours=0
foreign=""
for lib in $(printf '%s\n' "$lines" | sed -n 's/.* to \([^ ]*\) \[.*/\1/p' | sort -u); do
  real=$(readlink -f "$lib")
  # shellcheck disable=SC3013 # test -ef: POSIX.1-2024, and every sh of Linux has it
  case $real in
    */forkjoin-omp-replace/*) [ "$real" -ef "${real%/forkjoin-omp-replace/*}/libforkjoin-omp.so" ] && real=ours ;;
  esac
  case $real in
    ours | *libforkjoin-omp.so) ours=$((ours + $(printf '%s\n' "$lines" | grep -c " to $lib "))) ;;
    *libgomp*|*libomp*|*libiomp5*) foreign="$foreign$(printf '%s\n' "$lines" | grep " to $lib ")
" ;;
  esac
done
if [ -n "$foreign" ]; then
  echo "OpenMP symbols bound to another runtime:"
  printf '%s' "$foreign"
  exit 1
fi
if [ "$ours" -eq 0 ]; then
  echo "no OpenMP symbol bound to libforkjoin-omp"
  exit 1
fi
echo "bindings: $ours OpenMP symbols bound to libforkjoin-omp, none to another runtime"

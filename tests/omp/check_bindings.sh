#!/bin/sh
# check_bindings.sh COMMAND...: runs COMMAND with LD_DEBUG=bindings and fails if any GOMP_* or
# omp_* symbol binds to libgomp, or if none binds to libforkjoin-omp.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
LD_DEBUG=bindings LD_DEBUG_OUTPUT="$log" "$@" >/dev/null || { echo "command failed: $*"; exit 1; }
all=$(cat "$log".* 2>/dev/null; rm -f "$log".*)
ours=$(printf '%s\n' "$all" | grep -E "normal symbol \`(GOMP_|omp_)" | grep -c "libforkjoin-omp")
gomp=$(printf '%s\n' "$all" | grep -E "normal symbol \`(GOMP_|omp_)" | grep "libgomp")
if [ -n "$gomp" ]; then
  echo "OpenMP symbols bound to libgomp:"
  printf '%s\n' "$gomp"
  exit 1
fi
if [ "$ours" -eq 0 ]; then
  echo "no OpenMP symbol bound to libforkjoin-omp"
  exit 1
fi
echo "bindings: $ours OpenMP symbols bound to libforkjoin-omp, none to libgomp"

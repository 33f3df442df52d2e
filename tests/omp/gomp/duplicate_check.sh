#!/bin/sh
# duplicate_check.sh LAUNCHER LIBRARY GOMP_PROG LINKED_PROG LATE_PROG NATIVE_GOMP: the
# duplicate-runtime check of libforkjoin-omp. A process that maps native libgomp beside it
# prints one message naming both files, on every run: GOMP_PROG (linked against libgomp) with
# LIBRARY preloaded plainly; LATE_PROG (linked against LIBRARY) opening NATIVE_GOMP with dlopen,
# named when its first region starts the pool, or at exit when it runs none, or at start (before
# main) when NATIVE_GOMP is preloaded. FORKJOIN_STRICT=1 makes each an error (the program
# stops; LATE_PROG before its region, or before main). FORKJOIN_KEEP_NATIVE=
# libgomp accepts it. A clean process prints nothing: GOMP_PROG under the launcher (its audit
# library keeps libgomp out), LINKED_PROG, and LATE_PROG opening nothing native.
set -u
launcher=$1 lib=$2 gomp_prog=$3 linked_prog=$4 late_prog=$5 native=$6
fail=0
message='another OpenMP runtime is mapped in this process'
# expect WHAT STATUS COUNT COMMAND...: COMMAND exits with STATUS (any non-zero for "fail") and
# prints COUNT messages on stderr, each naming NATIVE_GOMP's library and LIBRARY
expect() {
  what=$1 want_status=$2 want=$3
  shift 3
  err=$("$@" 2>&1 >/dev/null)
  status=$?
  n=$(printf '%s\n' "$err" | grep -c "$message")
  ok=1
  case $want_status in
    fail) [ "$status" -ne 0 ] || ok=0 ;;
    *) [ "$status" -eq "$want_status" ] || ok=0 ;;
  esac
  [ "$n" -eq "$want" ] || ok=0
  if [ "$want" -gt 0 ]; then
    printf '%s\n' "$err" | grep "$message" | grep -q "libgomp.so.1 (libgomp.so.1), beside forkjoin's .*libforkjoin-omp.so" || ok=0
    printf '%s\n' "$err" | grep -q "hint: .*forkjoin-omp.*FORKJOIN_STRICT=1" || ok=0
  fi
  if [ "$ok" -eq 1 ]; then
    echo "$what: ok (status $status, $n message(s))"
  else
    echo "FAILED: $what: status $status (expected $want_status), $n message(s) (expected $want):"
    printf '%s\n' "$err"
    fail=1
  fi
}
for run in 1 2 3; do
  expect "preloaded beside libgomp, run $run" 0 1 env LD_PRELOAD="$lib" "$gomp_prog"
done
expect "preloaded beside libgomp, FORKJOIN_STRICT=1" fail 1 env FORKJOIN_STRICT=1 LD_PRELOAD="$lib" "$gomp_prog"
expect "preloaded beside libgomp, FORKJOIN_KEEP_NATIVE=libgomp" 0 0 \
  env FORKJOIN_KEEP_NATIVE=libgomp LD_PRELOAD="$lib" "$gomp_prog"
expect "opened later, at the pool's start" 0 1 "$late_prog" region "$native"
expect "opened later, at exit" 0 1 "$late_prog" noregion "$native"
expect "opened later, FORKJOIN_STRICT=1" fail 1 env FORKJOIN_STRICT=1 "$late_prog" region "$native"
out=$(FORKJOIN_STRICT=1 "$late_prog" region "$native" 2>/dev/null)
case $out in
  *sum*) echo "FAILED: under FORKJOIN_STRICT=1 the region ran: $out"; fail=1 ;;
esac
# mapped from the start: named at initialisation, before main (which strict mode never reaches)
expect "mapped from the start, no region" 0 1 env LD_PRELOAD="$native" "$late_prog" noregion "$native"
out=$(FORKJOIN_STRICT=1 LD_PRELOAD="$native" "$late_prog" noregion "$native" 2>/dev/null)
case $out in
  *sum*) echo "FAILED: under FORKJOIN_STRICT=1 a runtime mapped from the start let main run: $out"; fail=1 ;;
esac
expect "the launcher (its audit library)" 0 0 "$launcher" "$gomp_prog"
expect "the launcher --strict" 0 0 "$launcher" --strict "$gomp_prog"
expect "linked against libforkjoin-omp" 0 0 "$linked_prog"
expect "linked, opening libforkjoin-omp's own replace link" 0 0 "$late_prog" region "${lib%/*}/forkjoin-omp-replace/libgomp.so.1"
[ "$fail" -eq 0 ] && echo "duplicate_check: ok"
exit "$fail"

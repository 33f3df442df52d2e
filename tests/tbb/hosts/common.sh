# common.sh: what the host checks (tests/tbb/hosts/*_check.sh) share; sourced, with
# $launcher (forkjoin-omp) and $probe (libhost-probe.so: host_probe.cpp) set.
# Each check runs a program of Debian's linked against oneTBB twice on input it made, natively
# (the control) and under the launcher, and compares what the two runs wrote and saw.
#
# Both runs get the default pool: FORKJOIN_NUM_THREADS and OMP_NUM_THREADS are unset, so
# forkjoin's pool has as many threads as the affinity mask has CPUs (fewer under a cgroup
# quota), the main thread included, and native oneTBB starts at most as many workers as CPUs
# less one. $pool (nproc: the affinity mask's CPUs) bounds both.
unset FORKJOIN_NUM_THREADS OMP_NUM_THREADS
pool=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
status=0
run_limit=60  # seconds for one run of a program (each takes about one here)

# ok WHAT / failed WHAT: one verdict line; failed marks the check failed.
ok() { echo "ok:     $*"; }
failed() {
  echo "FAILED: $*"
  status=1
}
# check WHAT COMMAND...: ok or failed, as COMMAND succeeds
check() {
  what=$1
  shift
  if "$@"; then ok "$what"; else failed "$what"; fi
}

# skip WHY: the test is skipped (exit status 77, ctest's SKIP_RETURN_CODE), saying why.
skip() {
  echo "SKIPPED: $*"
  exit 77
}

# need PROGRAM PACKAGE: skipped unless PROGRAM is installed (Debian's PACKAGE).
need() {
  command -v "$1" >/dev/null 2>&1 || skip "$1 not found (Debian: apt-get install $2)"
}

# now_ms: the wall clock in milliseconds
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# run MODE COMMAND...: COMMAND natively (MODE native) or under the launcher (MODE forkjoin),
# with the probe preloaded, reporting to MODE.probe in the current folder; its output goes to
# MODE.out and MODE.err (shown when it fails). Stopped after $run_limit seconds (exit status
# 124), so that a hang fails with its output, before ctest's own limit. Prints its wall time
# (the launcher's own start included). Its exit status is COMMAND's.
run() {
  mode=$1
  shift
  exe=$(command -v "$1")
  exe=$(readlink -f "$exe")
  [ "$mode" = forkjoin ] && set -- "$launcher" "$@"  # which puts its libraries before the probe
  set -- env "FORKJOIN_HOST_PROBE=$PWD/$mode.probe" "FORKJOIN_HOST_PROBE_EXE=$exe" \
    "LD_PRELOAD=$probe${LD_PRELOAD:+:$LD_PRELOAD}" "$@"
  command -v timeout >/dev/null 2>&1 && set -- timeout "$run_limit" "$@"
  rm -f "$mode.probe"
  t0=$(now_ms)
  "$@" >"$mode.out" 2>"$mode.err"
  rc=$?
  t1=$(now_ms)
  echo "$mode: wall time $((t1 - t0)) ms"
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
    [ "$rc" -eq 124 ] && echo "$mode: stopped after $run_limit s"
    echo "$mode: exit status $rc; its output:"
    cat "$mode.out" "$mode.err"
  fi
  return $rc
}

# report_value MODE KEY: the value of "KEY N" in MODE.probe (empty when missing)
report_value() { sed -n "s/^$2 //p" "$1.probe" 2>/dev/null | head -n 1; }

# check_runtimes MODE MAPS: MAPS lists the files the program mapped, one a line. Under forkjoin,
# libforkjoin-tbb is mapped and no native oneTBB or OpenMP runtime (libtbb, libgomp, libomp,
# libiomp5 outside forkjoin's replace folders); natively, native oneTBB and nothing of
# forkjoin's (its libraries, by file name, and its replace folders).
check_runtimes() {
  ours=$(grep -E '/libforkjoin-(omp|tbb|audit)\.so$|/forkjoin-(omp|tbb)-replace/' "$2")
  native=$(grep -E '/lib(tbb|gomp|omp|iomp5)([-.][^/]*)?\.so[^/]*$' "$2" | grep -v '/libtbbmalloc' |
    grep -v -E '/forkjoin-(omp|tbb)-replace/')
  echo "$1: runtimes mapped: $(printf '%s\n' "$native" "$ours" | sed '/^$/d' | sort -u | tr '\n' ' ')"
  if [ "$1" = forkjoin ]; then
    check "forkjoin: libforkjoin-tbb is mapped" grep -q '/libforkjoin-tbb\.so$' "$2"
    check "forkjoin: no native oneTBB or OpenMP runtime is mapped" test -z "$native"
  else
    check "native: native oneTBB (libtbb.so.12) is mapped" grep -q '/libtbb\.so\.12' "$2"
    check "native: nothing of forkjoin's is mapped" test -z "$ours"
  fi
}

# check_probe_runtimes MODE: check_runtimes on the files the probe saw mapped at exit
check_probe_runtimes() {
  sed -n 's/^map //p' "$1.probe" >"$1.maps"
  check_runtimes "$1" "$1.maps"
}

# check_threads MODE OWN: the most threads alive at once, from the probe, against the bound.
# OWN: the program's own threads besides its main thread (none for a program that starts no
# thread but oneTBB's). Natively: at most $pool + OWN (oneTBB's workers, CPUs less one, the
# main thread, the program's own). Under forkjoin: at most $pool + OWN besides forkjoin's
# spare threads (the pool's, the main thread among them, and the program's own); a spare is
# started only in place of a pool thread blocked in a wait (one in an isolated region, which
# may not run the pool's other work: Embree's isolated_task_group), one at most for each
# blocked thread, so with only the pool's threads blocking at most $pool at once.
check_threads() {
  most=$(report_value "$1" most_alive)
  others=$(report_value "$1" most_alive_without_spares)
  spares=$(report_value "$1" most_spares)
  case $2 in
    '' | *[!0-9]*)
      failed "$1: the program's own threads are known (got '$2')"
      return
      ;;
  esac
  bound=$((pool + $2))
  echo "$1: threads: at most $most alive at once ($spares spare), $(report_value "$1" started) started;" \
    "at exit besides the main one: $(sed -n 's/^thread //p' "$1.probe" | tr '\n' ' ')"
  if [ -z "$most" ]; then
    failed "$1: the probe reported (is $probe preloaded?)"
    return
  fi
  if [ "$1" = forkjoin ]; then
    check "forkjoin: $others threads at once besides spares, at most the pool's $pool + $2 of the program's" \
      test "$others" -le "$bound"
    check "forkjoin: $spares spare threads at once, at most the pool's $pool" test "$spares" -le "$pool"
  else
    # oneTBB may start a worker in place of one it released that is still exiting (seen once
    # in a CI run beside a loaded test suite: 2 workers started on 2 CPUs, 3 threads at once):
    # then one more
    started=$(report_value "$1" started)
    [ "${started:-0}" -gt $((pool - 1 + $2)) ] && bound=$((bound + 1))
    what="native: $most threads at once, at most $bound ($pool CPUs + $2 of the program's, one more if a worker was replaced)"
    check "$what" test "$most" -le "$bound"
  fi
}

# check_forkjoin_threads_named: under forkjoin, with no thread of the program's own, every
# thread alive at exit but the main one is forkjoin's (forkjoin-<i>).
check_forkjoin_threads_named() {
  strays=$(sed -n 's/^thread //p' forkjoin.probe | grep -v '^forkjoin-')
  check "forkjoin: every thread but the main one is forkjoin's" test -z "$strays"
}

# finish NAME: the verdict, and the exit status
finish() {
  if [ "$status" -eq 0 ]; then echo "$1: ok"; else echo "$1: FAILED"; fi
  exit "$status"
}

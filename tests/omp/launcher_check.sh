#!/bin/sh
# launcher_check.sh LAUNCHER FOREIGN CLEAN: the launcher names, before the program runs, each
# entry point that would bind to another OpenMP runtime (FOREIGN calls acc_get_num_devices,
# which only libgomp provides), refuses to run it with --strict, says nothing with --no-check,
# and says nothing for a program whose every OpenMP call binds to libforkjoin-omp (CLEAN).
launcher=$1 foreign=$2 clean=$3
fail() { echo "FAILED: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
warning="forkjoin-omp: warning: $foreign calls OpenMP entry points that libforkjoin-omp does not provide; they would run on another runtime:
forkjoin-omp:   acc_get_num_devices@OACC_2.0 (libgomp.so.1)
forkjoin-omp: the preload form (this launcher) suits this program: libgomp stays loaded for those calls alone; with the replace folder or -lforkjoin-omp it would not start (version not found)"

"$launcher" "$foreign" >"$tmp/out" 2>"$tmp/err" || fail "the program failed: $(cat "$tmp/err")"
[ "$(cat "$tmp/err")" = "$warning" ] || fail "warning: got '$(cat "$tmp/err")'"
grep -q '^ran: ' "$tmp/out" || fail "the program did not run"

"$launcher" --strict "$foreign" >"$tmp/out" 2>"$tmp/err" && fail "--strict ran the program"
[ "$(cat "$tmp/err")" = "$warning
forkjoin-omp: not running $foreign (--strict)" ] || fail "--strict: got '$(cat "$tmp/err")'"
[ ! -s "$tmp/out" ] || fail "--strict: the program ran"

"$launcher" --no-check -- "$foreign" >"$tmp/out" 2>"$tmp/err" || fail "--no-check: the program failed"
[ ! -s "$tmp/err" ] || fail "--no-check: got '$(cat "$tmp/err")'"

"$launcher" --strict "$clean" >"$tmp/out" 2>"$tmp/err" || fail "a clean program failed under --strict: $(cat "$tmp/err")"
[ ! -s "$tmp/err" ] || fail "a clean program: got '$(cat "$tmp/err")'"
echo "launcher_check: warned, refused with --strict, quiet with --no-check and for a clean program"

#!/bin/sh
# launcher_usage.sh LAUNCHER VERSION PROGRAM: the launcher explains itself and fails as a shell
# does. --help and -h print the usage text on stdout (synopsis, options, how to confirm that a
# program ran on forkjoin, environment, exit statuses, where the docs are) and exit 0; --version prints forkjoin's VERSION; an unknown
# option, or no PROGRAM, prints the usage on stderr and exits 2; a PROGRAM that is not found
# exits 127 and one that cannot be executed 126, each with one line naming it; -- ends the
# options (a PROGRAM named -x runs); PROGRAM (an OpenMP program) still runs with its arguments.
launcher=$1 version=$2 program=$3
fail() { echo "FAILED: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# run ARGS...: the launcher's stdout in $tmp/out, stderr in $tmp/err, exit status in $status
run() {
  "$launcher" "$@" >"$tmp/out" 2>"$tmp/err"
  status=$?
}
synopsis="usage: forkjoin-omp [--strict | --no-check] [--] PROGRAM [ARGS...]"

for opt in --help -h; do
  run "$opt"
  [ "$status" -eq 0 ] || fail "$opt: exit status $status"
  [ ! -s "$tmp/err" ] || fail "$opt: wrote on stderr: $(cat "$tmp/err")"
  [ "$(head -n 1 "$tmp/out")" = "$synopsis" ] || fail "$opt: the first line is not the synopsis: $(head -n 1 "$tmp/out")"
  for want in --strict --no-check 'end of the options' --version FORKJOIN_OMP_LIBRARY XDG_CACHE_HOME \
    LD_LIBRARY_PATH OMP_NUM_THREADS 'Exit status' '  126 ' '  127 ' '  2 ' docs/openmp-binary.md \
    'replace folder' "$version" LD_AUDIT FORKJOIN_AUDIT_LIBRARY FORKJOIN_KEEP_NATIVE FORKJOIN_STRICT \
    'ran on forkjoin' OMP_DISPLAY_ENV=verbose FORKJOIN_OMP_RUNTIME FORKJOIN_STATS=1 /proc/PID/maps forkjoin-N \
    TBB_runtime_version; do
    grep -q -e "$want" "$tmp/out" || fail "$opt: the text does not mention '$want'"
  done
done
# the text fits a terminal: no line over 100 columns but the one naming the library's path
long=$(grep -v FORKJOIN_OMP_LIBRARY "$tmp/out" | awk 'length($0) > 100')
[ -z "$long" ] || fail "--help: lines over 100 columns: $long"

run --version
[ "$status" -eq 0 ] || fail "--version: exit status $status"
[ "$(cat "$tmp/out")" = "forkjoin-omp (forkjoin) $version" ] || fail "--version: got '$(cat "$tmp/out")'"

# usage errors: the synopsis on stderr, nothing on stdout, status 2
for args in "--bogus $program" "-x" "--strict"; do
  # shellcheck disable=SC2086 # the words of $args
  run $args
  [ "$status" -eq 2 ] || fail "'$args': exit status $status, expected 2"
  [ ! -s "$tmp/out" ] || fail "'$args': wrote on stdout"
  grep -qxF -e "$synopsis" "$tmp/err" || fail "'$args': no usage on stderr: $(cat "$tmp/err")"
done
run --bogus "$program"
grep -q -e "unknown option: --bogus" "$tmp/err" || fail "--bogus: the message does not name it: $(cat "$tmp/err")"

# a program that is not there: 127, by path and by name (looked up in PATH)
run "$tmp/no-such-program" arg
[ "$status" -eq 127 ] || fail "a missing path: exit status $status, expected 127"
[ "$(cat "$tmp/err")" = "forkjoin-omp: $tmp/no-such-program: not found" ] || fail "a missing path: got '$(cat "$tmp/err")'"
run forkjoin-omp-no-such-program
[ "$status" -eq 127 ] || fail "a missing name: exit status $status, expected 127"
# found but not executable (a plain file, a directory): 126
printf 'int x;\n' >"$tmp/not-executable"
for what in "$tmp/not-executable" "$tmp"; do
  run "$what"
  [ "$status" -eq 126 ] || fail "$what: exit status $status, expected 126"
  grep -q "^forkjoin-omp: $what: cannot execute" "$tmp/err" || fail "$what: got '$(cat "$tmp/err")'"
done

# -- ends the options: a program named -x (found in PATH) runs, with its arguments
printf '#!/bin/sh\necho "dash ran: $*"\n' >"$tmp/-x"
chmod +x "$tmp/-x"
status=0
PATH="$tmp:$PATH" "$launcher" --no-check -- -x --help >"$tmp/out" 2>"$tmp/err" || status=$?
if [ "$status" -ne 0 ] || [ "$(cat "$tmp/out")" != "dash ran: --help" ]; then
  fail "-- -x --help: status $status, stdout '$(cat "$tmp/out")', stderr '$(cat "$tmp/err")'"
fi
# options after PROGRAM are PROGRAM's; its exit status comes back
printf '#!/bin/sh\nexit 42\n' >"$tmp/exit42"
chmod +x "$tmp/exit42"
run "$tmp/exit42" --help
[ "$status" -eq 42 ] || fail "the program's exit status: $status, expected 42"

# an OpenMP program still runs
run "$program"
[ "$status" -eq 0 ] || fail "$program: exit status $status: $(cat "$tmp/err")"
echo "launcher_usage: --help, -h, --version, usage errors (2), not found (127), not executable (126), --"

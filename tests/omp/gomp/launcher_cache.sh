#!/bin/sh
# launcher_cache.sh LAUNCHER CC: the launcher's check, cached per program, says what it says
# without the cache. CC builds, in a temporary directory, programs that call an OpenACC routine
# (which only libgomp provides: the check names it) or not, themselves or through a library
# they link; each change must bring the check back:
# - a warm entry prints the cold check's warning byte for byte, refuses under --strict, says
#   nothing with --no-check, and runs neither ldd nor readelf (both stubbed on PATH);
# - the program rewritten in place (same inode, same size: both variants are padded to one
#   size), then rewritten again with its mtime put back (only the ctime tells);
# - a library it links replaced, and the same program under another LD_LIBRARY_PATH;
# - a cache directory that cannot be made, HOME unset: the check runs on every launch, quietly.
# HOME and XDG_CACHE_HOME point into the temporary directory.
launcher=$1 cc=$2
fail() { echo "FAILED: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
HOME=$tmp/home
export HOME
unset XDG_CACHE_HOME
mkdir -p "$HOME" "$tmp/stubs" "$tmp/v1" "$tmp/v2" || fail "mkdir"
entries=$HOME/.cache/forkjoin-omp

# the programs and libraries
cat >"$tmp/acc.c" <<'EOF'
#include <stdio.h>
int acc_get_num_devices(int device_type); /* libgomp only (OpenACC) */
int main(void) { printf("ran: %d\n", acc_get_num_devices(2)); return 0; }
EOF
cat >"$tmp/clean.c" <<'EOF'
#include <stdio.h>
int omp_get_num_devices(void); /* libforkjoin-omp has it */
int main(void) { printf("ran: %d\n", omp_get_num_devices()); return 0; }
EOF
cat >"$tmp/mid_acc.c" <<'EOF'
int acc_get_num_devices(int device_type);
int mid(void) { return acc_get_num_devices(2); }
EOF
cat >"$tmp/mid_clean.c" <<'EOF'
int omp_get_num_devices(void);
int mid(void) { return omp_get_num_devices(); }
EOF
cat >"$tmp/main_mid.c" <<'EOF'
#include <stdio.h>
int mid(void);
int main(void) { printf("ran: %d\n", mid()); return 0; }
EOF
"$cc" -fopenmp "$tmp/acc.c" -o "$tmp/acc" &&
  "$cc" -fopenmp "$tmp/clean.c" -o "$tmp/clean" &&
  "$cc" -fopenmp -shared -fPIC "$tmp/mid_clean.c" -o "$tmp/v1/libmid.so" &&
  "$cc" -fopenmp -shared -fPIC "$tmp/mid_acc.c" -o "$tmp/v2/libmid.so" &&
  "$cc" -fopenmp "$tmp/main_mid.c" -L"$tmp/v1" -lmid -o "$tmp/uses_mid" || fail "cannot build the programs with $cc"
# one size for both programs (an ELF file may carry bytes past its last section)
size=$(wc -c <"$tmp/acc")
[ "$(wc -c <"$tmp/clean")" -gt "$size" ] && size=$(wc -c <"$tmp/clean")
truncate -s "$size" "$tmp/acc" "$tmp/clean" || fail "truncate"

warning() {
  echo "forkjoin-omp: warning: $1 calls OpenMP entry points that libforkjoin-omp does not provide; they would run on another runtime:
forkjoin-omp:   acc_get_num_devices@OACC_2.0 (libgomp.so.1)
forkjoin-omp: the preload form (this launcher) suits this program: libgomp stays loaded for those calls alone; with the replace folder or -lforkjoin-omp it would not start (version not found)"
}
# run NAME [ENV=VALUE...] -- LAUNCHER-ARGS...: runs the launcher, stdout to $tmp/NAME.out,
# stderr to $tmp/NAME.err, exit status in $status
run() {
  name=$1
  shift
  env "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  status=$?
}
# expects NAME STATUS STDERR: what run NAME gave
expect() {
  [ "$status" -eq "$2" ] || fail "$1: exit status $status, expected $2; stderr: $(cat "$tmp/$1.err")"
  [ "$(cat "$tmp/$1.err")" = "$3" ] || fail "$1: stderr '$(cat "$tmp/$1.err")', expected '$3'"
  if [ "$2" -eq 0 ]; then
    grep -q '^ran: ' "$tmp/$1.out" || fail "$1: the program did not run"
  else
    [ ! -s "$tmp/$1.out" ] || fail "$1: the program ran"
  fi
}
# stubs that record a call: a warm launch must not need ldd or readelf
for tool in ldd readelf; do
  printf '#!/bin/sh\ntouch "%s/called-%s"\nexit 1\n' "$tmp" "$tool" >"$tmp/stubs/$tool"
  chmod +x "$tmp/stubs/$tool"
done
warm_path=$tmp/stubs:$PATH
not_rechecked() {
  for tool in ldd readelf; do
    [ ! -e "$tmp/called-$tool" ] || fail "$1: the launcher ran $tool: the cache was not used"
  done
}

prog=$tmp/prog
cp "$tmp/clean" "$prog" || fail "cp"
run clean_cold "$launcher" "$prog"
expect clean_cold 0 ""
[ -n "$(ls "$entries")" ] || fail "clean_cold: no cache entry in $entries"
run clean_warm PATH="$warm_path" "$launcher" "$prog"
expect clean_warm 0 ""
not_rechecked clean_warm

# rewritten in place: the same inode and size, a new mtime
cat "$tmp/acc" >"$prog" || fail "rewrite"
run acc_cold "$launcher" "$prog"
expect acc_cold 0 "$(warning "$prog")"
run acc_warm PATH="$warm_path" "$launcher" "$prog"
expect acc_warm 0 "$(warning "$prog")"
cmp -s "$tmp/acc_cold.err" "$tmp/acc_warm.err" || fail "acc_warm: another warning than the cold check's"
run acc_strict PATH="$warm_path" "$launcher" --strict "$prog"
expect acc_strict 1 "$(warning "$prog")
forkjoin-omp: not running $prog (--strict)"
run acc_no_check PATH="$warm_path" "$launcher" --no-check -- "$prog"
expect acc_no_check 0 ""
not_rechecked acc_warm/acc_strict/acc_no_check
# found on PATH, it is the same program (the same entry) and named as given
run acc_on_path PATH="$tmp:$warm_path" "$launcher" prog
expect acc_on_path 0 "$(warning prog)"
not_rechecked acc_on_path

# rewritten in place with its mtime put back: the ctime still changes
touch -r "$prog" "$tmp/stamp" && cat "$tmp/clean" >"$prog" && touch -r "$tmp/stamp" "$prog" || fail "rewrite"
run clean_again "$launcher" --strict "$prog"
expect clean_again 0 ""

# a library it links: replaced (a new file renamed over it), and found elsewhere
mid=$tmp/uses_mid
run mid_v1 LD_LIBRARY_PATH="$tmp/v1" "$launcher" "$mid"
expect mid_v1 0 ""
run mid_v1_warm LD_LIBRARY_PATH="$tmp/v1" PATH="$warm_path" "$launcher" "$mid"
expect mid_v1_warm 0 ""
not_rechecked mid_v1_warm
run mid_v2 LD_LIBRARY_PATH="$tmp/v2" "$launcher" --strict "$mid"
expect mid_v2 1 "$(warning "$mid")
forkjoin-omp: not running $mid (--strict)"
run mid_v1_again LD_LIBRARY_PATH="$tmp/v1" "$launcher" "$mid"
expect mid_v1_again 0 ""
cp "$tmp/v2/libmid.so" "$tmp/v1/libmid.so.new" && mv "$tmp/v1/libmid.so.new" "$tmp/v1/libmid.so" || fail "replace"
run mid_replaced LD_LIBRARY_PATH="$tmp/v1" "$launcher" "$mid"
expect mid_replaced 0 "$(warning "$mid")"
run mid_replaced_strict LD_LIBRARY_PATH="$tmp/v1" PATH="$warm_path" "$launcher" --strict "$mid"
expect mid_replaced_strict 1 "$(warning "$mid")
forkjoin-omp: not running $mid (--strict)"
not_rechecked mid_replaced_strict

# no cache: a directory that cannot be made (under a regular file), and no HOME at all; the
# check runs on every launch and says the same, and nothing complains about the cache
: >"$tmp/file"
for how in "XDG_CACHE_HOME=$tmp/file/cache" "-u HOME"; do
  for i in 1 2; do
    # shellcheck disable=SC2086 # env's arguments
    run "no_cache_$i" $how "$launcher" --strict "$tmp/clean"
    expect "no_cache_$i" 0 ""
    # shellcheck disable=SC2086
    run "no_cache_mid_$i" $how LD_LIBRARY_PATH="$tmp/v2" "$launcher" --strict "$mid"
    expect "no_cache_mid_$i" 1 "$(warning "$mid")
forkjoin-omp: not running $mid (--strict)"
  done
done
[ ! -e "$tmp/file/cache" ] || fail "a cache under a regular file"
# a cache directory that cannot be written, holding an entry that is out of date (meaningful
# when not run as root, who may write anyway)
chmod a-w "$entries"
cat "$tmp/acc" >"$prog" || fail "rewrite"
run read_only "$launcher" "$prog"
expect read_only 0 "$(warning "$prog")"
chmod u+w "$entries"
echo "launcher_cache: warm entries warn as the cold check does and refuse under --strict without ldd or readelf; a changed program, library or LD_LIBRARY_PATH is checked again; no cache directory still checks"

#!/bin/sh
# exported_set.sh OURS LIBGOMP: libforkjoin-omp exports every entry point LIBGOMP does, each
# under the same version (the default one, name@@NODE, and the older ones, name@NODE), apart
# from OpenACC (acc_*, GOACC_*) and the functions libgomp provides to its offload plugins
# (GOMP_PLUGIN_*); and nothing in libgomp's OMP_* / GOMP_* nodes that libgomp lacks, apart from
# the *_with_hint lock initialisers (C and Fortran) that gcc's omp.h and omp_lib declare but
# libgomp 12 does not provide (OMP_4.5). Fails listing what differs.
set -u
defined() {  # the defined dynamic symbols as name@@NODE / name@NODE
  readelf --dyn-syms -W "$1" | awk '$7 != "UND" && $7 != "ABS" && NF >= 8 {print $8}' | sort -u
}
ours=$(mktemp)
theirs=$(mktemp)
trap 'rm -f "$ours" "$theirs"' EXIT
defined "$1" | grep -E '^(GOMP_|omp_)' >"$ours"
defined "$2" | grep -E '^(GOMP_|omp_)' | grep -vE '^(acc_|GOACC_|GOMP_PLUGIN_)' >"$theirs"
[ -s "$theirs" ] || { echo "no OpenMP symbols read from $2"; exit 1; }
missing=$(comm -13 "$ours" "$theirs")
extra=$(comm -23 "$ours" "$theirs" | grep -E '@@?(OMP|GOMP)_[0-9.]+$' |
  grep -vxE 'omp_init_(nest_)?lock_with_hint_?@@OMP_4\.5')
status=0
if [ -n "$missing" ]; then
  echo "exported by libgomp, missing from libforkjoin-omp (or under another version):"
  printf '  %s\n' $missing
  status=1
fi
if [ -n "$extra" ]; then
  echo "exported by libforkjoin-omp under libgomp's version nodes, unknown to libgomp:"
  printf '  %s\n' $extra
  status=1
fi
[ "$status" -eq 0 ] && echo "exported_set: $(wc -l <"$theirs") libgomp entry points, all exported with their versions ($(wc -l <"$ours") in all)"
exit "$status"

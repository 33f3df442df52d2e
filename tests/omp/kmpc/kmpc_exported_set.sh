#!/bin/sh
# kmpc_exported_set.sh OURS LIBOMP: libforkjoin-omp exports, under libomp's version node
# VERSION, every C entry point LIBOMP (LLVM's libomp.so.5) exports there: the __kmpc_* ABI, the
# omp_* user API, libomp's ompc_*/kmp_*/kmpc_* names and the link-time markers of Intel's
# runtime (_You_must_link_with_*), apart from the ones listed below with the reason each is
# left out; and nothing under VERSION that LIBOMP lacks. Not compared: libomp's GOMP_*
# compatibility names under VERSION (gcc programs bind libgomp's nodes, which exported_set.sh
# checks), its Fortran names (trailing underscore: flang's; gfortran programs bind libgomp's),
# and its internals (__kmp_*, ompt_start_tool, the kmp_*_debug variables). Fails listing what
# differs.
set -u
# name: why it is not exported (docs/openmp-binary.md, "clang programs")
absent='
kmp_get_cancellation_status kmp_get_num_known_threads kmp_mutex_impl_info kmp_max_mem_alloc
kmp_threadprivate_insert kmp_threadprivate_insert_private_data kmp_diag: libomp internals and diagnostics
'
names() {  # the C names a library defines under VERSION, one a line, without the version
  readelf --dyn-syms -W "$1" | awk '$7 != "UND" && $7 != "ABS" && NF >= 8 && $8 ~ /@@?VERSION$/ {print $8}' |
    sed 's/@@*VERSION$//' | grep -E '^(__kmpc_|omp_|ompc_|kmp_|kmpc_|_You_must_link_with_)' | grep -v '_$' |
    grep -vE '^kmp_[a-f]_debug$' | sort -u
}
ours=$(mktemp)
theirs=$(mktemp)
skip=$(mktemp)
trap 'rm -f "$ours" "$theirs" "$skip"' EXIT
names "$1" >"$ours"
names "$2" >"$theirs"
[ -s "$theirs" ] || { echo "no VERSION symbols read from $2"; exit 1; }
printf '%s\n' "$absent" | sed 's/:.*//' | tr ' ' '\n' | grep . | sort -u >"$skip"
missing=$(comm -13 "$ours" "$theirs" | comm -23 - "$skip")
extra=$(comm -23 "$ours" "$theirs")
listed=$(comm -12 "$ours" "$skip")
status=0
if [ -n "$missing" ]; then
  echo "exported by libomp under VERSION, missing from libforkjoin-omp:"
  printf '  %s\n' $missing
  status=1
fi
if [ -n "$extra" ]; then
  echo "exported by libforkjoin-omp under VERSION, unknown to libomp:"
  printf '  %s\n' $extra
  status=1
fi
if [ -n "$listed" ]; then
  echo "exported by libforkjoin-omp, but listed here as left out:"
  printf '  %s\n' $listed
  status=1
fi
[ "$status" -eq 0 ] && echo "kmpc_exported_set: $(wc -l <"$ours") of libomp's $(wc -l <"$theirs") C entry points under VERSION ($(wc -l <"$skip") left out, each with its reason)"
exit "$status"

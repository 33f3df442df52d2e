#!/bin/sh
# abi_versions.sh OURS LIBGOMP: every GOMP_*/omp_* symbol OURS exports must carry the version
# node LIBGOMP gives it (as the default version), or OMP_4.5 for the two *_with_hint locks.
# Names under libomp's node VERSION (the KMPC front-end's) are not libgomp's business.
ours=$(objdump -T "$1" | awk '$NF ~ /^(GOMP_|omp_)/ && $(NF-1) !~ /VERSION/ {print $NF, $(NF-1)}' | sort)
theirs=$(objdump -T "$2" | awk '$NF ~ /^(GOMP_|omp_)/ && $(NF-1) !~ /^\(/ {print $NF, $(NF-1)}' | sort)
bad=0
printf '%s\n' "$ours" | while read -r name ver; do
  want=$(printf '%s\n' "$theirs" | awk -v n="$name" '$1 == n {print $2}' | sort | tail -n 1)
  case "$name" in omp_init_lock_with_hint|omp_init_nest_lock_with_hint) want=OMP_4.5 ;; esac
  if [ "$want" != "$ver" ]; then
    echo "$name: exported as $ver, libgomp has '${want}'"
    exit 1
  fi
done || exit 1
n=$(printf '%s\n' "$ours" | grep -c .)
echo "abi_versions: $n symbols, all under libgomp's version nodes"

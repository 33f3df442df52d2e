#!/bin/sh
# check_exported_set.sh OURS NATIVE: the symbols libforkjoin-tbb exports under its oneTBB
# node (TBB_FORKJOIN_1) are exactly those native libtbb.so.12 exports, and everything else it
# exports is forkjoin's header code under FORKJOIN_1 (tbb/libforkjoin-tbb.map).
set -eu
ours=$(mktemp) native=$(mktemp) other=$(mktemp)
trap 'rm -f "$ours" "$native" "$other"' EXIT
nm -D --defined-only "$1" | awk '{print $3}' | grep '@@TBB_FORKJOIN_1$' | sed 's/@.*//' | grep -v '^TBB_FORKJOIN_1$' | sort -u >"$ours"
nm -D --defined-only "$2" | awk '{print $3}' | sed 's/@.*//' | sort -u >"$native"
nm -D --defined-only "$1" | awk '{print $3}' | grep -v '@@TBB_FORKJOIN_1$\|@@FORKJOIN_1$\|^FORKJOIN_1$\|^TBB_FORKJOIN_1$' >"$other" || true
status=0
if ! diff -u "$native" "$ours"; then
  echo "the oneTBB symbols differ from $2's (- native only, + ours only)"
  status=1
fi
if [ -s "$other" ]; then
  echo "exported outside both version nodes:"
  cat "$other"
  status=1
fi
[ "$status" -eq 0 ] && echo "$(wc -l <"$ours") oneTBB symbols, the same as $2"
exit "$status"

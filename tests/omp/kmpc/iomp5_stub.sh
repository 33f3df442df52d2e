#!/bin/sh
# iomp5_stub.sh CC DIR OBJECT...: DIR/libiomp5.so, a stand-in for Intel's runtime to link the
# OBJECTs against, so that a program names libiomp5.so in DT_NEEDED and libiomp5.so's version
# node VERSION in its version needs, as one linked against Intel's libiomp5 does (Debian's
# libiomp5.so is a link to LLVM's libomp, whose soname is libomp.so.5). It defines each OpenMP
# entry point the OBJECTs call as a function that aborts: no program is run on it.
set -eu
cc=$1 dir=$2
shift 2
mkdir -p "$dir"
{
  echo '#include <stdlib.h>'
  nm -u "$@" | awk '$1 == "U" && $2 ~ /^(__kmpc_|omp_|kmp_)/ { print $2 }' | sort -u |
    awk '{ print "void " $1 "(void) { abort(); }" }'
} >"$dir/stub.c"
echo 'VERSION { global: *; };' >"$dir/stub.map"
"$cc" -shared -fPIC -w -Wl,-soname,libiomp5.so -Wl,--version-script="$dir/stub.map" "$dir/stub.c" -o "$dir/libiomp5.so"

#!/bin/sh
# reorder_ldpath.sh DIRS PROGRAM [ARGS...]: runs PROGRAM with DIRS put first in LD_LIBRARY_PATH,
# as R's start-up script (etc/ldpaths) puts R's and the system's library folders before the
# ones it was given: a replace folder the launcher put first is then searched after them.
dirs=$1
shift
LD_LIBRARY_PATH="$dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
exec "$@"

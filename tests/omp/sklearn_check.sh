#!/bin/sh
# sklearn_check.sh LAUNCHER: runs sklearn_check.py (beside this script) under the launcher
# with OMP_NUM_THREADS=3, on Debian's /usr/bin/python3 with python3-sklearn (scikit-learn
# built with gcc -fopenmp) and python3-threadpoolctl. Exit status 77 (ctest's
# SKIP_RETURN_CODE) when that Python lacks either.
launcher=$1
python=/usr/bin/python3
if ! "$python" -c 'import sklearn, threadpoolctl' >/dev/null 2>&1; then
  echo "SKIPPED: $python has no scikit-learn or threadpoolctl (apt-get install python3-sklearn python3-threadpoolctl)"
  exit 77
fi
OMP_NUM_THREADS=3 exec "$launcher" "$python" "${0%/*}/sklearn_check.py" 3

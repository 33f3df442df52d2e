#!/bin/sh
# threadpoolctl_check.sh LAUNCHER LIBRARY: runs threadpoolctl_check.py (beside this script)
# under the launcher with OMP_NUM_THREADS=3, on the first Python that has threadpoolctl:
# Debian's /usr/bin/python3 (python3-threadpoolctl), else python3 in PATH. Exit status 77
# (ctest's SKIP_RETURN_CODE) when none has it.
launcher=$1 library=$2
python=
for candidate in /usr/bin/python3 python3; do
  if "$candidate" -c 'import threadpoolctl' >/dev/null 2>&1; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  echo "SKIPPED: no Python with threadpoolctl (Debian: apt-get install python3-threadpoolctl)"
  exit 77
fi
OMP_NUM_THREADS=3 exec "$launcher" "$python" "${0%/*}/threadpoolctl_check.py" 3 "$library"

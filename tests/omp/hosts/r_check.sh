#!/bin/sh
# r_check.sh LAUNCHER SCRIPT PACKAGE ARGS...: runs the R check SCRIPT (hosts/*.R) with ARGS
# twice, without forkjoin (mode native, the control) and under LAUNCHER (mode forkjoin), with
# OMP_NUM_THREADS=2; both must pass. Exit status 77 (the test is skipped), saying why, when
# Rscript or the R package PACKAGE is not installed.
launcher=$1 script=$2 package=$3
shift 3
here=${0%/*}
if ! command -v Rscript >/dev/null 2>&1; then
  echo "SKIPPED: Rscript not found (Debian: apt-get install r-base-core)"
  exit 77
fi
if ! Rscript -e "quit(status = !requireNamespace('$package', quietly = TRUE))" >/dev/null 2>&1; then
  debian=$(echo "r-cran-$package" | tr '[:upper:]' '[:lower:]')
  echo "SKIPPED: the R package $package is not installed (Debian: apt-get install $debian)"
  exit 77
fi
export OMP_NUM_THREADS=2
status=0
echo "--- without forkjoin"
Rscript "$script" native "$here/common.R" "$@" || status=1
echo "--- under $launcher"
"$launcher" Rscript "$script" forkjoin "$here/common.R" "$@" || status=1
exit "$status"

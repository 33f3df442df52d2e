#!/bin/sh
# opencv_check.sh LAUNCHER PROBE DIR: Debian's OpenCV for Python (python3-opencv: cv2 on
# libopencv_core, whose parallel_for_ runs on oneTBB) runs opencv_ops.py with OpenCV's thread
# count set to 8 (or the CPU count, when larger: a count at least the pool's size makes
# OpenCV's task_arena borrow the pool's threads; a smaller one gets slots of its own that the
# pool's threads are lent to, docs/tbb.md), natively and under LAUNCHER. The filters'
# results equal the serial ones in both runs and are equal byte for byte between them; under forkjoin libforkjoin-tbb runs
# them with no native runtime mapped (the script's /proc/self/maps), on no more threads than
# the pool and the threads Python had before (common.sh). Skipped (77), saying why, where
# Debian's Python lacks cv2 or its OpenCV does not run on oneTBB.
launcher=$1 probe=$2 dir=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
python=/usr/bin/python3  # Debian's: python3-opencv installs cv2 for it alone
[ -x $python ] || skip "$python not found (Debian: apt-get install python3-opencv)"
$python -c "import cv2" >/dev/null 2>&1 || skip "$python cannot import cv2 (Debian: apt-get install python3-opencv)"
threads=$((pool > 8 ? pool : 8))
mkdir -p "$dir" && cd "$dir" || exit 1
for mode in native forkjoin; do
  rm -f "$mode.bin" "$mode.maps"
  run "$mode" $python "$here/opencv_ops.py" "$threads" "$mode.bin" "$mode.maps"
  rc=$?
  [ "$rc" -eq 77 ] && skip "$(sed -n 's/^SKIPPED: //p' "$mode.out")"
  [ "$rc" -eq 0 ] && sed "s/^/$mode: /" "$mode.out"  # run showed it otherwise
  check "$mode: opencv_ops.py exits 0" test "$rc" -eq 0
done
check "forkjoin: the same results as native, byte for byte" cmp native.bin forkjoin.bin
for mode in native forkjoin; do
  check_runtimes $mode $mode.maps
  check_threads $mode "$(sed -n 's/^own_threads //p' "$mode.out")"
done
finish opencv

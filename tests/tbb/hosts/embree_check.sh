#!/bin/sh
# embree_check.sh LAUNCHER PROBE DIR: Embree 3's pathtracer (Debian's embree-tools; libembree3
# runs its BVH builds and the renderer's tiles as oneTBB tasks, in task_arenas and isolated
# regions) renders a scene of its own shapes (a sphere of 80,000 triangles on a plane of quads,
# a directional and an ambient light) at 256 x 192 with 16 samples a pixel into DIR, natively
# and under LAUNCHER. The two images are equal byte for byte: each pixel's samples come from a
# generator seeded by the pixel and the frame, whichever thread renders it, and the nearest hit
# along a ray does not depend on how the BVH was split. Under forkjoin libforkjoin-tbb runs it
# with no native runtime mapped, on no more threads than the pool (common.sh). Skipped (77),
# saying why, where the pathtracer is not installed.
launcher=$1 probe=$2 dir=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
need pathtracer embree-tools
mkdir -p "$dir" && cd "$dir" || exit 1
for mode in native forkjoin; do
  rm -f "$mode.ppm"
  check "$mode: pathtracer exits 0" run "$mode" pathtracer \
    --triangle-sphere 0 0 0 1 200 --quad-plane -3 -1 -3 6 0 0 0 0 6 16 16 \
    --directionallight -1 -1 1 0.8 0.8 0.8 --ambientlight 0.2 0.2 0.2 \
    --vp 0 1 -4 --vi 0 0 0 --size 256 192 --spp 16 -o "$mode.ppm"
done
# P6, 256 x 192, 255: a header of 15 bytes and 3 bytes a pixel
check "native: a 256 x 192 image (PPM)" test "$(head -c 15 native.ppm | tr '\n' ' ')" = "P6 256 192 255 " \
  -a "$(wc -c <native.ppm)" -eq $((15 + 256 * 192 * 3))
shades=$(tail -c +16 native.ppm | od -An -v -tu1 | tr -s ' ' '\n' | sort -u | wc -l)
check "native: an image of $shades shades (the scene was lit and shaded)" test "$shades" -gt 50
check "forkjoin: the same image as native, byte for byte" cmp native.ppm forkjoin.ppm
for mode in native forkjoin; do
  check_probe_runtimes $mode
  check_threads $mode 0  # the pathtracer starts no thread of its own
done
check_forkjoin_threads_named
finish embree

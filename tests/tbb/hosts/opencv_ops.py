# opencv_ops.py THREADS OUT MAPS: OpenCV's Python module (cv2) with setNumThreads(THREADS) runs
# GaussianBlur, resize, cvtColor, warpAffine, medianBlur and erode (each a cv::parallel_for_ over
# the image's rows, which OpenCV runs on oneTBB) on a generated 1920 x 1080 colour image, then
# the same serially (setNumThreads(0)): the results must be equal. Writes the results' bytes to
# OUT, the files mapped in this process (/proc/self/maps) to MAPS, one a line, and prints
# "own_threads N": this process's threads besides the main one before OpenCV's first parallel
# call (numpy's, a BLAS's). Exit status 77 when OpenCV's parallel framework is not oneTBB.
import os
import sys

import cv2
import numpy as np

threads, out, maps = int(sys.argv[1]), sys.argv[2], sys.argv[3]
status = 0


def check(ok, what):
    global status
    print(("ok:     " if ok else "FAILED: ") + what)
    if not ok:
        status = 1


framework = [line for line in cv2.getBuildInformation().splitlines() if "Parallel framework" in line]
if not framework or "TBB" not in framework[0]:
    print("SKIPPED: this OpenCV does not run on oneTBB:", framework[0].strip() if framework else "no parallel framework")
    sys.exit(77)
print("opencv", cv2.__version__, "|", framework[0].strip())
own = len(os.listdir("/proc/self/task")) - 1
rng = np.random.default_rng(20240601)
image = rng.integers(0, 256, size=(1080, 1920, 3), dtype=np.uint8)
rotate = cv2.getRotationMatrix2D((960, 540), 17.0, 0.9)


def filters():
    return [
        cv2.GaussianBlur(image, (7, 7), 1.5),
        cv2.resize(image, (1280, 720), interpolation=cv2.INTER_LINEAR),
        cv2.resize(image, (640, 360), interpolation=cv2.INTER_AREA),
        cv2.cvtColor(image, cv2.COLOR_BGR2GRAY),
        cv2.cvtColor(image, cv2.COLOR_BGR2HSV),
        cv2.warpAffine(image, rotate, (1920, 1080), flags=cv2.INTER_LINEAR),
        cv2.medianBlur(image, 5),
        cv2.erode(image, np.ones((5, 5), np.uint8)),
    ]


cv2.setNumThreads(threads)
check(cv2.getNumThreads() == threads, f"getNumThreads() is {threads} after setNumThreads({threads})")
parallel = filters()
cv2.setNumThreads(0)
serial = filters()
cv2.setNumThreads(threads)
check(all(p.shape == s.shape and np.array_equal(p, s) for p, s in zip(parallel, serial)),
      f"the {len(parallel)} results on {threads} threads equal the serial ones")
with open(out, "wb") as f:
    for p in parallel:
        f.write(p.tobytes())
with open("/proc/self/maps") as f:
    mapped = sorted({line.split(None, 5)[5].strip() for line in f if len(line.split(None, 5)) == 6})
with open(maps, "w") as f:
    f.write("".join(m + "\n" for m in mapped if m.startswith("/")))
print("own_threads", own)
sys.exit(status)

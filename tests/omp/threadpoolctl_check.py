"""threadpoolctl_check.py N LIBRARY: run by Python under the forkjoin-omp launcher with
OMP_NUM_THREADS=N (N > 1), LIBRARY the launcher's libforkjoin-omp.so. Python links no OpenMP runtime, so the launcher loads
libforkjoin-omp by its libgomp.so.1 name from the replace folder: threadpoolctl, which
recognises the runtimes by file name among the loaded objects, must list it as the one OpenMP
runtime (with N threads; the file is LIBRARY, by another name), and threadpool_limits(1, user_api="openmp") must make forkjoin's
teams one thread. A region started through the libgomp.so.1 that an extension module would
load (GOMP_parallel, as gcc -fopenmp code calls it) tells how many threads forkjoin gives.
Exit status 0 when all holds."""
import ctypes
import os
import sys

from threadpoolctl import threadpool_info, threadpool_limits

expected = int(sys.argv[1])
library = sys.argv[2]
# what an extension module built with gcc -fopenmp (scikit-learn's, say) has loaded
gomp = ctypes.CDLL("libgomp.so.1")
team_sizes = []
region_fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


@region_fn
def region(_data):
    team_sizes.append(gomp.omp_get_num_threads())


def team_size():
    """The size of a region's team, as nthreads-var gives it (GOMP_parallel, num_threads 0)."""
    team_sizes.clear()
    gomp.GOMP_parallel(region, None, 0, 0)
    assert len(team_sizes) == team_sizes[0], team_sizes
    return team_sizes[0]


def openmp_runtimes():
    return [lib for lib in threadpool_info() if lib["user_api"] == "openmp"]


def fail(why):
    print(f"threadpoolctl_check: FAILED, {why}; threadpool_info(): {threadpool_info()}")
    sys.exit(1)


runtimes = openmp_runtimes()
if len(runtimes) != 1:
    fail(f"{len(runtimes)} OpenMP runtimes listed, expected forkjoin's alone")
lib = runtimes[0]
print(f"listed: {lib['filepath']}, prefix {lib['prefix']}, {lib['num_threads']} threads")
if not os.path.samefile(lib["filepath"], library):
    fail(f"the OpenMP runtime listed is {lib['filepath']}, not {library}")
if lib["num_threads"] != expected or team_size() != expected:
    fail(f"{lib['num_threads']} threads listed, a team of {team_size()}, expected {expected}")
with threadpool_limits(1, user_api="openmp"):
    inside = openmp_runtimes()[0]["num_threads"], team_size()
after = openmp_runtimes()[0]["num_threads"], team_size()
print(f"under threadpool_limits(1): {inside[0]} listed, a team of {inside[1]}; after: {after[0]}, {after[1]}")
if inside != (1, 1):
    fail(f"threadpool_limits(1) left {inside[0]} listed and a team of {inside[1]}")
if after != (expected, expected):
    fail(f"leaving threadpool_limits gave back {after}, expected {expected}")
print("threadpoolctl_check: threadpool_limits reaches forkjoin")

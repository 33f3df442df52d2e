"""sklearn_check.py N: run by Debian's Python under the forkjoin-omp launcher with
OMP_NUM_THREADS=N (N > 1). scikit-learn's compiled modules are built with gcc -fopenmp and
load libgomp.so.1 with dlopen, which the launcher serves with libforkjoin-omp. Checks, as a
scikit-learn user would see them: threadpoolctl lists one OpenMP runtime with N threads;
scikit-learn's own count of OpenMP threads is N, 1 inside threadpool_limits(1,
user_api="openmp") and N again after it; and a KMeans fit (its Lloyd iterations run in
OpenMP loops) finds the four well-separated blobs it is given, with the inertia that its
labels and centres give. Exit status 0 when all holds."""
import sys

import numpy as np
from sklearn.cluster import KMeans
from sklearn.utils._openmp_helpers import _openmp_effective_n_threads
from threadpoolctl import threadpool_info, threadpool_limits

expected = int(sys.argv[1])
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAILED:", what)


openmp = [i for i in threadpool_info() if i["internal_api"] == "openmp"]
check(len(openmp) == 1, f"one OpenMP runtime listed, got {openmp}")
check(all(i["num_threads"] == expected for i in openmp), f"it has {expected} threads: {openmp}")
check("forkjoin" in " ".join(i["filepath"] for i in openmp), f"it is forkjoin's replace folder: {openmp}")

before = _openmp_effective_n_threads()
with threadpool_limits(1, user_api="openmp"):
    inside = _openmp_effective_n_threads()
    rng = np.random.default_rng(7)
    truth = np.repeat(np.arange(4), 500)
    centres = np.array([[0.0, 0.0], [20.0, 0.0], [0.0, 20.0], [20.0, 20.0]])
    x = centres[truth] + rng.normal(scale=1.0, size=(truth.size, 2))
    one = KMeans(n_clusters=4, init=centres + 3.0, n_init=1, random_state=0).fit(x)
after = _openmp_effective_n_threads()
check((before, inside, after) == (expected, 1, expected),
      f"scikit-learn's OpenMP threads before, inside threadpool_limits(1), after: {(before, inside, after)}")

many = KMeans(n_clusters=4, init=centres + 3.0, n_init=1, random_state=0).fit(x)
for fit, name in ((one, "1 thread"), (many, f"{expected} threads")):
    # each blob is one cluster: the labels equal the truth up to a permutation
    mapping = {t: fit.labels_[truth == t][0] for t in range(4)}
    check(len(set(mapping.values())) == 4 and all((fit.labels_[truth == t] == mapping[t]).all() for t in range(4)),
          f"KMeans ({name}) recovers the four blobs")
    inertia = float(((x - fit.cluster_centers_[fit.labels_]) ** 2).sum())
    check(abs(inertia - fit.inertia_) <= 1e-6 * inertia, f"KMeans ({name}) inertia {fit.inertia_} = {inertia}")
check(np.allclose(one.cluster_centers_, many.cluster_centers_), "KMeans gives the same centres on 1 and N threads")
print(f"sklearn_check: OpenMP threads {before} -> {inside} -> {after}; KMeans inertia {many.inertia_:.1f}")
sys.exit(1 if failures else 0)

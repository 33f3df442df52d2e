#!/usr/bin/env python3
"""run_omp_bench.py: the OpenMP layer benchmark. The same two gcc -fopenmp binaries (epcc:
construct overheads; taskprogs: task programs) run on libgomp (as linked), on LLVM's libomp
and on libforkjoin-omp (each preloaded), interleaved in a fresh random order on every
repetition, at each thread count. Every run's first line names the library that serves its
GOMP_/omp_ calls; a run on the wrong runtime, a wrong answer or a crash fails the benchmark.
Writes omp.json (every sample), omp.md (medians, the targets at 2 threads) and omp.png (the
chart; skipped with a message when matplotlib is missing) into OUT_DIR.

usage: run_omp_bench.py --epcc BIN --tasks BIN --libomp SO --forkjoin SO --out DIR
                        [--reps N] [--threads 1,2] [--quick] [--constructs a,b] [--epcc-clang BIN]

--constructs runs only those EPCC constructs and no task programs (for tuning one construct).
--epcc-clang: epcc.c built by clang (LLVM's ABI), run as linked (libomp) and with
libforkjoin-omp preloaded, interleaved with the rest; its table targets libomp.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
from collections import defaultdict

RUNTIMES = ["libgomp", "libomp", "forkjoin-omp"]
SONAME = {"libgomp": "libgomp.so", "libomp": "libomp.so", "forkjoin-omp": "libforkjoin-omp.so"}
CONSTRUCTS = ["parallel", "for", "parallel_for", "barrier", "single", "critical", "lock", "ordered", "reduction",
              "task", "taskgroup"]
PROGRAMS = {"full": [("fib", 30), ("nqueens", 11), ("sort", 4000000), ("sparselu", 40), ("uts", 2000),
                     ("binomial", 2000), ("chains", 100000), ("lookup", 2000000)],
            "quick": [("fib", 16), ("nqueens", 6), ("sort", 50000), ("sparselu", 5), ("uts", 20), ("binomial", 50),
                      ("chains", 2000), ("lookup", 20000)]}
NOISE = 0.10  # relative differences below this are reported as a tie


def run(cmd, runtime, preload, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    env.pop("LD_PRELOAD", None)
    if preload:
        env["LD_PRELOAD"] = preload
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"FAILED ({runtime}, {threads} threads): {' '.join(cmd)} -> status {p.returncode}\n{p.stdout}{p.stderr}")
    lines = p.stdout.splitlines()
    if not lines or not lines[0].startswith("runtime "):
        sys.exit(f"no runtime line from {' '.join(cmd)}:\n{p.stdout}")
    served = lines[0].split()[1:]
    if not all(s.startswith(SONAME[runtime]) for s in served):
        sys.exit(f"{' '.join(cmd)} meant for {runtime} ran on {served}")
    return lines[1:]


def fmt(v, digits=3):
    return "-" if v is None else f"{v:.{digits}f}"


def verdict(ours, best, lower_is_better=True):
    if ours is None or best is None:
        return "-"
    if ours <= best:
        return "met"
    if ours <= best * (1 + NOISE) or ours - best < 0.02:
        return "tie (noise)"
    return "missed"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epcc", required=True)
    ap.add_argument("--tasks", required=True)
    ap.add_argument("--libomp", required=True)
    ap.add_argument("--forkjoin", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=int(os.environ.get("FORKJOIN_BENCH_REPS", "5")))
    ap.add_argument("--threads", default=os.environ.get("FORKJOIN_BENCH_THREADS", "1,2"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--constructs", default="", help="comma-separated EPCC constructs only, no task programs")
    ap.add_argument("--epcc-clang", default=None, help="epcc.c built by clang: LLVM's ABI on libomp and forkjoin-omp")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    preload = {"libgomp": None, "libomp": a.libomp, "forkjoin-omp": a.forkjoin}
    threads = [int(t) for t in a.threads.split(",")]
    programs = PROGRAMS["quick" if a.quick else "full"]
    epcc_cmd = [a.epcc] + (["--quick"] if a.quick else [])
    clang_cmd = [a.epcc_clang] + epcc_cmd[1:] if a.epcc_clang else None
    if a.constructs:
        wanted = a.constructs.split(",")
        unknown = [c for c in wanted if c not in CONSTRUCTS]
        if unknown:
            sys.exit(f"unknown constructs: {unknown}; known: {CONSTRUCTS}")
        epcc_cmd += wanted
        if clang_cmd:
            clang_cmd += wanted
        programs = []
    constructs = defaultdict(list)  # (construct, threads, runtime) -> [us]
    clang = defaultdict(list)  # the clang build: (construct, threads, runtime) -> [us]
    progs = defaultdict(list)  # (program, threads, runtime) -> [s]
    rng = random.Random(20261130)
    for rep in range(a.reps):
        for t in threads:
            jobs = [("epcc", None)] + ([("epcc-clang", None)] if clang_cmd else []) + programs
            for job in jobs:
                order = RUNTIMES[:] if job[0] != "epcc-clang" else ["libomp", "forkjoin-omp"]
                rng.shuffle(order)
                for r in order:
                    if job[0] == "epcc-clang":  # as linked against libomp, or preloaded
                        for line in run(clang_cmd, r, None if r == "libomp" else a.forkjoin, t):
                            _, name, nthr, us = line.split()
                            clang[(name, t, r)].append(float(us))
                    elif job[0] == "epcc":
                        for line in run(epcc_cmd, r, preload[r], t):
                            _, name, nthr, us = line.split()
                            constructs[(name, t, r)].append(float(us))
                    else:
                        for line in run([a.tasks, job[0], str(job[1])], r, preload[r], t):
                            _, name, _, nthr, s = line.split()
                            progs[(name, t, r)].append(float(s))
        print(f"repetition {rep + 1}/{a.reps} done", flush=True)

    with open(os.path.join(a.out, "omp.json"), "w") as f:
        json.dump({"constructs_us": {"|".join(map(str, k)): v for k, v in constructs.items()},
                   "clang_constructs_us": {"|".join(map(str, k)): v for k, v in clang.items()},
                   "programs_s": {"|".join(map(str, k)): v for k, v in progs.items()}}, f, indent=1)
    med_c = {k: statistics.median(v) for k, v in constructs.items()}
    med_p = {k: statistics.median(v) for k, v in progs.items()}

    md = [f"# OpenMP layer: libgomp vs LLVM libomp vs libforkjoin-omp\n",
          f"Medians of {a.reps} interleaved runs per runtime; the same gcc -fopenmp binaries, libomp and",
          "libforkjoin-omp preloaded. Targets apply at 2 threads; differences under "
          f"{int(NOISE * 100)} % (or 0.02 us) count as a tie.\n",
          "## Construct overhead (EPCC method, microseconds per construct)\n",
          "| construct | threads | libgomp | libomp | forkjoin-omp | target: <= best of the two |",
          "|---|---:|---:|---:|---:|---|"]
    for c in CONSTRUCTS:
        for t in threads:
            g, l, f = (med_c.get((c, t, r)) for r in RUNTIMES)
            best = min(x for x in (g, l) if x is not None) if g is not None or l is not None else None
            md.append(f"| {c} | {t} | {fmt(g)} | {fmt(l)} | {fmt(f)} | {verdict(f, best) if t == 2 else ''} |")
    if clang:
        med_k = {k: statistics.median(v) for k, v in clang.items()}
        md += ["", "## Construct overhead, the clang 14 build (LLVM's ABI, microseconds per construct)\n",
               "| construct | threads | libomp | forkjoin-omp | target: <= libomp |", "|---|---:|---:|---:|---|"]
        for c in CONSTRUCTS:
            for t in threads:
                l, f = (med_k.get((c, t, r)) for r in ("libomp", "forkjoin-omp"))
                md.append(f"| {c} | {t} | {fmt(l)} | {fmt(f)} | {verdict(f, l) if t == 2 else ''} |")
    md += ["", "## Task programs (seconds)\n",
           "| program | threads | libgomp | libomp | forkjoin-omp | libgomp / forkjoin-omp | target |",
           "|---|---:|---:|---:|---:|---:|---|"]
    for name, arg in programs:
        for t in threads:
            g, l, f = (med_p.get((name, t, r)) for r in RUNTIMES)
            speedup = g / f if g and f else None
            if t != 2:
                target = ""
            elif name == "fib":
                target = ("met" if speedup and speedup >= 3 else "missed") + " (>= 3x libgomp)"
            else:
                target = verdict(f, min(g, l)) + " (<= best)"
            md.append(f"| {name}({arg}) | {t} | {fmt(g, 4)} | {fmt(l, 4)} | {fmt(f, 4)} | {fmt(speedup, 2)} | {target} |")
    with open(os.path.join(a.out, "omp.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))
    if a.constructs:
        return  # a partial run: no chart

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is missing: no chart (omp.png); the table is in omp.md")
        return
    t = 2 if 2 in threads else threads[-1]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(14, 5), gridspec_kw={"width_ratios": [3, 1.4]})
    width = 0.27
    for i, r in enumerate(RUNTIMES):
        ax1.bar([x + (i - 1) * width for x in range(len(CONSTRUCTS))],
                [max(med_c.get((c, t, r), 0), 0.005) for c in CONSTRUCTS], width, label=r)
        ax2.bar([x + (i - 1) * width for x in range(len(programs))],
                [med_p[(n, t, "libgomp")] / med_p[(n, t, r)] if (n, t, r) in med_p else 0 for n, _ in programs],
                width, label=r)
    ax1.set_xticks(range(len(CONSTRUCTS)), CONSTRUCTS, rotation=30)
    ax1.set_yscale("log")
    ax1.set_ylabel("overhead per construct (us, log scale, lower is better)")
    ax1.set_title(f"EPCC construct overhead, {t} threads")
    ax1.legend()
    ax2.set_xticks(range(len(programs)), [f"{n}({v})" for n, v in programs], rotation=30)
    ax2.set_ylabel("speed relative to libgomp (higher is better)")
    ax2.set_title(f"task programs, {t} threads")
    ax2.axhline(1.0, color="grey", linewidth=0.8)
    fig.tight_layout()
    fig.savefig(os.path.join(a.out, "omp.png"), dpi=110)
    print(f"chart: {os.path.join(a.out, 'omp.png')}")


if __name__ == "__main__":
    main()

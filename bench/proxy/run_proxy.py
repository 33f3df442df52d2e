#!/usr/bin/env python3
"""run_proxy.py: the proxy-app bench. bench_proxy (kernels in the shapes of NAS BT, CG, MG,
LU, FT, EP, IS and LULESH; proxy.c lists them) built by gcc -fopenmp runs as linked (libgomp)
and with libforkjoin-omp preloaded; built by clang-14 -fopenmp, as linked (LLVM's libomp) and
with libforkjoin-omp preloaded. Each repetition runs every (kernel, build, runtime) once, in
a fresh random order; a run's time is the kernel's own (measured inside the process, the
serial reference and the start-up excluded). Every run checks its answer against the serial
build of the same kernel, and prints the library serving its GOMP_/__kmpc_ entry points: a
wrong answer, a crash or a run on the wrong runtime stops the bench (status 1).

usage: run_proxy.py --gcc BIN [--clang BIN] --libomp SO --forkjoin-omp SO --out FILE.md
                    [--reps N] [--threads 2] [--kernels bt,cg,...] [--quick]

Writes FILE.md (one row per kernel and thread count: the medians, their spread
(max - min) / median, and forkjoin's ratio to the native runtime of the same build) and
FILE.json (every sample), and prints the table.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys

KERNELS = ["bt", "cg", "mg", "lu", "ft", "ep", "is", "lulesh"]


def run_once(binary, kernel, threads, preload, expect, quick):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    env.pop("LD_PRELOAD", None)
    if preload:
        env["LD_PRELOAD"] = preload
    cmd = [binary, kernel] + (["quick"] if quick else [])
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"FAILED: {' '.join(cmd)} (preload {preload or '-'}) -> status {p.returncode}\n{p.stdout}{p.stderr}")
    lines = p.stdout.splitlines()
    if len(lines) < 2 or not lines[0].startswith("runtime ") or not lines[1].startswith("time "):
        sys.exit(f"unexpected output from {' '.join(cmd)}:\n{p.stdout}{p.stderr}")
    served = lines[0].split()[1:]
    if not all(s.startswith(expect) for s in served):
        sys.exit(f"{' '.join(cmd)} meant for {expect} ran on {served}")
    return float(lines[1].split()[1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gcc", required=True)
    ap.add_argument("--clang", default=None)
    ap.add_argument("--libomp", required=True)
    ap.add_argument("--forkjoin-omp", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=int(os.environ.get("FORKJOIN_BENCH_REPS", "5")))
    ap.add_argument("--threads", default="2")
    ap.add_argument("--kernels", default=",".join(KERNELS))
    ap.add_argument("--quick", action="store_true", help="tiny sizes, for the unit suite: every answer checked")
    a = ap.parse_args()
    kernels = [k for k in a.kernels.split(",") if k]
    for k in kernels:
        if k not in KERNELS:
            sys.exit(f"unknown kernel {k}; known: {','.join(KERNELS)}")
    threads = [int(t) for t in a.threads.split(",")]
    # (column, binary, preload, the soname that must serve it)
    runtimes = [("gcc/libgomp", a.gcc, None, "libgomp.so"), ("gcc/fj-omp", a.gcc, a.forkjoin_omp, "libforkjoin-omp.so")]
    if a.clang:
        runtimes += [("clang/libomp", a.clang, None, "libomp.so"),
                     ("clang/fj-omp", a.clang, a.forkjoin_omp, "libforkjoin-omp.so")]
    samples = {}
    for rep in range(a.reps):
        jobs = [(k, t, r) for k in kernels for t in threads for r in runtimes]
        random.shuffle(jobs)
        for k, t, (col, binary, preload, expect) in jobs:
            samples.setdefault(f"{k}/{t}/{col}", []).append(run_once(binary, k, t, preload, expect, a.quick))
        print(f"repetition {rep + 1}/{a.reps} done", file=sys.stderr)

    cols = [r[0] for r in runtimes]
    head = ["kernel", "threads"] + cols + ["gcc: fj ÷ libgomp"] + (["clang: fj ÷ libomp"] if a.clang else [])
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * 2 + "---:|" * (len(head) - 2)]
    ratios = []
    for k in kernels:
        for t in threads:
            med = {}
            cells = [k, str(t)]
            for c in cols:
                v = samples[f"{k}/{t}/{c}"]
                med[c] = statistics.median(v)
                spread = (max(v) - min(v)) / med[c] if med[c] > 0 else 0
                cells.append(f"{med[c]:.3f} ({spread:.0%})")
            pairs = [("gcc/fj-omp", "gcc/libgomp")] + ([("clang/fj-omp", "clang/libomp")] if a.clang else [])
            for ours, native in pairs:
                r = med[ours] / med[native]
                ratios.append(r)
                cells.append(f"**{r:.2f}x**" if r > 1.0 else f"{r:.2f}x")
            rows.append("| " + " | ".join(cells) + " |")
    geo = statistics.geometric_mean(ratios)
    text = (f"Proxy apps: medians of {a.reps} interleaved repetitions, seconds (spread (max - min) / median); "
            f"ratios above 1.00x: forkjoin slower than the native runtime of that build. "
            f"Geometric mean of the ratios: {geo:.2f}x.\n\n" + "\n".join(rows) + "\n")
    print(text)
    with open(a.out, "w") as f:
        f.write(text)
    with open(os.path.splitext(a.out)[0] + ".json", "w") as f:
        json.dump(samples, f, indent=1)


if __name__ == "__main__":
    main()

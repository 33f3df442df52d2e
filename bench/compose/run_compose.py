#!/usr/bin/env python3
"""run_compose.py: times bench_compose's nested pairs on forkjoin (one pool) against the
same source linked natively (libgomp, libtbb.so.12 and forkjoin's own pool).

For every ordered pair OUTER-INNER of {omp, tbb, par, fj} and every thread count (set as
OMP_NUM_THREADS, which libgomp, libforkjoin-omp and forkjoin's default pool read; native
oneTBB sizes itself to the CPUs), each round runs both builds in a new random order, each
process timing REPEATS passes (its median counts). Reports the median over rounds of each
build's time, the ratio forkjoin / native, and the most threads each process held. Any
wrong answer or failed run fails the script.

usage: run_compose.py --fj BIN --native BIN [--threads 2,4,8] [--rounds 5] [--repeats 3]
                      [--pairs omp-tbb,...] [--out FILE.md]
"""
import argparse
import os
import random
import statistics
import subprocess
import sys

RUNTIMES = ["omp", "tbb", "par", "fj"]


def run_once(binary, pair, threads, repeats):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    p = subprocess.run([binary, pair, str(repeats)], env=env, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        sys.exit(f"run_compose: {binary} {pair} at {threads} threads failed ({p.returncode}):\n{p.stdout}{p.stderr}")
    times, most = [], 0
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) != 7 or f[1] != "seconds" or f[6] != "ok":
            sys.exit(f"run_compose: unexpected output from {binary} {pair}: {line!r}")
        times.append(float(f[2]))
        most = max(most, int(f[4]))
    if len(times) != repeats:
        sys.exit(f"run_compose: {binary} {pair} printed {len(times)} results, not {repeats}")
    return statistics.median(times), most


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fj", required=True)
    ap.add_argument("--native", required=True)
    ap.add_argument("--threads", default="2,4,8")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--pairs", default=",".join(f"{a}-{b}" for a in RUNTIMES for b in RUNTIMES if a != b))
    ap.add_argument("--out")
    a = ap.parse_args()
    threads = [int(t) for t in a.threads.split(",")]
    pairs = a.pairs.split(",")
    builds = {"forkjoin": a.fj, "native": a.native}
    res = {}  # (pair, threads, build) -> [(seconds, threads held)]
    for r in range(a.rounds):
        for t in threads:
            for pair in pairs:
                order = list(builds)
                random.shuffle(order)
                for b in order:
                    res.setdefault((pair, t, b), []).append(run_once(builds[b], pair, t, a.repeats))
        print(f"run_compose: round {r + 1}/{a.rounds} done", file=sys.stderr)
    lines = [
        "| outer-inner | threads | forkjoin s | native s | ratio | threads held: forkjoin | native |",
        "|---|---|---|---|---|---|---|",
    ]
    ratios = []
    for pair in pairs:
        for t in threads:
            fj = res[(pair, t, "forkjoin")]
            nat = res[(pair, t, "native")]
            fs = statistics.median(x[0] for x in fj)
            ns = statistics.median(x[0] for x in nat)
            ratio = fs / ns
            ratios.append(ratio)
            cell = f"**{ratio:.2f}**" if ratio > 1.0 else f"{ratio:.2f}"
            lines.append(f"| {pair} | {t} | {fs:.4f} | {ns:.4f} | {cell} | {max(x[1] for x in fj)} | "
                         f"{max(x[1] for x in nat)} |")
    geo = statistics.geometric_mean(ratios)
    lines.append("")
    lines.append(f"Geometric mean of the ratios: {geo:.2f} ({len(ratios)} cells, {a.rounds} rounds, "
                 f"{a.repeats} passes a process; every answer checked).")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()

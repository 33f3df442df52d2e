#!/usr/bin/env python3
"""Run bench_arenas natively and on libforkjoin-tbb, interleaved, and print the medians.

The same binary (linked with -ltbb) runs as built (native oneTBB) and with the replace folder
first in LD_LIBRARY_PATH (libforkjoin-tbb); the order alternates every repetition. Each run
checks its answers (bench_arenas exits 1 on a wrong one, which stops this script).

Usage: run_arenas.py BENCH REPLACE_DIR [--reps N] [--threads T] [--json OUT] [--extra NAME=DIR ...]
  --extra NAME=DIR  one more runtime: another libforkjoin-tbb replace folder (an older build)
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def run(bench, env_extra, threads):
    env = dict(os.environ)
    env.update(env_extra)
    cmd = [bench] + (["--threads", str(threads)] if threads else [])
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench")
    ap.add_argument("replace")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--json")
    ap.add_argument("--extra", action="append", default=[])
    args = ap.parse_args()
    runtimes = {"oneTBB": {}, "forkjoin": {"LD_LIBRARY_PATH": args.replace}}
    for e in args.extra:
        name, _, folder = e.partition("=")
        runtimes[name] = {"LD_LIBRARY_PATH": folder}
    rows = {}  # (workload, runtime) -> list of (seconds, most_threads)
    for rep in range(args.reps):
        names = list(runtimes)
        order = names[rep % len(names):] + names[:rep % len(names)]  # each runtime first in turn
        for name in order:
            for r in run(args.bench, runtimes[name], args.threads):
                rows.setdefault((r["workload"], name), []).append((r["seconds"], r["most_threads"]))
    workloads = sorted({w for w, _ in rows}, key=lambda w: ["rcpp_for", "rcpp_reduce", "big_arena", "no_arena", "two_callers"].index(w))
    names = list(runtimes)
    print(f"{'workload':<12}" + "".join(f" {n + ' s':>18} {'threads':>7}" for n in names) +
          "".join(f" {n + '/oneTBB':>20}" for n in names[1:]))
    result = []
    for w in workloads:
        med = {n: statistics.median(s for s, _ in rows[(w, n)]) for n in names}
        most = {n: max(t for _, t in rows[(w, n)]) for n in names}
        print(f"{w:<12}" + "".join(f" {med[n]:>18.3f} {most[n]:>7}" for n in names) +
              "".join(f" {med[n] / med['oneTBB']:>20.2f}" for n in names[1:]))
        result.append({"workload": w, "reps": args.reps,
                       "runtimes": {n: {"seconds": med[n], "most_threads": most[n]} for n in names}})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

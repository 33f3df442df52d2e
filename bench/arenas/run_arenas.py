#!/usr/bin/env python3
"""Run bench_arenas natively and on libforkjoin-tbb, interleaved, and print the medians.

The same binary (linked with -ltbb) runs as built (native oneTBB) and with the replace folder
first in LD_LIBRARY_PATH (libforkjoin-tbb); the order alternates every repetition. Each run
checks its answers (bench_arenas exits 1 on a wrong one, which stops this script).

Usage: run_arenas.py BENCH REPLACE_DIR [--reps N] [--threads T] [--json OUT]
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
    args = ap.parse_args()
    runtimes = {"oneTBB": {}, "forkjoin": {"LD_LIBRARY_PATH": args.replace}}
    rows = {}  # (workload, runtime) -> list of (seconds, most_threads)
    for rep in range(args.reps):
        order = list(runtimes) if rep % 2 == 0 else list(reversed(list(runtimes)))
        for name in order:
            for r in run(args.bench, runtimes[name], args.threads):
                rows.setdefault((r["workload"], name), []).append((r["seconds"], r["most_threads"]))
    workloads = sorted({w for w, _ in rows}, key=lambda w: ["rcpp_for", "rcpp_reduce", "big_arena"].index(w))
    print(f"{'workload':<12} {'oneTBB s':>9} {'forkjoin s':>11} {'ratio':>6} {'threads oneTBB':>15} {'threads forkjoin':>17}")
    result = []
    for w in workloads:
        n = rows[(w, "oneTBB")]
        f = rows[(w, "forkjoin")]
        ns, fs = statistics.median(s for s, _ in n), statistics.median(s for s, _ in f)
        nt, ft = max(t for _, t in n), max(t for _, t in f)
        print(f"{w:<12} {ns:>9.3f} {fs:>11.3f} {fs / ns:>6.2f} {nt:>15} {ft:>17}")
        result.append({"workload": w, "native_s": ns, "forkjoin_s": fs, "ratio": fs / ns,
                       "native_threads": nt, "forkjoin_threads": ft, "reps": args.reps})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

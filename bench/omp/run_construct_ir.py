#!/usr/bin/env python3
"""run_construct_ir.py: instructions per OpenMP construct, counted by callgrind (deterministic,
unlike timings on a shared machine). Runs construct_ir builds under
`valgrind --tool=callgrind --toggle-collect=run_<construct>` on each runtime they can use and prints, per
construct, the instructions of its run_<name> function (inclusive) divided by the repetitions.

usage: run_construct_ir.py --reps N --threads T BUILD=RUNTIME:BINARY[:PRELOAD] ...
  e.g. clang=libomp:./construct_ir_clang clang=forkjoin-omp:./construct_ir_clang:/path/libforkjoin-omp.so

Each BUILD=RUNTIME pair becomes a column; the program's first line names the library that
served it, which must be RUNTIME's (libgomp, libomp or forkjoin-omp).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

SONAME = {"libgomp": "libgomp.so", "libomp": "libomp.so", "forkjoin-omp": "libforkjoin-omp.so"}
CONSTRUCTS = ["parallel", "for", "parallel_for", "barrier", "single", "critical", "lock", "ordered", "reduction",
              "task", "taskgroup"]


def count(binary, runtime, preload, reps, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    env.pop("LD_PRELOAD", None)
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        # one exact pattern per construct: a pattern that also matched gcc's outlined bodies
        # (run_for._omp_fn.0) would toggle collection off inside them
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + \
              [f"--toggle-collect=run_{c}" for c in CONSTRUCTS]
        if preload:
            env["LD_PRELOAD"] = preload
        p = subprocess.run(cmd + [binary, str(reps)], env=env, capture_output=True, text=True, timeout=1800)
        if p.returncode != 0 or "construct_ir: ok" not in p.stdout:
            sys.exit(f"FAILED: {' '.join(cmd)} {binary}\n{p.stdout}{p.stderr[-2000:]}")
        served = p.stdout.splitlines()[0].split()[1:]
        if not all(s.startswith(SONAME[runtime]) for s in served):
            sys.exit(f"{binary} meant for {runtime} ran on {served}")
        a = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out], capture_output=True,
                           text=True).stdout
    result = {}
    for line in a.splitlines():
        m = re.match(r"\s*([\d,]+)\s.*:run_([a-z_]+)(\s|$)", line)
        if m and m.group(2) in CONSTRUCTS and m.group(2) not in result:
            result[m.group(2)] = int(m.group(1).replace(",", "")) / reps
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("columns", nargs="+")
    a = ap.parse_args()
    cols = []
    for c in a.columns:
        name, spec = c.split("=", 1)
        parts = spec.split(":")
        runtime, binary = parts[0], parts[1]
        preload = parts[2] if len(parts) > 2 else None
        cols.append((f"{name} on {runtime}", count(binary, runtime, preload, a.reps, a.threads)))
    print(f"Instructions per construct (callgrind, {a.threads} thread(s), {a.reps} repetitions)\n")
    print("| construct | " + " | ".join(n for n, _ in cols) + " |")
    print("|---|" + "---:|" * len(cols))
    for c in CONSTRUCTS:
        print(f"| {c} | " + " | ".join(f"{r[c]:.0f}" if c in r else "-" for _, r in cols) + " |")


if __name__ == "__main__":
    main()

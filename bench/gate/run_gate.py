#!/usr/bin/env python3
"""run_gate.py: the performance gate. Fails when a hot path got slower, in two ways that hold
on a noisy machine:

1. Instructions per operation, counted by valgrind's callgrind (deterministic for a given
   binary: icount and icount_omp make every counted path run on one thread), against
   bench/gate/baseline.json. An operation more than --tolerance (3%) above its baseline
   fails; one more than 3% below it is reported, so that the baseline can be lowered.
2. Counters at two workers (counters, run natively --runs times, medians; four more runs
   when a median misses its limit, and the median of all of them decides): sleepers woken
   and steals per back-to-back loop call, and worker 1's share of a ~40 us loop started on an
   idle pool, against the limits in the same file.

The baseline belongs to one toolchain (its compiler and valgrind versions are recorded);
another toolchain fails with a message instead of comparing.

    run_gate.py --icount BIN --icount-omp BIN --forkjoin-omp SO --counters BIN [--update]

--update rewrites the instruction counts in baseline.json (keeping the limits): a deliberate
commit that says why the hot paths changed. --only NAME,... counts only those operations.
--selftest checks the comparison on made-up figures and exits.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

BASELINE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "baseline.json")


def toolchain():
    cxx = subprocess.run(["c++", "--version"], capture_output=True, text=True).stdout.splitlines()
    vg = subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout.strip()
    return {"compiler": cxx[0] if cxx else "unknown", "valgrind": vg}


def callgrind(cmd, env=None):
    """Instructions collected while the program's toggles were on."""
    full = ["valgrind", "--tool=callgrind", "--collect-atstart=no", "--callgrind-out-file=/dev/null"] + cmd
    p = subprocess.run(full, capture_output=True, text=True, env=env, timeout=900)
    if p.returncode != 0:
        sys.exit(f"run_gate: {' '.join(cmd)} failed (status {p.returncode}):\n{p.stdout}{p.stderr}")
    m = re.search(r"Collected : (\d+)", p.stderr)
    if not m:
        sys.exit(f"run_gate: no 'Collected' line from callgrind for {' '.join(cmd)}:\n{p.stderr}")
    return int(m.group(1))


def listing(binary, env=None):
    out = subprocess.run([binary, "--list"], capture_output=True, text=True, env=env, check=True).stdout
    return [(name, int(k)) for name, k in (line.split() for line in out.splitlines() if line.strip())]


def count_all(a):
    counts = {}
    env_omp = dict(os.environ, OMP_NUM_THREADS="1", LD_PRELOAD=a.forkjoin_omp)
    jobs = [(name, k, [a.icount, name], None) for name, k in listing(a.icount)]
    jobs += [(name, k, [a.icount_omp, name], env_omp) for name, k in listing(a.icount_omp)]
    only = set(a.only.split(",")) if a.only else None
    for name, k, cmd, env in jobs:
        if only and name not in only:
            continue
        counts[name] = round(callgrind(cmd, env) / k, 1)
        print(f"  {name:32s} {counts[name]:12.1f} instructions", flush=True)
    return counts


def measure_counters(a, runs=None, count=None):
    runs = list(runs or [])
    for _ in range(count or a.runs):
        p = subprocess.run([a.counters], capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            sys.exit(f"run_gate: {a.counters} failed (status {p.returncode}):\n{p.stdout}{p.stderr}")
        runs.append(json.loads(p.stdout.strip().splitlines()[-1]))
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}, runs


def compare(counts, base, tolerance):
    """(failures, improvements, missing): lines for operations above, below and without a baseline."""
    fails, better, missing = [], [], []
    for name, v in sorted(counts.items()):
        b = base.get(name)
        if b is None:
            missing.append(name)
            continue
        ratio = v / b if b else float("inf")
        line = f"{name}: {v:.1f} instructions, baseline {b:.1f} ({(ratio - 1) * 100:+.1f}%)"
        if ratio > 1 + tolerance:
            fails.append(line)
        elif ratio < 1 - tolerance:
            better.append(line)
    return fails, better, missing


def check_limits(med, limits):
    fails = []
    for key, lim in sorted(limits.items()):
        v = med.get(key)
        if v is None:
            fails.append(f"{key}: not measured")
        elif "max" in lim and v > lim["max"]:
            fails.append(f"{key}: {v:.3f} > {lim['max']} ({lim.get('why', '')})")
        elif "min" in lim and v < lim["min"]:
            fails.append(f"{key}: {v:.3f} < {lim['min']} ({lim.get('why', '')})")
    return fails


def selftest():
    base = {"a": 100.0, "b": 200.0}
    f, b, m = compare({"a": 103.0, "b": 206.1, "c": 1.0}, base, 0.03)
    assert len(f) == 1 and f[0].startswith("b:"), f
    assert m == ["c"], m
    f, b, m = compare({"a": 96.9, "b": 200.0}, base, 0.03)
    assert not f and len(b) == 1 and b[0].startswith("a:"), (f, b)
    lim = {"x": {"max": 0.1}, "y": {"min": 0.25}}
    assert check_limits({"x": 0.1, "y": 0.25}, lim) == []
    assert len(check_limits({"x": 0.2, "y": 0.2}, lim)) == 2
    assert check_limits({"x": 0.0}, lim) == ["y: not measured"]
    print("run_gate: selftest passed")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--icount")
    ap.add_argument("--icount-omp")
    ap.add_argument("--forkjoin-omp")
    ap.add_argument("--counters")
    ap.add_argument("--baseline", default=BASELINE)
    ap.add_argument("--tolerance", type=float, default=0.03)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", default="")
    ap.add_argument("--update", action="store_true")
    ap.add_argument("--selftest", action="store_true")
    a = ap.parse_args()
    if a.selftest:
        return selftest()
    for opt in ("icount", "icount_omp", "forkjoin_omp", "counters"):
        if not getattr(a, opt):
            ap.error(f"--{opt.replace('_', '-')} is required")

    with open(a.baseline) as f:
        base = json.load(f)
    tc = toolchain()
    print(f"run_gate: {tc['compiler']}, {tc['valgrind']}")
    print("instructions per operation (callgrind):")
    counts = count_all(a)
    if a.update:
        base["toolchain"] = tc
        base["icount"] = dict(sorted({**base.get("icount", {}), **counts}.items()))
        with open(a.baseline, "w") as f:
            json.dump(base, f, indent=2)
            f.write("\n")
        print(f"run_gate: wrote {len(counts)} counts to {a.baseline}")
        return 0
    failures = []
    if base.get("toolchain") != tc:
        failures.append(f"the baseline was counted with {base.get('toolchain')}, this is {tc}: "
                        "counts from different compilers cannot be compared (re-baseline with --update)")
    else:
        fails, better, missing = compare(counts, base.get("icount", {}), a.tolerance)
        failures += fails
        for line in better:
            print(f"  faster than the baseline (lower it with --update): {line}")
        for name in missing:
            print(f"  no baseline yet for {name} (add it with --update)")
    med, runs = measure_counters(a)
    if check_limits(med, base.get("counters", {})):
        # A noisy moment (a descheduled worker parks and is woken) can move a median of
        # three: four more runs, and the median of all seven decides.
        med, runs = measure_counters(a, runs, 4)
    print("counters at 2 workers (medians of %d runs):" % len(runs))
    for k, v in med.items():
        print(f"  {k:32s} {v:10.3f}   runs: {', '.join(str(r[k]) for r in runs)}")
    failures += check_limits(med, base.get("counters", {}))
    if failures:
        print("run_gate: FAILED")
        for line in failures:
            print("  " + line)
        return 1
    print("run_gate: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""run_sweep.py: the loop sweep. Back-to-back `a[i] = a[i] * 0.5f + 1` loops over one float
vector at n = 10^3 .. 1.6*10^7, one process per library, schedule, mode and size, every
repetition in a fresh random order (interleaved), each process reporting the best of its
rounds; a row's figure is the median over the repetitions, printed with its spread.

Libraries: serial; forkjoin (auto_, static_(), dynamic(256)); OpenMP (schedule(static),
schedule(dynamic,256)) as one gcc -fopenmp binary run on libgomp, LLVM's libomp and
libforkjoin-omp; oneTBB (auto, static and simple partitioners); std::execution::par.
Modes: `outside` (every call from main), `inside` (every call inside one pool.run, one
`omp parallel`, one task_arena::execute).

--busy adds a neighbour: one process spinning on one core for the whole sweep (spinning
runtimes collapse there). The report says how busy the machine was: load average and steal
time over the run, read from /proc.

usage: run_sweep.py --sweep BIN --omp BIN --libomp SO --forkjoin-omp SO --out DIR
                    [--reps 5] [--threads 2] [--sizes 1000,...] [--busy] [--quick] [--name loops]
Writes DIR/NAME.json (every sample, and the run's provenance: bench/provenance.py), DIR/NAME.md
(the table) and DIR/NAME.png (the chart; skipped with a message when matplotlib is missing).
bench/results_page.py reads NAME.json as it is, from bench/data/ (bench/history/README.md).
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from provenance import provenance  # noqa: E402  (bench/provenance.py)

SIZES = [1000, 10000, 100000, 1000000, 16000000]
QUICK_SIZES = [1000, 100000]
SONAME = {"libgomp": "libgomp.so", "libomp": "libomp.so", "forkjoin-omp": "libforkjoin-omp.so"}
BASELINE = ("omp:libgomp", "static")  # the ratio column divides by this row's time


def rows(quick, busy=False):
    """(library, schedule, mode) for every row of the sweep; with a busy neighbour, the calls
    from main only (the neighbour's effect does not depend on where the calls come from)."""
    out = [("serial", "auto", "outside")]
    for mode in ("outside",) if busy else ("outside", "inside"):
        for s in ("auto", "static", "dynamic"):
            out.append(("forkjoin", s, mode))
            out.append(("tbb", s, mode))
        for rt in SONAME:
            for s in ("static", "dynamic"):
                out.append(("omp:" + rt, s, mode))
    out.append(("stdpar", "auto", "outside"))
    if quick:
        out = [r for r in out if r[1] != "dynamic" or r[0] == "forkjoin"]
    return out


def command(a, lib, sched, mode, n, rounds, round_ms):
    extra = ["--threads", str(a.threads), "--rounds", str(rounds), "--round-ms", str(round_ms)]
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env["OMP_NUM_THREADS"] = str(a.threads)
    if lib.startswith("omp:"):
        rt = lib[4:]
        if rt == "libomp":
            env["LD_PRELOAD"] = a.libomp
        elif rt == "forkjoin-omp":
            env["LD_PRELOAD"] = a.forkjoin_omp
        return [a.omp, sched, mode, str(n)] + extra, env
    return [a.sweep, lib, sched, mode, str(n)] + extra, env


def run_one(a, lib, sched, mode, n, rounds, round_ms):
    cmd, env = command(a, lib, sched, mode, n, rounds, round_ms)
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"FAILED: {' '.join(cmd)} -> status {p.returncode}\n{p.stdout}{p.stderr}")
    lines = p.stdout.splitlines()
    if lib.startswith("omp:"):
        served = lines[0].split()[1:] if lines and lines[0].startswith("runtime ") else []
        if not served or not all(s.startswith(SONAME[lib[4:]]) for s in served):
            sys.exit(f"{' '.join(cmd)} meant for {lib[4:]} ran on {served or lines[:1]}")
        lines = lines[1:]
    d = json.loads(lines[-1])
    return min(d["us"]), d


def cpu_times():
    """(busy, steal, total) jiffies of all CPUs, from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    total = sum(v[:8])
    return total - v[3] - v[4], v[7], total


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def fmt_us(v):
    if v is None:
        return "-"
    if v >= 1000:
        return f"{v / 1000:.2f} ms"
    return f"{v:.3g} µs" if v < 10 else f"{v:.1f} µs"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sweep", required=True)
    ap.add_argument("--omp", required=True)
    ap.add_argument("--libomp", required=True)
    ap.add_argument("--forkjoin-omp", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--name", default="loops")
    ap.add_argument("--reps", type=int, default=int(os.environ.get("FORKJOIN_BENCH_REPS", "5")))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--sizes", default="")
    ap.add_argument("--busy", action="store_true", help="one core's worth of other work during the sweep")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    sizes = [int(x) for x in a.sizes.split(",")] if a.sizes else (QUICK_SIZES if a.quick else SIZES)
    rounds, round_ms = (3, 2) if a.quick else (7, 10)
    configs = [(lib, s, m, n) for (lib, s, m) in rows(a.quick, a.busy) for n in sizes]

    neighbour = None
    if a.busy:  # one CPU's worth of other work: a shell spinning at normal priority
        neighbour = subprocess.Popen(["sh", "-c", "while :; do :; done"])
    prov = provenance(a.reps)
    samples = {c: [] for c in configs}
    counters = {}
    load = [loadavg()]
    t_start = cpu_times()
    started = time.time()
    # Progress on stderr: one line rewritten in place on a terminal; elsewhere (ctest, a log)
    # a line every 10 s and the last one, since a line without its newline shows nowhere.
    tty = sys.stderr.isatty()
    printed = started
    total = len(configs) * a.reps
    try:
        for rep in range(a.reps):
            order = list(configs)
            random.shuffle(order)
            for k, c in enumerate(order):
                best, d = run_one(a, *c, rounds, round_ms)
                samples[c].append(best)
                if "per_call" in d:
                    counters.setdefault(c, []).append(d["per_call"])
                done = rep * len(configs) + k + 1
                now = time.time()
                elapsed = now - started
                if tty or done == total or now - printed >= 10:
                    printed = now
                    line = (f"[{a.name}] {done}/{total} runs, {elapsed:.0f} s, "
                            f"about {elapsed / done * (total - done):.0f} s left")
                    print(f"\r{line}   " if tty else line, end="" if tty else "\n", file=sys.stderr, flush=True)
            load.append(loadavg())
    finally:
        if neighbour is not None:
            neighbour.kill()
            neighbour.wait()
    if tty:
        print(file=sys.stderr)
    t_end = cpu_times()
    steal_pct = 100.0 * (t_end[1] - t_start[1]) / max(1, t_end[2] - t_start[2])
    busy_pct = 100.0 * (t_end[0] - t_start[0]) / max(1, t_end[2] - t_start[2])

    def median(c):
        v = samples.get(c)
        return statistics.median(v) if v else None

    def spread(c):
        v = samples.get(c)
        if not v or len(v) < 2:
            return None
        m = statistics.median(v)
        return 100.0 * (max(v) - min(v)) / m if m > 0 else None

    result = {
        "provenance": prov, "threads": a.threads, "reps": a.reps, "quick": a.quick, "busy_neighbour": a.busy,
        "sizes": sizes,
        "load_average": load, "steal_percent": steal_pct, "cpu_busy_percent": busy_pct,
        "rows": [{"lib": l, "sched": s, "mode": m, "n": n, "best_us": samples[(l, s, m, n)],
                  "median_us": median((l, s, m, n)), "counters": counters.get((l, s, m, n), [])}
                 for (l, s, m, n) in configs],
    }
    with open(os.path.join(a.out, a.name + ".json"), "w") as f:
        json.dump(result, f, indent=1)

    title = f"Loop sweep, {a.threads} threads{', with a busy neighbour' if a.busy else ''}"
    out = [f"# {title}", "",
           f"`a[i] = a[i] * 0.5f + 1` over one float vector, back-to-back calls; median over {a.reps} interleaved "
           f"processes of each process's best of {rounds} rounds (spread: (max - min) / median over the processes). "
           f"Ratio: time / libgomp `schedule(static)` in the same mode (below 1: faster).", "",
           f"Machine while it ran: load average {' → '.join(f'{x:.2f}' for x in load)}; CPUs busy {busy_pct:.0f}% "
           f"(this sweep included), steal time {steal_pct:.2f}%.", ""]
    for mode in ("outside",) if a.busy else ("outside", "inside"):
        out += [f"## {mode}: {'every call from main' if mode == 'outside' else 'all calls inside one region'}", "",
                "| library | schedule | " + " | ".join(f"n = {n:,}" for n in sizes) + " |",
                "|---|---|" + "---:|" * len(sizes)]
        for (l, s, m) in rows(a.quick, a.busy):
            if m != mode:
                continue
            cells = []
            for n in sizes:
                c = (l, s, m, n)
                base = median((BASELINE[0], BASELINE[1], mode, n))
                v, sp = median(c), spread(c)
                cell = fmt_us(v)
                if sp is not None:
                    cell += f" ±{sp / 2:.0f}%"
                if v is not None and base and (l, s) != BASELINE:
                    cell += f" ({v / base:.2f})"
                cells.append(cell)
            out.append(f"| {l} | {s} | " + " | ".join(cells) + " |")
        out.append("")
    fj = [(c, v) for c, v in counters.items()]
    if fj:
        out += ["## forkjoin's counters per call (medians over the processes)", "",
                "| schedule | mode | n | steals | parks | jobs | splits |", "|---|---|---:|---:|---:|---:|---:|"]
        for (l, s, m, n), per in sorted(fj, key=lambda x: (x[0][2], x[0][1], x[0][3])):
            med = {k: statistics.median(p[k] for p in per) for k in per[0]}
            out.append(f"| {s} | {m} | {n:,} | {med['steals']:.3f} | {med['parks']:.3f} | {med['jobs']:.3f} | "
                       f"{med['splits']:.3f} |")
        out.append("")
    text = "\n".join(out)
    with open(os.path.join(a.out, a.name + ".md"), "w") as f:
        f.write(text)
    print(text)
    chart(a, sizes, configs, median, title)


def chart(a, sizes, configs, median, title):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"run_sweep: matplotlib is missing, no chart (apt-get install python3-matplotlib)", file=sys.stderr)
        return
    modes = ("outside",) if a.busy else ("outside", "inside")
    fig, axes = plt.subplots(1, len(modes), figsize=(6.5 * len(modes), 5), sharey=True, squeeze=False)
    axes = axes[0]
    for ax, mode in zip(axes, modes):
        for (l, s, m) in rows(a.quick, a.busy):
            if m != mode:
                continue
            xs, ys = [], []
            for n in sizes:
                v = median((l, s, m, n))
                if v is not None:
                    xs.append(n)
                    ys.append(v * 1000.0 / n)
            if not xs:
                continue
            style = "-" if l == "forkjoin" else ("--" if l.startswith("omp") else ":")
            width = 2.2 if l == "forkjoin" else 1.2
            ax.plot(xs, ys, style, marker="o", markersize=3, linewidth=width, label=f"{l} {s}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("n (elements)")
        ax.set_title(mode)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("ns per element (lower is better)")
    axes[-1].legend(fontsize=7, ncol=2)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(os.path.join(a.out, a.name + ".png"), dpi=110)


if __name__ == "__main__":
    main()

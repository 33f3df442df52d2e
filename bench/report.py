#!/usr/bin/env python3
"""report.py: turn bench_compare's Google Benchmark JSON into a CSV, a Markdown table and a
chart. Medians over repetitions; ratio = forkjoin's median / the best peer's median
(below 1: forkjoin is faster). Peers: tbb, openmp, std::par (serial is shown, never a peer).
Also the work overhead T1/Ts of fib and fib_invoke (forkjoin at 1 thread / the plain serial
function, both from this run) and forkjoin's speedup at 2 threads over its own 1-thread time.

usage: report.py RESULTS.json OUT_DIR
"""
import csv
import json
import os
import statistics
import sys
from collections import defaultdict

IMPLS = ["forkjoin", "tbb", "openmp", "std::par", "serial"]
PEERS = ["tbb", "openmp", "std::par"]
UNIT_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


def load(path):
    with open(path) as f:
        data = json.load(f)
    times = defaultdict(list)  # (workload, impl, threads) -> [ms]
    cpu = defaultdict(list)  # the same, CPU time of the benchmark's thread
    errors = []
    for b in data["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        parts = b["run_name"].split("/")
        workload, impl, threads = parts[0], parts[1], int(parts[2].split(":")[1])
        if b.get("error_occurred"):
            errors.append(f'{b["run_name"]}: {b.get("error_message", "")}')
            continue
        times[(workload, impl, threads)].append(b["real_time"] * UNIT_MS[b["time_unit"]])
        cpu[(workload, impl, threads)].append(b["cpu_time"] * UNIT_MS[b["time_unit"]])
    return data["context"], times, cpu, errors


def main():
    src, out = sys.argv[1], sys.argv[2]
    ctx, times, cpu, errors = load(src)
    med = {k: statistics.median(v) for k, v in times.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpu.items()}
    reps = max((len(v) for v in times.values()), default=0)
    order = ["fib", "fib_invoke", "skynet", "nqueens", "nqueens14", "uts_t1", "uts_small", "loop_1k", "loop_100k", "imbalanced", "reduce",
             "matmul", "sort", "sort_lib", "stable_sort", "wavefront", "jacobi2d", "scan", "histogram", "find_if",
             "idle_cpu_500ms", "wake_latency"]
    workloads = sorted(dict.fromkeys(k[0] for k in times), key=lambda w: order.index(w) if w in order else len(order))
    thread_counts = sorted({k[2] for k in times if k[1] != "serial"})

    rows = []
    for w in workloads:
        for t in thread_counts:
            row = {"workload": w, "threads": t}
            for impl in IMPLS:
                key = (w, impl, 1 if impl == "serial" else t)
                row[impl] = med.get(key)
            peers = [row[p] for p in PEERS if row[p] is not None]
            row["best_peer"] = min(PEERS, key=lambda p: row[p] if row[p] is not None else float("inf")) if peers else None
            row["ratio"] = row["forkjoin"] / min(peers) if peers and row["forkjoin"] else None
            if any(row[i] is not None for i in IMPLS if i != "serial"):
                rows.append(row)

    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "compare.csv"), "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["workload", "threads"] + [f"{i}_ms" for i in IMPLS] + ["best_peer", "forkjoin_over_best_peer"])
        for r in rows:
            wr.writerow([r["workload"], r["threads"]] + [f"{r[i]:.6g}" if r[i] is not None else "" for i in IMPLS]
                        + [r["best_peer"] or "", f"{r['ratio']:.3f}" if r["ratio"] else ""])

    def fmt(v):
        if v is None:
            return "–"
        return f"{v:.3g} ms" if v >= 0.1 else f"{v * 1000:.3g} µs"

    lines = [
        f"Machine: {ctx.get('cpu_model', '?')}, {ctx.get('num_cpus', '?')} CPUs, {ctx.get('compiler', '?')}; "
        f"{ctx.get('date', '')}; mode {ctx.get('mode', '?')}; medians of {reps} interleaved repetitions.",
        "",
        "| workload | threads | forkjoin | oneTBB | OpenMP | std::par | serial | forkjoin / best peer |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ratio = f"**{r['ratio']:.2f}** ({r['best_peer']})" if r["ratio"] else "–"
        lines.append(f"| {r['workload']} | {r['threads']} | " + " | ".join(fmt(r[i]) for i in IMPLS) + f" | {ratio} |")
    lines.append("")
    lines.append("idle_cpu_500ms is CPU time burned by the process in the 500 ms after a burst; "
                 "wake_latency is one 1,000-element loop after 20 ms idle. Below 1: forkjoin is faster.")
    lines.append("")
    lines.append("sort compares algorithms as well as runtimes: forkjoin and OpenMP run the same three-way "
                 "quicksort (partition3), oneTBB runs tbb::parallel_sort and std::par runs libstdc++'s "
                 "std::sort(par).")
    lines.append("")
    lines.append("jacobi2d: parallel_for_2d with tiles vs OpenMP collapse(2) schedule(static) and oneTBB "
                 "blocked_range2d; scan: parallel_inclusive_scan vs std::inclusive_scan(par) and "
                 "tbb::parallel_scan; histogram: per_worker vs tbb::combinable and OpenMP's array reduction; "
                 "find_if: parallel_find_if vs std::find_if(par).")
    lines.append("sort_lib and stable_sort are each runtime's own call on 2^24 random ints: forkjoin::parallel_sort / "
                 "parallel_stable_sort, tbb::parallel_sort, std::sort / std::stable_sort(par), serial std::sort / "
                 "std::stable_sort. wavefront is a 64 x 64 grid of 128 x 128 alignment blocks, each after its upper "
                 "and left neighbour: task_group in/out dependencies, OpenMP task depend, oneTBB parallel_for_each "
                 "with a feeder and counters.")
    lines += [""] + per_peer_lines(rows)
    lines += [""] + overhead_lines(med, med_cpu, ctx)
    table = "\n".join(lines) + "\n"
    with open(os.path.join(out, "compare.md"), "w") as f:
        f.write(table)
    print(table)

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report.py: matplotlib missing (apt-get install python3-matplotlib): no chart", file=sys.stderr)
    else:
        top = max(thread_counts)
        sel = [r for r in rows if r["threads"] == top and r["ratio"]]
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 5))
        ax1.barh([r["workload"] for r in sel], [r["ratio"] for r in sel],
                 color=["tab:green" if r["ratio"] <= 1 else "tab:red" for r in sel])
        ax1.axvline(1.0, color="black", linewidth=1)
        ax1.set_xscale("log")
        ax1.set_xlabel(f"forkjoin time / best peer time ({top} threads; < 1 is faster)")
        ax1.invert_yaxis()
        markers = "os^vD<>px*h"
        for k, w in enumerate(workloads):
            base = med.get((w, "forkjoin", min(thread_counts)))
            pts = [(t, base / med[(w, "forkjoin", t)]) for t in thread_counts if (w, "forkjoin", t) in med and base]
            if len(pts) > 1 and not w.startswith(("idle", "wake")):
                ax2.plot([p[0] for p in pts], [p[1] for p in pts], marker=markers[k % len(markers)], label=w)
        ax2.plot(thread_counts, [t / min(thread_counts) for t in thread_counts], "k--", linewidth=1, label="linear")
        ax2.set_xlabel("threads")
        ax2.set_ylabel(f"forkjoin speedup over {min(thread_counts)} thread(s)")
        ax2.legend(fontsize=7)
        fig.suptitle(f"forkjoin vs oneTBB / OpenMP / std::par — {ctx.get('cpu_model', '?')}, {ctx.get('num_cpus', '?')} CPUs")
        fig.tight_layout()
        fig.savefig(os.path.join(out, "compare.png"), dpi=110)
        print(f"chart: {os.path.join(out, 'compare.png')}")

    ablation = os.path.join(out, "ablation.json")
    if os.path.exists(ablation):
        errors += ablation_table(ablation, out)

    if errors:
        print("WRONG ANSWERS:\n  " + "\n  ".join(errors), file=sys.stderr)
        return 1
    return 0


def per_peer_lines(rows):
    """forkjoin's median over each peer's (below 1: forkjoin is faster), every row."""
    out = ["| workload | threads | " + " | ".join(f"forkjoin / {p}" for p in PEERS + ["serial"]) + " |",
           "|---|---|" + "---|" * (len(PEERS) + 1)]
    for r in rows:
        cells = []
        for p in PEERS + ["serial"]:
            cells.append(f"{r['forkjoin'] / r[p]:.2f}" if r["forkjoin"] and r[p] else "–")
        out.append(f"| {r['workload']} | {r['threads']} | " + " | ".join(cells) + " |")
    return out


def overhead_lines(med, med_cpu, ctx):
    """T1/Ts (forkjoin at 1 thread / serial, same run), in wall time and in the CPU time of
    the benchmark's thread (at 1 thread that thread does all the work; CPU time is what
    other processes on a loaded machine disturb least), and forkjoin's 2-thread speedup."""
    n = ctx.get("fib_n", "n")
    out = ["| figure | value | from |", "|---|---|---|"]
    for w, what in (("fib", "join"), ("fib_invoke", "parallel_invoke")):
        fj1, fj2, ser = med.get((w, "forkjoin", 1)), med.get((w, "forkjoin", 2)), med.get((w, "serial", 1))
        if fj1 and ser:
            out.append(f"| fib({n}) T1/Ts ({what}) | **{fj1 / ser:.2f}** | forkjoin 1 thread {fj1:.3g} ms / "
                       f"serial {ser:.3g} ms |")
        c1, cs = med_cpu.get((w, "forkjoin", 1)), med_cpu.get((w, "serial", 1))
        if c1 and cs:
            out.append(f"| fib({n}) T1/Ts ({what}), CPU time | **{c1 / cs:.2f}** | forkjoin 1 thread {c1:.3g} ms / "
                       f"serial {cs:.3g} ms |")
        if fj1 and fj2:
            out.append(f"| fib({n}) speedup at 2 threads ({what}) | **{fj1 / fj2:.2f}** | forkjoin 1 thread "
                       f"{fj1:.3g} ms / 2 threads {fj2:.3g} ms |")
    return out if len(out) > 2 else []


def ablation_table(path, out):
    """ablation.json (bench_ablation) -> ablation.md: medians per workload, variant, threads."""
    with open(path) as f:
        data = json.load(f)
    runs = defaultdict(list)
    errors = []
    for b in data["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        if b.get("error_occurred"):
            errors.append(f'{b["run_name"]}: {b.get("error_message", "")}')
            continue
        workload, variant, threads = b["run_name"].split("/")[:3]
        runs[(workload, int(threads.split(":")[1]), variant)].append(b)
    lines = ["| workload | threads | pool | time | tasks/s | conflict rate | steal attempts / run | idle CPU in 200 ms |",
             "|---|---|---|---|---|---|---|---|"]
    for (workload, threads, variant) in sorted(runs):
        rs = runs[(workload, threads, variant)]
        m = lambda k: statistics.median(r[k] for r in rs)
        lines.append(f"| {workload} | {threads} | {variant} | {m('real_time') * UNIT_MS[rs[0]['time_unit']]:.1f} ms | "
                     f"{m('tasks_per_s') / 1e6:.1f} M | {m('conflict_rate'):.4f} | {m('steal_attempts_per_run'):.0f} | "
                     f"{m('idle_cpu_ms_200ms'):.2f} ms |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "ablation.md"), "w") as f:
        f.write(text)
    print(text)
    return errors


if __name__ == "__main__":
    sys.exit(main())

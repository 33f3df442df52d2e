#!/usr/bin/env python3
"""run_matrix.py: the busy-neighbours matrix. Four workloads, each run as one process per
runtime, at several thread counts, while 0 or more busy neighbours (separate processes
spinning in `while (1);`) compete for the CPUs:

  regions  back-to-back short `parallel for` regions with a reduction (1,000 regions of 32
           iterations of about 3.5 us)
  loop     2,000 back-to-back `parallel for` over 10^5 doubles, a[i] = a[i] * 1.0001 + b[i]
  barrier  one parallel region, 10,000 `omp barrier`s with about 5 us of work between two
  tree     a UTS binomial tree (365,581 nodes, 741 levels): a task per node, a taskwait at
           every inner node (untied tasks in OpenMP)

Runtimes (the table's columns):
  gcc/libgomp     matrix_omp built by gcc -fopenmp, run as linked (libgomp)
  gcc/fj-omp      the same binary with libforkjoin-omp preloaded
  clang/libomp    matrix_omp built by clang-14 -fopenmp, run as linked (LLVM's libomp)
  clang/fj-omp    the same binary with libforkjoin-omp preloaded
  fj pool         matrix_cpp: forkjoin::pool p(n), parallel_reduce / parallel_for / task_group
  oneTBB          matrix_cpp: tbb::task_arena arena(n), the same algorithms
The barrier workload runs on the OpenMP runtimes only (neither C++ library has a barrier
among its threads). Every run checks its answer against a serial one, computed once per
workload before the matrix starts, and a wrong one stops the matrix (status 1).

A cell is a (threads, busy neighbours) pair. Its neighbours start before the cell and are
killed after it; inside the cell, each repetition runs every workload on every runtime, the
runtimes in round-robin order (the first one rotates from one repetition to the next). A
run's time is the workload's own, measured inside the process (process start, thread
creation and the answer check excluded); its context switches (voluntary: the process's
threads blocked; involuntary: the scheduler took their CPU) are the whole process's, from
os.wait4's rusage.

Output: a progress line per cell on stderr, then one markdown table per workload on stdout
(and in --out FILE.md; every sample and the run's provenance in FILE.json, which
bench/results_page.py reads as it is from bench/data/; a chart in FILE.png when matplotlib is
there). A row is a cell; a time column holds the median over the repetitions and, in
parentheses, its spread, (max - min) / median. `fj-omp ÷ best` divides each fj-omp median
by the better of libgomp and libomp in that row, `pool ÷ TBB` the pool's by oneTBB's: above
1.00x forkjoin is slower. The `csw` columns are the medians of voluntary/involuntary
context switches per run. A run killed at --timeout (the matrix must end in about 15
minutes, and some runtimes take minutes in some cells) counts as T: a median at T shows as
`>T s`, and a ratio with one on either side as a bound (`>` or `<`).

usage: run_matrix.py --omp BIN [--omp-clang BIN] --cpp BIN --libomp SO --forkjoin-omp SO
                     [--threads 2,4,8] [--busy 0,1,2,4] [--reps 3] [--timeout 5] [--quick]
                     [--out FILE.md]
--quick: tiny sizes, one repetition, 2 threads with 0 and 1 neighbour: every runtime and
every answer checked in seconds.
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from provenance import provenance  # noqa: E402  (bench/provenance.py)

WORKLOADS = ["regions", "loop", "barrier", "tree"]
OMP_ONLY = {"barrier"}
RUNTIMES = ["gcc/libgomp", "gcc/fj-omp", "clang/libomp", "clang/fj-omp", "fj pool", "oneTBB"]
# The library each OpenMP runtime's binary must report in its `runtime` line.
SERVED = {"gcc/libgomp": "libgomp.so", "gcc/fj-omp": "libforkjoin-omp.so", "clang/libomp": "libomp.so",
          "clang/fj-omp": "libforkjoin-omp.so"}


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def cpu_times():
    """(busy, steal, total) jiffies of all CPUs, from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    total = sum(v[:8])
    return total - v[3] - v[4], v[7], total


def command(a, runtime, workload, threads):
    """The argv and environment of one run."""
    env = dict(os.environ)
    for k in ("LD_PRELOAD", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME", "OMP_PROC_BIND", "OMP_PLACES",
              "OMP_DYNAMIC"):
        env.pop(k, None)  # every runtime with its defaults, as users run them
    env["OMP_NUM_THREADS"] = str(threads)
    size = ["--quick"] if a.quick else []
    if runtime in SERVED:
        binary = a.omp if runtime.startswith("gcc") else a.omp_clang
        if runtime.endswith("fj-omp"):
            env["LD_PRELOAD"] = a.forkjoin_omp
        return [binary, workload, str(threads)] + size, env
    return [a.cpp, "forkjoin" if runtime == "fj pool" else "tbb", workload, str(threads)] + size, env


def fail(msg):
    print(f"FAILED: {msg}", file=sys.stderr, flush=True)
    sys.exit(1)


def run_one(a, runtime, workload, threads, expect):
    """One run: (seconds, voluntary, involuntary context switches, process wall seconds,
    timed out). A wrong answer, a crash or the wrong runtime stops the matrix."""
    cmd, env = command(a, runtime, workload, threads)
    cmd += ["--expect", expect]
    started = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    timed_out = threading.Event()

    def kill():
        timed_out.set()
        p.kill()

    timer = threading.Timer(a.timeout, kill)
    timer.start()
    try:
        # wait4, not Popen.wait: the child's rusage. Its output (two short lines) fits the pipe.
        _, status, usage = os.wait4(p.pid, 0)
    finally:
        timer.cancel()
    wall = time.monotonic() - started
    p.returncode = os.waitstatus_to_exitcode(status)
    out, err = p.stdout.read(), p.stderr.read()
    p.stdout.close()
    p.stderr.close()
    if timed_out.is_set():
        return a.timeout, usage.ru_nvcsw, usage.ru_nivcsw, wall, True
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} ({runtime}) -> status {p.returncode}\n{out}{err}")
    lines = out.splitlines()
    if runtime in SERVED:
        served = lines[0].split()[1:] if lines and lines[0].startswith("runtime ") else []
        if not served or not all(s.startswith(SERVED[runtime]) for s in served):
            fail(f"{' '.join(cmd)} meant for {runtime} ran on {served or lines[:1]}")
        lines = lines[1:]
    try:
        d = json.loads(lines[-1])
    except (IndexError, ValueError):
        fail(f"{' '.join(cmd)} ({runtime}) printed no result\n{out}{err}")
    if not answers_match(workload, d["answer"], expect):
        fail(f"{' '.join(cmd)} ({runtime}): answer {d['answer']}, the serial one is {expect}")
    return d["seconds"], usage.ru_nvcsw, usage.ru_nivcsw, wall, False


def answers_match(workload, got, want):
    if workload == "loop":  # a sum of doubles: the builds may differ in the last bits
        g, w = float(got), float(want)
        return abs(g - w) <= 1e-9 * abs(w)
    return got == want


def serial_answer(a, workload, threads):
    cmd = [a.omp, "serial", workload, str(threads)] + (["--quick"] if a.quick else [])
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} -> status {p.returncode}\n{p.stdout}{p.stderr}")
    return p.stdout.strip()


def start_neighbours(a, n):
    """n busy neighbours, each its own process spinning on a CPU (they die with this one)."""
    procs = [subprocess.Popen([a.omp, "spin", str(os.getpid())]) for _ in range(n)]
    time.sleep(0.2 if n else 0)  # running, and spread over the CPUs, before the first run
    for p in procs:
        if p.poll() is not None:
            fail(f"a busy neighbour exited with status {p.returncode}")
    return procs


def stop_neighbours(procs):
    for p in procs:
        p.kill()
    for p in procs:
        p.wait()


def fmt_s(v, censored=False):
    if v is None:
        return "-"
    if censored:
        return f">{v:.0f} s"
    return f"{v * 1000:.0f} ms" if v >= 0.1 else f"{v * 1000:.1f} ms"


def fmt_count(v):
    if v is None:
        return "-"
    return f"{v / 1000:.1f}k" if v >= 10000 else f"{v:.0f}"


def main():
    ap = argparse.ArgumentParser(description="the busy-neighbours matrix (see the docstring)")
    ap.add_argument("--omp", required=True, help="matrix_omp built by gcc -fopenmp")
    ap.add_argument("--omp-clang", default=None, help="matrix_omp built by clang -fopenmp (else no clang columns)")
    ap.add_argument("--cpp", required=True, help="matrix_cpp (forkjoin::pool and oneTBB)")
    ap.add_argument("--libomp", required=True, help="LLVM's libomp.so (checked to exist; clang builds link it)")
    ap.add_argument("--forkjoin-omp", required=True, help="libforkjoin-omp.so, preloaded for the fj-omp columns")
    ap.add_argument("--threads", default=None, help="thread counts, e.g. 2,4,8")
    ap.add_argument("--busy", default=None, help="busy neighbours per cell, e.g. 0,1,2,4")
    ap.add_argument("--reps", type=int, default=None)
    ap.add_argument("--timeout", type=float, default=5.0, help="seconds before a run is killed and shown as >T")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", default=None, help="FILE.md: the tables (FILE.json: every sample; FILE.png: a chart)")
    a = ap.parse_args()
    threads = [int(x) for x in (a.threads or ("2" if a.quick else "2,4,8")).split(",")]
    busy = [int(x) for x in (a.busy or ("0,1" if a.quick else "0,1,2,4")).split(",")]
    reps = a.reps if a.reps is not None else (1 if a.quick else 3)
    if reps < 1 or min(threads) < 1 or min(busy) < 0:
        ap.error("--reps and --threads must be positive, --busy not negative")
    for path in [a.omp, a.cpp, a.libomp, a.forkjoin_omp] + ([a.omp_clang] if a.omp_clang else []):
        if not os.path.exists(path):
            fail(f"{path} does not exist")
    runtimes = [r for r in RUNTIMES if a.omp_clang or not r.startswith("clang")]
    # A SIGTERM (ctest's timeout) unwinds like an exception: the neighbours are killed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("run_matrix: terminated"))

    prov = provenance(reps)
    started = time.monotonic()
    load = [loadavg()]
    t_start = cpu_times()
    # The serial answers, before any neighbour: the barrier's depends on the thread count.
    expect = {}
    for w in WORKLOADS:
        for t in threads if w == "barrier" else [0]:
            expect[(w, t)] = serial_answer(a, w, max(t, 1))

    cells = [(t, b) for t in threads for b in busy]
    jobs = [(w, r) for w in WORKLOADS for r in runtimes if not (w in OMP_ONLY and r not in SERVED)]
    samples = {}  # (workload, runtime, threads, busy) -> [(seconds, nvcsw, nivcsw, wall, timed_out)]
    for k, (t, b) in enumerate(cells):
        neighbours = start_neighbours(a, b)
        try:
            for rep in range(reps):
                shift = rep % len(runtimes)
                order = runtimes[shift:] + runtimes[:shift]
                for w in WORKLOADS:
                    for r in order:
                        if (w, r) not in jobs:
                            continue
                        s = run_one(a, r, w, t, expect[(w, t if w == "barrier" else 0)])
                        samples.setdefault((w, r, t, b), []).append(s)
        finally:
            stop_neighbours(neighbours)
        elapsed = time.monotonic() - started
        print(f"[matrix] {k + 1}/{len(cells)} cells ({t} threads, {b} busy), {elapsed:.0f} s, about "
              f"{elapsed / (k + 1) * (len(cells) - k - 1):.0f} s left", file=sys.stderr, flush=True)
    load.append(loadavg())
    t_end = cpu_times()
    total_s = time.monotonic() - started
    steal_pct = 100.0 * (t_end[1] - t_start[1]) / max(1, t_end[2] - t_start[2])

    def med(key, i=0):
        v = samples.get(key)
        return statistics.median(x[i] for x in v) if v else None

    def censored(key):
        v = samples.get(key)
        return bool(v) and statistics.median(x[0] for x in v) >= a.timeout and any(x[4] for x in v)

    def spread(key):
        v = samples.get(key)
        if not v or len(v) < 2:
            return None
        m = statistics.median(x[0] for x in v)
        return (max(x[0] for x in v) - min(x[0] for x in v)) / m if m > 0 else None

    def ratio(key, base):
        """key's median over base's; a bound where either was cut at the timeout."""
        v, d = med(key), med(base) if base else None
        if v is None or not d:
            return "-"
        if censored(key) and censored(base):
            return "-"  # both cut: nothing known
        return f"{'>' if censored(key) else '<' if censored(base) else ''}{v / d:.2f}x"

    timeouts = sum(1 for v in samples.values() for x in v if x[4])
    la = " → ".join("/".join(f"{x:.2f}" for x in l) for l in load)
    out = [f"Busy-neighbours matrix: {len(cells)} cells x {len(jobs)} (workload, runtime) pairs x {reps} "
           f"repetition(s){' (--quick sizes)' if a.quick else ''}; {total_s:.0f} s in all. Load average "
           f"(1/5/15 min) before → after: {la}; steal time {steal_pct:.2f}%. Runs killed at {a.timeout:.0f} s: "
           f"{timeouts}.", "",
           "Time: median over the repetitions (spread (max - min) / median). Ratios: above 1.00x forkjoin is "
           "slower than the best native peer (libgomp or libomp for fj-omp, oneTBB for the pool). csw: "
           "voluntary/involuntary context switches per run (medians).", ""]
    for w in WORKLOADS:
        cols = [r for r in runtimes if (w, r) in jobs]
        omp_fj = [r for r in cols if r.endswith("fj-omp")]
        native = [r for r in cols if r in ("gcc/libgomp", "clang/libomp")]
        head = ["threads", "busy"] + cols + [f"{r.split('/')[0]} fj-omp ÷ best" for r in omp_fj]
        if "fj pool" in cols and "oneTBB" in cols:
            head.append("pool ÷ TBB")
        head += [f"csw {r}" for r in cols]
        out += [f"### {w}", "", "| " + " | ".join(head) + " |", "|" + "---:|" * len(head)]
        for t, b in cells:
            row = [str(t), str(b)]
            for r in cols:
                key = (w, r, t, b)
                cell = fmt_s(med(key), censored(key))
                sp = spread(key)
                if sp is not None:
                    cell += f" ({sp * 100:.0f}%)"
                row.append(cell)
            peers = [(w, r, t, b) for r in native if med((w, r, t, b)) is not None]
            best = min(peers, key=med) if peers else None
            for r in omp_fj:
                row.append(ratio((w, r, t, b), best))
            if "pool ÷ TBB" in head:
                row.append(ratio((w, "fj pool", t, b), (w, "oneTBB", t, b)))
            for r in cols:
                key = (w, r, t, b)
                row.append(f"{fmt_count(med(key, 1))}/{fmt_count(med(key, 2))}")
            out.append("| " + " | ".join(row) + " |")
        out.append("")
    text = "\n".join(out)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
        base = a.out[:-3] if a.out.endswith(".md") else a.out
        with open(base + ".json", "w") as f:
            json.dump({"provenance": prov, "threads": threads, "busy": busy, "reps": reps, "quick": a.quick, "timeout_s": a.timeout,
                       "load_average": load, "steal_percent": steal_pct, "seconds": total_s, "expect": {
                           f"{w}/{t}": v for (w, t), v in expect.items()},
                       "runs": [{"workload": w, "runtime": r, "threads": t, "busy": b, "samples": [
                           {"seconds": x[0], "nvcsw": x[1], "nivcsw": x[2], "process_wall": x[3], "timed_out": x[4]}
                           for x in v]} for (w, r, t, b), v in samples.items()]}, f, indent=1)
        chart(base + ".png", cells, jobs, med)


def chart(path, cells, jobs, med):
    """One panel per workload: each runtime's median time per cell (log scale)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("run_matrix: matplotlib is missing, no chart (apt-get install python3-matplotlib)", file=sys.stderr)
        return
    fig, axes = plt.subplots(1, len(WORKLOADS), figsize=(5 * len(WORKLOADS), 4.5), squeeze=False)
    labels = [f"{t}t/{b}b" for t, b in cells]
    for ax, w in zip(axes[0], WORKLOADS):
        for r in RUNTIMES:
            if (w, r) not in jobs:
                continue
            ys = [med((w, r, t, b)) for t, b in cells]
            style = "-" if "fj" in r else "--"
            ax.plot(range(len(cells)), ys, style, marker="o", markersize=3, label=r)
        ax.set_yscale("log")
        ax.set_xticks(range(len(cells)))
        ax.set_xticklabels(labels, rotation=90, fontsize=7)
        ax.set_title(w)
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("seconds per run (lower is better)")
    axes[0][-1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


if __name__ == "__main__":
    main()

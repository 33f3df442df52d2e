#!/usr/bin/env python3
"""run_quick.py: the short comparison (`cmake --workflow --preset quick`). Runs bench_quick
(forkjoin, oneTBB, OpenMP on libgomp and std::execution::par, interleaved), then again with
LLVM's libomp preloaded for the OpenMP column on libomp (forkjoin and OpenMP only, the same
gcc -fopenmp binary: libomp serves libgomp's entry points), draws a progress bar meanwhile,
and prints and writes the answer:

  quick.md   the table: per workload, forkjoin's median time and, per peer, the median of
             the per-repetition ratios forkjoin / peer (each pairs two runs of the same
             repetition, a few hundred ms apart) with their min-max; below 1: forkjoin faster
  quick.csv  every sample (repetition, workload, runtime, seconds); repetition 0 is the warm-up
  quick.png  the chart (matplotlib), else quick.svg (written here)

Every answer is checked by bench_quick; a wrong one (or a failed run) exits 1.

usage: run_quick.py --exe BENCH_QUICK --out DIR [--libomp LIBOMP.so] [--reps N] [--threads N] [--smoke]
                    [--corrupt WORKLOAD]
Environment: FORKJOIN_QUICK_REPS (default 9), FORKJOIN_QUICK_THREADS (default: bench_quick's,
forkjoin::default_concurrency()).
"""
import argparse
import csv
import math
import os
import select
import statistics
import subprocess
import sys
import time
from collections import defaultdict

PEERS = [("tbb", "oneTBB"), ("libgomp", "OpenMP (libgomp)"), ("libomp", "OpenMP (libomp)"), ("std::par", "std::par")]
WHAT = {
    "fib": "fib(27), no cutoff: join / parallel_invoke / omp task",
    "loops": "300 back-to-back loops of 10^5 ints",
    "reduce": "sum of 2^23 doubles",
    "matmul": "512 x 512 matrix product",
    "sort": "2^21 random ints: parallel_sort / std::sort(par) / omp task quicksort",
    "scan": "inclusive scan of 2^24 doubles",
}
ORDER = list(WHAT)


class Progress:
    """A progress bar on stderr: redrawn in place on a terminal, a line every 10 s otherwise."""

    def __init__(self, plan):
        self.plan = plan  # (workload, runtime) -> samples expected
        self.total = sum(plan.values())
        self.done = defaultdict(int)
        self.spent = defaultdict(float)  # (workload, runtime) -> wall seconds its samples took (settle included)
        self.start = self.last = time.monotonic()
        self.tty = sys.stderr.isatty()
        self.printed = 0.0
        self.what = "building the inputs"

    def sample(self, workload, runtime):
        now = time.monotonic()
        self.done[(workload, runtime)] += 1
        self.spent[(workload, runtime)] += now - self.last
        self.last = now
        self.what = f"{workload}/{runtime}"
        self.draw()

    def restart_clock(self):  # a new process: its input building is not a sample's time
        self.last = time.monotonic()

    def left(self):
        n_done = sum(self.done.values())
        if n_done == 0:
            return None
        mean_all = sum(self.spent.values()) / n_done
        left = 0.0
        for key, n in self.plan.items():
            d = self.done.get(key, 0)
            if d < n:
                if d:
                    per = self.spent[key] / d
                else:  # not run yet: the same workload on other runtimes, else everything so far
                    same = [self.spent[k] / self.done[k] for k in self.done if k[0] == key[0]]
                    per = statistics.mean(same) if same else mean_all
                left += per * (n - d)
        return left

    def line(self):
        n = sum(self.done.values())
        width = 30
        fill = int(width * n / self.total) if self.total else width
        left = self.left()
        eta = "?" if left is None else clock(left)
        return (f"[{'#' * fill}{'.' * (width - fill)}] {n}/{self.total} runs, {clock(time.monotonic() - self.start)} "
                f"elapsed, about {eta} left ({self.what})")

    def draw(self, force=False):
        now = time.monotonic()
        if self.tty:
            sys.stderr.write("\r" + self.line()[: max(20, term_width() - 1)] + "\033[K")
            sys.stderr.flush()
        elif force or now - self.printed >= 10:
            self.printed = now
            print(self.line(), file=sys.stderr, flush=True)

    def finish(self):
        n = sum(self.done.values())
        text = f"[{'#' * 30}] {n}/{self.total} runs in {clock(time.monotonic() - self.start)}"
        if self.tty:
            sys.stderr.write("\r" + text + "\033[K\n")
        else:
            print(text, file=sys.stderr)
        sys.stderr.flush()


def term_width():
    try:
        cols = os.get_terminal_size(sys.stderr.fileno()).columns
    except OSError:
        cols = 0
    return cols if cols >= 40 else 100


def clock(s):
    s = int(round(s))
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


def run_bench(cmd, env, progress, samples, wrong):
    """Runs one bench_quick process, feeding the progress bar; returns its exit status."""
    progress.restart_clock()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True, bufsize=1)
    buf = ""
    while True:
        ready, _, _ = select.select([proc.stdout], [], [], 0.5)
        if not ready:
            progress.draw()
            continue
        chunk = os.read(proc.stdout.fileno(), 65536).decode()
        if not chunk:
            break
        buf += chunk
        *lines, buf = buf.split("\n")
        for line in lines:
            f = line.split(" ", 4)
            if f[0] == "sample":
                rep, workload, runtime, sec = int(f[1]), f[2], f[3], float(f[4])
                samples.append((rep, workload, runtime, sec))
                progress.sample(workload, runtime)
            elif f[0] == "wrong":
                wrong.append(line[6:])
                sys.stderr.write(f"\nWRONG ANSWER: {line[6:]}\n")
    return proc.wait()


def ratios(samples):
    """(workload, peer) -> per-repetition ratios forkjoin / peer, each from one process's
    repetition (forkjoin's sample of the same process and repetition)."""
    by = {}  # (process, rep, workload, runtime) -> seconds
    for proc, rep, w, r, s in samples:
        by[(proc, rep, w, r)] = s
    out = defaultdict(list)
    for (proc, rep, w, r), s in by.items():
        if rep == 0 or r == "forkjoin":
            continue
        fj = by.get((proc, rep, w, "forkjoin"))
        if fj and s > 0:
            out[(w, r)].append(fj / s)
    return out


def fmt_ms(s):
    ms = s * 1e3
    return f"{ms:.3g} ms" if ms >= 0.1 else f"{ms * 1e3:.3g} us"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--exe", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--libomp")
    ap.add_argument("--reps", type=int, default=int(os.environ.get("FORKJOIN_QUICK_REPS", "9")))
    ap.add_argument("--threads", type=int, default=int(os.environ.get("FORKJOIN_QUICK_THREADS", "0")))
    ap.add_argument("--smoke", action="store_true", help="tiny sizes: checks every answer and this script")
    ap.add_argument("--corrupt", help="a test of the checks: forkjoin's answer to this workload is made wrong")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)

    common = [a.exe, f"--reps={a.reps}"] + ([f"--threads={a.threads}"] if a.threads else [])
    if a.smoke:
        common += ["--smoke", "--settle-ms=1"]
    if a.corrupt:  # a test of forkjoin's answer checks: forkjoin's runs alone
        common += [f"--corrupt={a.corrupt}", "--impls=forkjoin"]
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    runs = [(common + ["--openmp-name=libgomp"], env)]
    if a.corrupt:
        pass
    elif a.libomp and os.path.exists(a.libomp):
        env2 = dict(env, LD_PRELOAD=a.libomp)
        # libomp's workers spin 200 ms (KMP_BLOCKTIME) after a region: forkjoin runs after they stop.
        runs.append((common + ["--impls=forkjoin,openmp", "--openmp-name=libomp"]
                     + ([] if a.smoke else ["--openmp-settle-ms=250"]), env2))
    else:
        print("run_quick.py: LLVM's libomp not given or missing (apt-get install libomp-14-dev): no libomp column",
              file=sys.stderr)

    plan = defaultdict(int)
    threads = "?"
    for cmd, e in runs:
        out = subprocess.run(cmd + ["--plan"], env=e, capture_output=True, text=True)
        if out.returncode != 0:
            sys.stderr.write(out.stderr)
            return 1
        for line in out.stdout.splitlines():
            f = line.split()
            if f[0] == "plan":
                plan[(f[1], f[2])] += int(f[3])
            elif f[0] == "threads":
                threads = f[1]
    print(f"bench_quick: forkjoin against oneTBB, OpenMP and std::execution::par, {threads} threads, "
          f"{a.reps} repetitions interleaved across runtimes (after one warm-up), every answer checked", flush=True)
    progress = Progress(plan)
    samples, wrong, failed = [], [], []
    for k, (cmd, e) in enumerate(runs):
        rows = []
        rc = run_bench(cmd, e, progress, rows, wrong)
        samples += [(k,) + r for r in rows]
        if rc != 0 and not wrong:
            failed.append(f"{' '.join(cmd)} exited with {rc}")
    progress.finish()

    with open(os.path.join(a.out, "quick.csv"), "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["process", "repetition", "workload", "runtime", "seconds"])
        for s in samples:
            wr.writerow(list(s[:4]) + [f"{s[4]:.6g}"])

    rat = ratios(samples)
    fj = defaultdict(list)
    for proc, rep, w, r, s in samples:
        if rep > 0 and r == "forkjoin" and proc == 0:
            fj[w].append(s)
    workloads = sorted({s[2] for s in samples}, key=lambda w: ORDER.index(w) if w in ORDER else len(ORDER))
    peers = [(p, name) for p, name in PEERS if any((w, p) in rat for w in workloads)]
    table = report(a, threads, workloads, peers, rat, fj)
    print()
    print(table["text"])
    with open(os.path.join(a.out, "quick.md"), "w") as f:
        f.write(table["md"])
    print()
    print(text_chart(workloads, peers, rat))
    # not under --corrupt, a test of the answer checks (matplotlib takes seconds to load)
    chart = "(not drawn)" if a.corrupt else draw_chart(a.out, workloads, peers, rat, threads)
    print(f"table: {os.path.join(a.out, 'quick.md')}, chart: {chart}, samples: {os.path.join(a.out, 'quick.csv')}")

    if wrong or failed:
        seen = {w: wrong.count(w) for w in wrong}
        lines = [w + (f" ({n} times)" if n > 1 else "") for w, n in seen.items()] + failed
        print("\nFAILED, every answer is checked and these were wrong:\n  " + "\n  ".join(lines), file=sys.stderr)
        return 1
    return 0


def ratio(r):
    return f"{r:.2f}" if r >= 0.1 else f"{r:.2g}"


def summary(v):
    return statistics.median(v), min(v), max(v)


def report(a, threads, workloads, peers, rat, fj):
    """The ratio table, as aligned text for the terminal and as Markdown."""
    head = ["workload", "forkjoin"] + [f"/ {name}" for _, name in peers]
    rows = []
    for w in workloads:
        cells = [w, fmt_ms(statistics.median(fj[w])) if fj.get(w) else "-"]
        for p, _ in peers:
            v = rat.get((w, p))
            if v:
                m, lo, hi = summary(v)
                cells.append(f"{ratio(m)} ({ratio(lo)}-{ratio(hi)})")
            else:
                cells.append("-")
        rows.append(cells)
    verdict = []
    for p, name in peers:
        meds = [statistics.median(rat[(w, p)]) for w in workloads if rat.get((w, p))]
        if meds:
            faster = sum(m < 1 for m in meds)
            gm = math.exp(statistics.mean(math.log(m) for m in meds))
            verdict.append(f"vs {name}: forkjoin faster on {faster} of {len(meds)} workloads, "
                           f"geometric mean of the ratios {gm:.2f}")
    note = (f"forkjoin's median time, then forkjoin's time / each peer's time: the median of the "
            f"{a.reps} per-repetition ratios (min-max); below 1: forkjoin is faster. {threads} threads.")
    widths = [max(len(r[k]) for r in rows + [head]) for k in range(len(head))]
    line = lambda r: "  ".join(c.ljust(widths[k]) if k == 0 else c.rjust(widths[k]) for k, c in enumerate(r))
    text = "\n".join([note, "", line(head), "  ".join("-" * x for x in widths)] + [line(r) for r in rows]
                     + [""] + verdict)
    md = ["| workload | what | forkjoin | " + " | ".join(f"forkjoin / {name}" for _, name in peers) + " |",
          "|---|---|---|" + "---|" * len(peers)]
    for w, r in zip(workloads, rows):
        md.append(f"| {w} | {WHAT.get(w, '')} | " + " | ".join(r[1:]) + " |")
    md_text = "\n".join([note, ""] + md + [""] + [f"- {v}" for v in verdict]) + "\n"
    return {"text": text, "md": md_text}


def text_chart(workloads, peers, rat):
    """forkjoin / peer on a log scale from 1/4 to 4: bars left of | are faster, right slower."""
    half = 20  # characters per factor of 4
    lab = max([len(f"{w} / {name}") for w in workloads for _, name in peers] + [10])
    out = [" " * lab + "  " + "forkjoin faster".rjust(half) + "|" + "forkjoin slower",
           " " * lab + "  " + "1/4".ljust(half // 2) + "1/2".ljust(half // 2) + "1" + " " * (half // 2 - 1) + "2"
           + " " * (half // 2 - 1) + "4"]
    for w in workloads:
        for p, name in peers:
            v = rat.get((w, p))
            if not v:
                continue
            m = statistics.median(v)
            cells = max(-half, min(half, int(round(math.log(m, 4) * half))))
            left = " " * (half + min(cells, 0)) + "#" * -min(cells, 0)
            right = "#" * max(cells, 0)
            if cells == -half:  # off the scale: an arrow at the end
                left = "<" + left[1:]
            elif cells == half:
                right = right[:-1] + ">"
            out.append(f"{w + ' / ' + name:<{lab}}  {left}|{right.ljust(half)} {ratio(m)}")
        out.append("")
    return "\n".join(out)


def draw_chart(out, workloads, peers, rat, threads):
    """quick.png with matplotlib, else quick.svg written by hand: one bar per workload and
    peer (median ratio, min-max whiskers), log scale, a line at 1."""
    colors = {"tbb": "#1f77b4", "libgomp": "#ff7f0e", "libomp": "#9467bd", "std::par": "#2ca02c"}
    title = f"forkjoin time / peer time, {threads} threads (below 1: forkjoin faster)"
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        pass
    else:
        fig, ax = plt.subplots(figsize=(9, 1 + 0.9 * len(workloads)))
        h = 0.8 / max(1, len(peers))
        for k, (p, name) in enumerate(peers):
            ys, ms, lo, hi = [], [], [], []
            for i, w in enumerate(workloads):
                v = rat.get((w, p))
                if v:
                    m, a, b = summary(v)
                    ys.append(i + (k - (len(peers) - 1) / 2) * h)
                    ms.append(m)
                    lo.append(m - a)
                    hi.append(b - m)
            ax.barh(ys, [m - 1 for m in ms], left=1, height=h, color=colors[p], label=name, xerr=[lo, hi],
                    error_kw={"elinewidth": 0.8, "capsize": 2})
        ax.axvline(1, color="black", linewidth=1)
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.set_yticks(range(len(workloads)))
        ax.set_yticklabels(workloads)
        ax.invert_yaxis()
        ax.set_xlabel(title)
        ax.set_title(f"forkjoin against oneTBB, OpenMP and std::execution::par: medians, whiskers min-max", fontsize=10)
        ax.legend(fontsize=8, loc="best")
        fig.tight_layout()
        path = os.path.join(out, "quick.png")
        fig.savefig(path, dpi=110)
        return path
    # The SVG: x = log2 of the ratio, over powers of 2 that hold every whisker (at least 1/4 .. 4).
    W, left, right, row = 760, 90, 40, 18
    H = 40 + len(workloads) * (len(peers) * row + 14) + 50
    span = W - left - right
    every = [r for v in rat.values() for r in v if r > 0]
    lo = min([-2] + [math.floor(math.log2(min(every)))] if every else [-2])
    hi = max([2] + [math.ceil(math.log2(max(every)))] if every else [2])
    x = lambda r: left + span * (math.log2(r) - lo) / (hi - lo)
    step = 1 if hi - lo <= 8 else 2
    ticks = [2.0**e for e in range(0, lo - 1, -step)][::-1][:-1] + [2.0**e for e in range(0, hi + 1, step)]
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
         f'<rect width="{W}" height="{H}" fill="white"/>',
         f'<text x="{W / 2}" y="18" text-anchor="middle" font-size="13">{title}</text>']
    for tick in ticks:
        name = f"{tick:g}" if tick >= 1 else f"1/{1 / tick:g}"
        s.append(f'<line x1="{x(tick):.1f}" y1="30" x2="{x(tick):.1f}" y2="{H - 40}" stroke="{"black" if tick == 1 else "#ddd"}"/>')
        s.append(f'<text x="{x(tick):.1f}" y="{H - 26}" text-anchor="middle">{name}</text>')
    y = 40
    for w in workloads:
        s.append(f'<text x="{left - 6}" y="{y + len(peers) * row / 2 + 4:.1f}" text-anchor="end">{w}</text>')
        for p, name in peers:
            v = rat.get((w, p))
            if v:
                m, a, b = summary(v)
                x0, x1 = sorted((x(1), x(m)))
                s.append(f'<rect x="{x0:.1f}" y="{y + 2}" width="{max(1, x1 - x0):.1f}" height="{row - 4}" fill="{colors[p]}">'
                         f'<title>{w} / {name}: {ratio(m)} ({ratio(a)}-{ratio(b)})</title></rect>')
                s.append(f'<line x1="{x(a):.1f}" y1="{y + row / 2}" x2="{x(b):.1f}" y2="{y + row / 2}" stroke="black"/>')
                s.append(f'<text x="{max(x(1), x(b)) + 4:.1f}" y="{y + row / 2 + 4}" font-size="9">{ratio(m)}</text>')
            y += row
        y += 14
    lx = left
    for p, name in peers:
        s.append(f'<rect x="{lx}" y="{H - 13}" width="10" height="8" fill="{colors[p]}"/>'
                 f'<text x="{lx + 14}" y="{H - 5}">{name}</text>')
        lx += 150
    s.append("</svg>")
    path = os.path.join(out, "quick.svg")
    with open(path, "w") as f:
        f.write("\n".join(s) + "\n")
    return path


if __name__ == "__main__":
    sys.exit(main())

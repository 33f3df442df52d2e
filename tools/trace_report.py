#!/usr/bin/env python3
"""trace_report.py: summarise a forkjoin worker trace and draw its timeline.

    tools/trace_report.py TRACE.json [-o OUT.png] [--width INCHES]

TRACE.json is the Chrome Trace Event Format file that a pool writes when FORKJOIN_TRACE
(or pool_options::trace_path) is set. Prints a text summary to stdout: per worker the
utilisation (time inside jobs over the traced window), jobs, steals, idle time (spinning,
parked, and untraced gaps), and for the whole run the longest serial stretch (the longest
interval in which at most one worker ran a job). Tracks of threads that are not the pool's
workers (an OpenMP primary or spare team thread, a blocking() spare) are rows like workers'.
With -o, also writes a PNG timeline: one
row per worker, one colour per kind of span, a tick per steal. Needs Python 3; -o needs
matplotlib. docs/tracing.md explains how to read both.
"""

import argparse
import json
import sys

JOB_KINDS = ["run", "omp.region", "join.f", "join.g", "task", "omp.task", "chunk", "yield"]
IDLE_KINDS = ["spin", "park", "omp.barrier", "blocking"]
COLOURS = {
    "run": "#9e9e9e",
    "omp.region": "#c7c7c7",
    "join.f": "#1f77b4",
    "join.g": "#7fb3e0",
    "task": "#2ca02c",
    "omp.task": "#98df8a",
    "chunk": "#ff7f0e",
    "yield": "#9467bd",
    "spin": "#f2d94e",
    "park": "#d62728",
    "omp.barrier": "#e377c2",
    "blocking": "#8c564b",
}
# Executed units of work, for the jobs column (join.f and a yield run inside their caller).
COUNTED_JOBS = ["run", "omp.region", "join.g", "task", "omp.task", "chunk"]


def load(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    other = doc.get("otherData", {}) if isinstance(doc, dict) else {}
    names, spans, steals = {}, {}, {}
    for e in events:
        ph, tid = e.get("ph"), e.get("tid")
        if ph == "M" and e.get("name") == "thread_name":
            names[tid] = e["args"]["name"]
        elif ph == "X":
            spans.setdefault(tid, []).append((float(e["ts"]), float(e["ts"]) + float(e["dur"]), e["name"]))
        elif ph == "i" and e.get("name") == "steal":
            steals.setdefault(tid, []).append((float(e["ts"]), e.get("args", {}).get("victim")))
    for tid in names:
        spans.setdefault(tid, [])
        steals.setdefault(tid, [])
    for v in spans.values():
        v.sort(key=lambda s: (s[0], -s[1]))
    return names, spans, steals, other


def union(intervals):
    """Merged [start, end) intervals, sorted."""
    out = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def innermost(spans):
    """Pieces (start, end, kind) of one track, each labelled with its innermost span: a task
    run inside a barrier wait is busy, a spin inside a join is idle."""
    out, stack, cur = [], [], [None]

    def emit(upto):
        if stack and cur[0] is not None and upto > cur[0]:
            out.append((cur[0], upto, stack[-1][1]))
        cur[0] = upto

    for a, b, k in sorted(spans, key=lambda s: (s[0], -s[1])):
        while stack and stack[-1][0] <= a:
            emit(stack[-1][0])
            stack.pop()
        emit(a)
        stack.append((min(b, stack[-1][0]) if stack else b, k))
    while stack:
        emit(stack[-1][0])
        stack.pop()
    return out


def length(intervals):
    return sum(b - a for a, b in intervals)


def longest_serial(busy_by_worker, t0, t1):
    """Longest interval of [t0, t1] in which at most one worker is busy."""
    edges = []
    for busy in busy_by_worker:
        for a, b in busy:
            edges.append((a, 1))
            edges.append((b, -1))
    edges.sort(key=lambda x: (x[0], x[1]))
    best, best_at, running, start = 0.0, t0, 0, t0
    for t, d in edges:
        if running <= 1 and running + d > 1:  # a serial stretch ends
            if t - start > best:
                best, best_at = t - start, start
        running += d
        if running <= 1 and running - d > 1:  # one begins
            start = t
    if running <= 1 and t1 - start > best:
        best, best_at = t1 - start, start
    return best, best_at


def summarise(names, spans, steals, other):
    all_spans = [s for v in spans.values() for s in v]
    if not all_spans:
        return "no spans in the trace\n", None
    t0 = min(s[0] for s in all_spans)
    t1 = max(s[1] for s in all_spans)
    window = max(t1 - t0, 1e-9)
    lines = []
    lines.append("window %.3f ms, %d workers, %d events dropped" % (window / 1000.0, len(names), int(other.get("dropped_events", 0))))
    lines.append(
        "%-12s %7s %8s %7s %7s %9s %10s %10s %11s %11s"
        % ("track", "util%", "jobs", "steals", "stolen", "spin ms", "parked ms", "barrier ms", "blocked ms", "untraced ms")
    )
    stolen_from = {}
    for tid in steals:
        for _, victim in steals[tid]:
            if victim is not None:
                stolen_from[victim] = stolen_from.get(victim, 0) + 1
    busy_all = []
    for tid in sorted(names):
        v = spans.get(tid, [])
        # Each instant counts as its innermost span: a helping wait spins or parks inside the
        # job that waits (idle), an OpenMP barrier runs tasks (busy).
        pieces = innermost(v)
        busy = union([(a, b) for a, b, k in pieces if k in JOB_KINDS])
        busy_all.append(busy)

        def time_in(kind):
            return length(union([(a, b) for a, b, k in pieces if k == kind]))

        spin, park, barrier, blocked = time_in("spin"), time_in("park"), time_in("omp.barrier"), time_in("blocking")
        jobs = sum(1 for _, _, k in v if k in COUNTED_JOBS)
        untraced = max(window - length(busy) - spin - park - barrier - blocked, 0.0)
        lines.append(
            "%-12s %6.1f%% %8d %7d %7d %9.3f %10.3f %10.3f %10.3f %11.3f"
            % (
                names[tid],
                100.0 * length(busy) / window,
                jobs,
                len(steals.get(tid, [])),
                stolen_from.get(tid - 1, 0),
                spin / 1000.0,
                park / 1000.0,
                barrier / 1000.0,
                blocked / 1000.0,
                untraced / 1000.0,
            )
        )
    total_busy = sum(length(b) for b in busy_all)
    lines.append("utilisation %.1f%% (time in jobs over workers x window)" % (100.0 * total_busy / (window * max(len(names), 1))))
    serial, at = longest_serial(busy_all, t0, t1)
    lines.append("longest serial stretch %.3f ms at %.3f ms (at most one worker in a job)" % (serial / 1000.0, (at - t0) / 1000.0))
    return "\n".join(lines) + "\n", (t0, t1)


def draw(names, spans, steals, window, out, width):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    t0, t1 = window
    tids = sorted(names)
    fig, ax = plt.subplots(figsize=(width, 0.55 * len(tids) + 1.3))
    for row, tid in enumerate(tids):
        y = len(tids) - 1 - row
        # Outer spans first, inner ones over them: a chunk shows inside its join.
        by_kind = {}
        for a, b, k in spans.get(tid, []):
            by_kind.setdefault(k, []).append(((a - t0) / 1000.0, max((b - a) / 1000.0, 1e-6)))
        for k in COLOURS:
            if k in by_kind:
                h = 0.8 if k in JOB_KINDS else 0.4
                # A thin white edge separates neighbouring spans of one kind (chunks).
                ax.broken_barh(by_kind[k], (y - h / 2, h), facecolors=COLOURS[k], edgecolor="white", linewidth=0.3)
        xs = [(t - t0) / 1000.0 for t, _ in steals.get(tid, [])]
        if xs:
            ax.plot(xs, [y + 0.45] * len(xs), linestyle="none", marker="v", markersize=4, color="black")
    ax.set_yticks(range(len(tids)))
    ax.set_yticklabels([names[t] for t in reversed(tids)])
    ax.set_xlabel("time since the first span (ms)")
    ax.set_xlim(0, (t1 - t0) / 1000.0)
    present = {k for v in spans.values() for _, _, k in v}
    handles = [Patch(color=COLOURS[k], label=k) for k in COLOURS if k in present]
    if any(steals.values()):
        handles.append(plt.Line2D([], [], linestyle="none", marker="v", color="black", label="steal"))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.35 if len(tids) < 4 else -0.2), ncol=8, fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(out, dpi=100)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("trace")
    p.add_argument("-o", "--output", help="PNG timeline to write")
    p.add_argument("--width", type=float, default=10.0, help="picture width in inches (default 10)")
    a = p.parse_args(argv)
    names, spans, steals, other = load(a.trace)
    text, window = summarise(names, spans, steals, other)
    sys.stdout.write(text)
    if a.output and window is not None:
        draw(names, spans, steals, window, a.output, a.width)
        sys.stdout.write("wrote %s\n" % a.output)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

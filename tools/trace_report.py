#!/usr/bin/env python3
"""forkjoin-trace-report: summarise a forkjoin worker trace and draw its timeline.

    forkjoin-trace-report TRACE.json [-o OUT.svg|OUT.png] [--width INCHES]

(installed with the library; tools/trace_report.py in the sources). TRACE.json is the
Chrome Trace Event Format file that a pool writes when FORKJOIN_TRACE (or
pool_options::trace_path) is set. Prints a text summary to stdout: per track the
utilisation (time inside jobs over the traced window), jobs, steals, idle time (spinning,
parked, in barriers, blocked, and untraced gaps), and for the whole run the longest serial
stretch (the longest interval in which at most one track ran a job). A track that recorded
nothing (an OpenMP program's unused worker 0) is left out and named.

With -o, also draws the timeline: one row per track, one colour per kind of span, spans
drawn outermost first so that each instant shows its innermost span (a task run inside a
barrier wait shows over the barrier), a triangle per steal. An .svg name is written by this
script alone; any other name (.png, .pdf) needs matplotlib, and without it the picture is
written as an SVG next to it instead. Needs nothing but Python 3. docs/tracing.md explains
how to read both.
"""

import argparse
import json
import math
import os
import sys
from xml.sax.saxutils import escape

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
    for tid in set(spans) | set(steals):
        names.setdefault(tid, "thread %s" % tid)
    for tid in names:
        spans.setdefault(tid, [])
        steals.setdefault(tid, [])
    for v in spans.values():
        v.sort(key=lambda s: (s[0], -s[1]))
    return names, spans, steals, other


def shown_tracks(names, spans, steals):
    """The tracks to report and draw, and those left out: a track that recorded nothing
    (no span, no steal) is a slot no thread ever used."""
    shown = [t for t in sorted(names) if spans.get(t) or steals.get(t)]
    empty = [t for t in sorted(names) if t not in shown]
    return shown, empty


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


def by_depth(spans):
    """The spans of one track as (depth, start, end, kind), outermost first: drawn in this
    order, every instant shows its innermost span."""
    out, ends = [], []
    for a, b, k in sorted(spans, key=lambda s: (s[0], -s[1])):
        while ends and ends[-1] <= a:
            ends.pop()
        out.append((len(ends), a, b, k))
        ends.append(b)
    out.sort(key=lambda s: s[0])
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
    shown, empty = shown_tracks(names, spans, steals)
    all_spans = [s for t in shown for s in spans[t]]
    if not all_spans:
        return "no spans in the trace\n", None
    t0 = min(s[0] for s in all_spans)
    t1 = max(s[1] for s in all_spans)
    window = max(t1 - t0, 1e-9)
    lines = []
    lines.append(
        "window %.3f ms, %d tracks, %d events dropped"
        % (window / 1000.0, len(shown), int(other.get("dropped_events", 0)))
    )
    if empty:
        lines.append("not shown (recorded nothing): " + ", ".join(names[t] for t in empty))
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
    for tid in shown:
        v = spans[tid]
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
                stolen_from.get(tid - 1, 0) if isinstance(tid, int) else 0,
                spin / 1000.0,
                park / 1000.0,
                barrier / 1000.0,
                blocked / 1000.0,
                untraced / 1000.0,
            )
        )
    total_busy = sum(length(b) for b in busy_all)
    lines.append("utilisation %.1f%% (time in jobs over tracks x window)" % (100.0 * total_busy / (window * len(shown))))
    serial, at = longest_serial(busy_all, t0, t1)
    lines.append("longest serial stretch %.3f ms at %.3f ms (at most one track in a job)" % (serial / 1000.0, (at - t0) / 1000.0))
    return "\n".join(lines) + "\n", (t0, t1)


def nice_step(span, ticks=6):
    """A 1, 2 or 5 times a power of ten step giving about `ticks` ticks over span."""
    raw = span / ticks
    base = 10.0 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * base:
            return m * base
    return 10 * base


def draw_svg(names, spans, steals, window, out, width):
    """The timeline as an SVG, written by hand (no dependency). Spans narrower than half a
    pixel that touch a neighbour of the same kind and depth are merged into one rectangle,
    so that a million chunks make a file of reasonable size."""
    t0, t1 = window
    shown, _ = shown_tracks(names, spans, steals)
    row_h, left, right, top = 28.0, 120.0, 20.0, 10.0
    w = max(width * 100.0, 400.0)
    plot_w = w - left - right
    scale = plot_w / max(t1 - t0, 1e-9)
    present = {k for t in shown for _, _, k in spans[t]}
    legend = [k for k in COLOURS if k in present] + (["steal"] if any(steals[t] for t in shown) else [])
    per_line = max(int(plot_w // 110), 1)
    legend_lines = (len(legend) + per_line - 1) // per_line
    plot_h = row_h * len(shown)
    h = top + plot_h + 50.0 + 18.0 * legend_lines + 10.0
    parts = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
        'font-family="sans-serif" font-size="11">' % (w, h, w, h),
        '<rect x="0" y="0" width="%d" height="%d" fill="white"/>' % (w, h),
    ]
    for row, tid in enumerate(shown):
        yc = top + row_h * row + row_h / 2.0
        parts.append(
            '<text x="%.1f" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>'
            % (left - 6, yc, escape(str(names[tid])))
        )
        merged = []  # [depth, kind, x0, x1]
        for depth, a, b, k in by_depth(spans[tid]):
            x0, x1 = left + (a - t0) * scale, left + (b - t0) * scale
            last = merged[-1] if merged else None
            if last and last[0] == depth and last[1] == k and x0 - last[3] < 0.5:
                last[3] = max(last[3], x1)
            else:
                merged.append([depth, k, x0, x1])
        for depth, k, x0, x1 in merged:
            bar = row_h * (0.8 if k in JOB_KINDS else 0.4)
            parts.append(
                '<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="%s" stroke="white" stroke-width="0.3">'
                "<title>%s</title></rect>" % (x0, yc - bar / 2.0, max(x1 - x0, 0.3), bar, COLOURS.get(k, "#000000"), escape(k))
            )
        for t, _ in steals[tid]:
            x = left + (t - t0) * scale
            y = yc - row_h * 0.45
            parts.append('<polygon points="%.2f,%.2f %.2f,%.2f %.2f,%.2f" fill="black"/>' % (x - 3, y - 5, x + 3, y - 5, x, y))
    axis_y = top + plot_h + 4.0
    parts.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>' % (left, axis_y, left + plot_w, axis_y))
    span_ms = (t1 - t0) / 1000.0
    if span_ms > 0:
        step = nice_step(span_ms)
        k = 0
        while k * step <= span_ms * 1.0000001:
            x = left + k * step * 1000.0 * scale
            parts.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>' % (x, axis_y, x, axis_y + 4))
            parts.append('<text x="%.1f" y="%.1f" text-anchor="middle">%g</text>' % (x, axis_y + 15, round(k * step, 9)))
            k += 1
    parts.append(
        '<text x="%.1f" y="%.1f" text-anchor="middle">time since the first span (ms)</text>'
        % (left + plot_w / 2.0, axis_y + 29)
    )
    for i, k in enumerate(legend):
        x = left + 110.0 * (i % per_line)
        y = axis_y + 50.0 + 18.0 * (i // per_line)
        if k == "steal":
            parts.append('<polygon points="%.1f,%.1f %.1f,%.1f %.1f,%.1f" fill="black"/>' % (x, y - 8, x + 10, y - 8, x + 5, y))
        else:
            parts.append('<rect x="%.1f" y="%.1f" width="10" height="10" fill="%s"/>' % (x, y - 9, COLOURS[k]))
        parts.append('<text x="%.1f" y="%.1f">%s</text>' % (x + 14, y, escape(k)))
    parts.append("</svg>")
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(parts) + "\n")


def draw_matplotlib(names, spans, steals, window, out, width):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    t0, t1 = window
    tids, _ = shown_tracks(names, spans, steals)
    fig, ax = plt.subplots(figsize=(width, 0.55 * len(tids) + 1.3))
    for row, tid in enumerate(tids):
        y = len(tids) - 1 - row
        # Outermost spans first, inner ones over them: a chunk shows inside its join, a task
        # inside the barrier wait that ran it. One call per (depth, kind).
        groups = {}
        for depth, a, b, k in by_depth(spans[tid]):
            groups.setdefault((depth, k), []).append(((a - t0) / 1000.0, max((b - a) / 1000.0, 1e-6)))
        for depth, k in sorted(groups):
            h = 0.8 if k in JOB_KINDS else 0.4
            # A thin white edge separates neighbouring spans of one kind (chunks).
            ax.broken_barh(groups[(depth, k)], (y - h / 2, h), facecolors=COLOURS.get(k, "black"), edgecolor="white", linewidth=0.3)
        xs = [(t - t0) / 1000.0 for t, _ in steals[tid]]
        if xs:
            ax.plot(xs, [y + 0.45] * len(xs), linestyle="none", marker="v", markersize=4, color="black")
    ax.set_yticks(range(len(tids)))
    ax.set_yticklabels([names[t] for t in reversed(tids)])
    ax.set_xlabel("time since the first span (ms)")
    ax.set_xlim(0, (t1 - t0) / 1000.0)
    present = {k for t in tids for _, _, k in spans[t]}
    handles = [Patch(color=COLOURS[k], label=k) for k in COLOURS if k in present]
    if any(steals[t] for t in tids):
        handles.append(plt.Line2D([], [], linestyle="none", marker="v", color="black", label="steal"))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.35 if len(tids) < 4 else -0.2), ncol=8, fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(out, dpi=100)


def main(argv):
    p = argparse.ArgumentParser(prog="forkjoin-trace-report", description=__doc__.split("\n")[0])
    p.add_argument("trace")
    p.add_argument("-o", "--output", help="timeline picture to write: .svg (no dependency), .png or .pdf (matplotlib)")
    p.add_argument("--width", type=float, default=10.0, help="picture width in inches, 100 px each in SVG (default 10)")
    a = p.parse_args(argv)
    names, spans, steals, other = load(a.trace)
    text, window = summarise(names, spans, steals, other)
    sys.stdout.write(text)
    if a.output and window is not None:
        out = a.output
        if os.path.splitext(out)[1].lower() == ".svg":
            draw_svg(names, spans, steals, window, out, a.width)
        else:
            try:
                import matplotlib  # noqa: F401
            except ImportError:
                out = os.path.splitext(out)[0] + ".svg"
                sys.stdout.write(
                    "matplotlib is not installed (Debian: apt-get install python3-matplotlib), so the picture is an SVG: %s\n" % out
                )
                draw_svg(names, spans, steals, window, out, a.width)
            else:
                draw_matplotlib(names, spans, steals, window, out, a.width)
        sys.stdout.write("wrote %s\n" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

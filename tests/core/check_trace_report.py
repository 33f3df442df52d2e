#!/usr/bin/env python3
"""check_trace_report.py: tests tools/trace_report.py (installed as forkjoin-trace-report).

    check_trace_report.py TOOL WORK_DIR [TRACE.json]

1. On a small OpenMP-shaped trace written here: a worker 0 that recorded nothing is left out
   of the summary, the utilisation and the picture; tasks run inside a barrier wait are busy
   time and are drawn over the barrier (spans drawn outermost first).
2. On TRACE.json (a real trace, tests/core/trace_demo.cpp's), and on the small one: with
   matplotlib hidden (a module directory on PYTHONPATH whose `import matplotlib` fails), the
   tool prints the summary, says what to install and writes a well-formed SVG instead of the
   PNG asked for; -o x.svg always writes the SVG itself; and when this Python has
   matplotlib, -o x.png writes a PNG.
Exits non-zero with a message on the first failure.
"""

import importlib.util
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"


def fail(msg):
    print("check_trace_report: " + msg, file=sys.stderr)
    sys.exit(1)


def omp_shaped_trace(path):
    """worker 0 (tid 1) records nothing; worker 1 runs a region whose closing barrier runs
    three tasks; the main thread runs a region and waits in its barrier."""
    ev = [
        {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "worker 0"}},
        {"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "worker 1"}},
        {"ph": "M", "name": "thread_name", "pid": 1, "tid": 9, "args": {"name": "main thread"}},
    ]

    def span(tid, name, ts, dur):
        ev.append({"ph": "X", "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur})

    span(2, "omp.region", 0, 1000)
    span(2, "omp.barrier", 500, 500)
    for start in (550, 650, 750):
        span(2, "omp.task", start, 50)
    span(9, "omp.region", 0, 1000)
    span(9, "omp.barrier", 400, 600)
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"traceEvents": ev, "otherData": {"dropped_events": 0}}, f)


def run(tool, args, hide_matplotlib, work):
    env = dict(os.environ)
    if hide_matplotlib:
        shim = os.path.join(work, "no_matplotlib")
        os.makedirs(os.path.join(shim, "matplotlib"), exist_ok=True)
        with open(os.path.join(shim, "matplotlib", "__init__.py"), "w", encoding="utf-8") as f:
            f.write('raise ImportError("matplotlib hidden by check_trace_report.py")\n')
        env["PYTHONPATH"] = shim + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run([sys.executable, tool] + args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    out, err = p.stdout.decode(), p.stderr.decode()
    if p.returncode != 0 or err.strip():
        fail("%s %s exited %d (matplotlib %s):\n%s\n%s" % (tool, " ".join(args), p.returncode, "hidden" if hide_matplotlib else "visible", out, err))
    return out


def svg_rects(path):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        fail("%s is not well-formed XML: %s" % (path, e))
    if root.tag != SVG + "svg":
        fail("%s: the root element is %s, not svg" % (path, root.tag))
    return [(r, r.findtext(SVG + "title")) for r in root.iter(SVG + "rect")]


def check_small(tool, work):
    trace = os.path.join(work, "omp_shaped.json")
    omp_shaped_trace(trace)
    # The module itself: drawing order.
    spec = importlib.util.spec_from_file_location("trace_report", tool)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    names, spans, steals, _ = mod.load(trace)
    order = [k for _, _, _, k in mod.by_depth(spans[2])]
    if order != ["omp.region", "omp.barrier", "omp.task", "omp.task", "omp.task"]:
        fail("spans must be drawn outermost first, got %s" % order)
    if mod.shown_tracks(names, spans, steals) != ([2, 9], [1]):
        fail("worker 0 recorded nothing and must be left out: %r" % (mod.shown_tracks(names, spans, steals),))

    out = run(tool, [trace, "-o", os.path.join(work, "small.png")], True, work)
    lines = out.splitlines()
    if not any(l.startswith("not shown (recorded nothing): worker 0") for l in lines):
        fail("the summary must name the track it leaves out:\n" + out)
    if any(l.startswith("worker 0 ") for l in lines):
        fail("worker 0 recorded nothing but has a row:\n" + out)
    # worker 1: 500 us of region before the barrier + 150 us of tasks inside it; main: 400.
    w1 = [l for l in lines if l.startswith("worker 1 ")]
    if not w1 or w1[0].split()[2] != "65.0%":
        fail("worker 1 must be 65.0% busy (tasks inside the barrier count):\n" + out)
    if "utilisation 52.5%" not in out:
        fail("the utilisation must be over the two tracks that ran (52.5%):\n" + out)
    if "matplotlib is not installed" not in out or "wrote " + os.path.join(work, "small.svg") not in out:
        fail("without matplotlib the tool must say so and write small.svg:\n" + out)
    rects = [t for _, t in svg_rects(os.path.join(work, "small.svg")) if t]
    if rects.count("omp.task") != 3 or rects.count("omp.barrier") != 2:
        fail("small.svg must hold 3 tasks and 2 barriers, got %s" % rects)
    if rects[:5] != ["omp.region", "omp.barrier", "omp.task", "omp.task", "omp.task"]:  # worker 1's row
        fail("a task must be drawn after (over) the barrier that ran it: %s" % rects)
    labels = [t.text for t in ET.parse(os.path.join(work, "small.svg")).getroot().iter(SVG + "text")]
    if "worker 0" in labels or "worker 1" not in labels:
        fail("small.svg must have a row for worker 1 and none for worker 0: %s" % labels)


def check_real(tool, work, trace):
    out = run(tool, [trace, "-o", os.path.join(work, "demo.png")], True, work)
    for needle in ("utilisation", "longest serial stretch", "wrote " + os.path.join(work, "demo.svg")):
        if needle not in out:
            fail("'%s' missing from the output without matplotlib:\n%s" % (needle, out))
    if len(svg_rects(os.path.join(work, "demo.svg"))) < 10:
        fail("demo.svg holds almost nothing")
    out = run(tool, [trace, "-o", os.path.join(work, "direct.svg")], False, work)
    if "wrote " + os.path.join(work, "direct.svg") not in out:
        fail("-o x.svg must write x.svg:\n" + out)
    svg_rects(os.path.join(work, "direct.svg"))
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("check_trace_report: this Python has no matplotlib: the PNG form was not exercised")
        return
    png = os.path.join(work, "demo_mpl.png")
    out = run(tool, [trace, "-o", png], False, work)
    with open(png, "rb") as f:
        if f.read(8) != b"\x89PNG\r\n\x1a\n":
            fail("%s is not a PNG" % png)
    print("check_trace_report: PNG written with matplotlib")


def main():
    if len(sys.argv) not in (3, 4):
        fail("usage: check_trace_report.py TOOL WORK_DIR [TRACE.json]")
    tool, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    check_small(tool, work)
    if len(sys.argv) == 4:
        check_real(tool, work, sys.argv[3])
    print("check_trace_report: ok")


if __name__ == "__main__":
    main()

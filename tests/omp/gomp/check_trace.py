#!/usr/bin/env python3
"""check_trace.py: runs tests/omp/gomp/trace.c's program with FORKJOIN_TRACE and checks the trace
against what the program printed: one omp.region span per team thread per region (ids 0..n-1,
the team size the program saw), one end-of-region omp.barrier span per team thread of a team
of more than one, as many omp.task spans as tasks ran, the primary on the main thread's track,
every span closed and properly nested on its track.

    check_trace.py TRACE.json COMMAND [ARGS...]
"""

import json
import os
import subprocess
import sys
from collections import defaultdict


def fail(msg):
    print("check_trace: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) < 3:
        fail("usage: check_trace.py TRACE.json COMMAND [ARGS...]")
    path, cmd = sys.argv[1], sys.argv[2:]
    if os.path.exists(path):
        os.remove(path)
    env = dict(os.environ, FORKJOIN_TRACE=path)
    out = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, check=True, timeout=120).stdout.decode()
    sizes = [int(line.split()[1]) for line in out.splitlines() if line.startswith("region ")]
    tasks = [int(line.split()[1]) for line in out.splitlines() if line.startswith("tasks ")]
    if not sizes or len(tasks) != 1:
        fail("unexpected program output:\n" + out)

    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    names = {}
    spans = defaultdict(list)  # tid -> [(t0, t1, name, args)]
    for e in doc["traceEvents"]:
        if e["ph"] == "M" and e["name"] == "thread_name":
            names[e["tid"]] = e["args"]["name"]
        elif e["ph"] == "X":
            t0 = float(e["ts"])
            if float(e["dur"]) < 0:
                fail("negative duration: %r" % e)
            args = e.get("args", {})
            if args.get("open"):
                fail("a span still open in the final trace: %r" % e)
            spans[e["tid"]].append((t0, t0 + float(e["dur"]), e["name"], args))
        elif e["ph"] not in ("i", "s", "f", "M"):
            fail("unexpected phase: %r" % e)

    # nesting: on one track, spans either nest or are disjoint
    for tid, v in spans.items():
        v.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for s in v:
            while stack and stack[-1][1] <= s[0]:
                stack.pop()
            if stack and s[1] > stack[-1][1] + 1e-3:
                fail("track %s: %s at %.3f overlaps %s at %.3f partially" % (names.get(tid), s[2], s[0], stack[-1][2], stack[-1][0]))
            stack.append(s)

    turns = defaultdict(list)  # region number -> [(thread id, team size, tid)]
    end_barriers = defaultdict(int)
    task_spans = 0
    for tid, v in spans.items():
        for _, _, name, args in v:
            if name == "omp.region":
                turns[args["region"]].append((args["thread"], args["team_size"], tid))
            elif name == "omp.barrier" and args.get("end") == 1:
                end_barriers[args["region"]] += 1
            elif name == "omp.task":
                task_spans += 1

    if sorted(turns) != list(range(1, len(sizes) + 1)):
        fail("regions in the trace %s, the program ran %d" % (sorted(turns), len(sizes)))
    for region, size in zip(sorted(turns), sizes):
        got = turns[region]
        ids = sorted(t[0] for t in got)
        if ids != list(range(size)):
            fail("region %d (team of %d): team thread ids %s" % (region, size, ids))
        if any(t[1] != size for t in got):
            fail("region %d: team_size args %s, the program saw %d" % (region, [t[1] for t in got], size))
        primary = [t[2] for t in got if t[0] == 0][0]
        if names.get(primary) != "main thread":
            fail("region %d: the primary's turn is on %r, not the main thread's track" % (region, names.get(primary)))
        if len({t[2] for t in got}) != size:
            fail("region %d: two team threads on one track" % region)
        if size > 1 and end_barriers[region] != size:
            fail("region %d: %d end-barrier spans for %d team threads" % (region, end_barriers[region], size))
    if task_spans != tasks[0]:
        fail("%d omp.task spans, the program ran %d tasks" % (task_spans, tasks[0]))
    print("check_trace: %d regions (teams %s), %d tasks, %d tracks: ok" % (len(sizes), sizes, task_spans, len(names)))


if __name__ == "__main__":
    main()

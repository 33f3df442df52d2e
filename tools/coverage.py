#!/usr/bin/env python3
"""Line and branch coverage of forkjoin/, include/ and omp/ from a --coverage build.

    cmake --workflow --preset coverage       # configure, build, reset, ctest, this report

runs, in build/coverage:
    tools/coverage.py reset  --build DIR     delete every *.gcda (counters of earlier runs)
    tools/coverage.py report --source SRC --build DIR [--gcovr gcovr] [--gcov gcov]

The report runs gcovr once (gcov on every counter file, parse errors ignored), then counts
per directory and writes, under DIR/coverage/:
    summary.txt    lines and branches of forkjoin/, include/ and omp/ apiece (also printed)
    uncovered.txt  every branch the rule counts that no test took, by file and line, with
                   the source line; "(line never ran)" marks a line no test reached at all
    files.txt      the same figures per file
    raw.json       gcovr's data, every branch;  counted.json: the branches the rule counts
    html/          gcovr's HTML report of counted.json (index.html)

The rule: which branches count.
  gcov reports, besides the branches of the source's conditions, one edge per call that can
  throw inside a scope with something to destroy: the path to the landing pad, which the
  compiler invents and which runs only when that callee throws. Nearly every such callee is
  a constructor, an allocation or a user functor that the tests have no reason to make throw
  at that very call; counting them would ask for a throwing test per call site and measure
  the compiler's exception tables rather than the library's decisions. So:
    1. branches gcov marks as throw branches are not counted (gcovr --exclude-throw-branches);
    2. branches on a line with no code but braces (the destructor calls and cleanup edges at
       the end of a scope) are not counted (gcovr --exclude-unreachable-branches).
  The library's own exception handling is still measured: the catch blocks, the rethrows and
  the tests on exception_ptr are ordinary lines and branches, and stay counted. Both figures,
  every branch and the branches the rule counts, are reported.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

DIRECTORIES = ("forkjoin", "include", "omp")

_LINE_COMMENT = re.compile(r"//.*$")
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/")


def braces_only(text):
    """True when a source line holds no code but braces (rule 2)."""
    code = _LINE_COMMENT.sub("", _BLOCK_COMMENT.sub("", text))
    return "".join(code.split()) in ("", "{", "}", "{}")


def reset(build):
    removed = 0
    for root, _, files in os.walk(build):
        for name in files:
            if name.endswith(".gcda"):
                os.remove(os.path.join(root, name))
                removed += 1
    print(f"coverage: removed {removed} counter files under {build}")


def run_gcovr(args, out_dir, raw):
    directories = "|".join(DIRECTORIES)
    cmd = [args.gcovr, "--root", args.source, "--gcov-executable", args.gcov, "--gcov-ignore-parse-errors",
           "--filter", re.escape(os.path.join(os.path.realpath(args.source), "")) + f"({directories})/",
           "-j", str(args.jobs), "--json", raw, args.build]
    started = time.monotonic()
    subprocess.run(cmd, check=True)
    print(f"coverage: gcovr read the counters in {time.monotonic() - started:.0f} s")


class Tally:
    def __init__(self):
        self.lines = [0, 0]  # covered, total
        self.all_branches = [0, 0]
        self.branches = [0, 0]  # under the rule

    def add(self, other):
        for mine, theirs in ((self.lines, other.lines), (self.all_branches, other.all_branches),
                             (self.branches, other.branches)):
            mine[0] += theirs[0]
            mine[1] += theirs[1]


def percent(pair):
    covered, total = pair
    figure = f"{100.0 * covered / total:5.1f}%" if total else "    -"
    return f"{figure} ({covered}/{total})"


def count(source, data):
    """Per-file tallies, the counted data (rule applied) and the uncovered branches."""
    tallies = {}
    uncovered = []
    for entry in data["files"]:
        path = entry["file"]
        try:
            with open(os.path.join(source, path), encoding="utf-8", errors="replace") as f:
                text = f.read().splitlines()
        except OSError:
            text = []
        tally = tallies.setdefault(path, Tally())
        for line in entry["lines"]:
            if line.get("gcovr/noncode") or line.get("gcovr/excluded"):
                continue
            tally.lines[1] += 1
            tally.lines[0] += line["count"] > 0
            branches = line["branches"]
            tally.all_branches[1] += len(branches)
            tally.all_branches[0] += sum(b["count"] > 0 for b in branches)
            number = line["line_number"]
            source_line = text[number - 1] if 0 < number <= len(text) else ""
            kept = [] if braces_only(source_line) else [b for b in branches if not b["throw"]]
            line["branches"] = kept
            tally.branches[1] += len(kept)
            tally.branches[0] += sum(b["count"] > 0 for b in kept)
            missed = [i for i, b in enumerate(kept) if b["count"] == 0]
            if missed:
                uncovered.append((path, number, len(missed), len(kept), line["count"] == 0, source_line.strip()))
    return tallies, uncovered


def report(args):
    out_dir = os.path.join(args.build, "coverage")
    os.makedirs(out_dir, exist_ok=True)
    raw = os.path.join(out_dir, "raw.json")
    run_gcovr(args, out_dir, raw)
    with open(raw) as f:
        data = json.load(f)
    tallies, uncovered = count(args.source, data)
    counted = os.path.join(out_dir, "counted.json")
    with open(counted, "w") as f:
        json.dump(data, f)

    per_dir = {d: Tally() for d in DIRECTORIES}
    for path, tally in tallies.items():
        top = path.split("/", 1)[0]
        if top in per_dir:
            per_dir[top].add(tally)
    header = f"{'':10} {'lines':22} {'branches (all)':22} {'branches (rule)':22}"
    summary = ["Coverage of forkjoin/, include/ and omp/ (tools/coverage.py; the rule: throw branches and",
               "branches on brace-only lines not counted)", "", header]
    for d in DIRECTORIES:
        t = per_dir[d]
        summary.append(f"{d + '/':10} {percent(t.lines):22} {percent(t.all_branches):22} {percent(t.branches):22}")
    summary.append("")
    summary.append(f"uncovered branches: {out_dir}/uncovered.txt; HTML: {out_dir}/html/index.html")
    summary_text = "\n".join(summary) + "\n"
    with open(os.path.join(out_dir, "summary.txt"), "w") as f:
        f.write(summary_text)

    with open(os.path.join(out_dir, "files.txt"), "w") as f:
        f.write(f"{'file':44} {'lines':22} {'branches (all)':22} {'branches (rule)':22}\n")
        for path in sorted(tallies):
            t = tallies[path]
            f.write(f"{path:44} {percent(t.lines):22} {percent(t.all_branches):22} {percent(t.branches):22}\n")

    with open(os.path.join(out_dir, "uncovered.txt"), "w") as f:
        f.write("Branches the rule counts that no test took: file:line  untaken/branches  source\n")
        current = None
        for path, number, missed, total, never_ran, source_line in sorted(uncovered):
            if path != current:
                f.write(f"\n{path}\n")
                current = path
            mark = " (line never ran)" if never_ran else ""
            f.write(f"  {path}:{number}  {missed}/{total}{mark}  {source_line}\n")

    html_dir = os.path.join(out_dir, "html")
    os.makedirs(html_dir, exist_ok=True)
    subprocess.run([args.gcovr, "--root", args.source, "--add-tracefile", counted, "--html-details",
                    os.path.join(html_dir, "index.html"), "--html-title", "forkjoin coverage"], check=True,
                   stdout=subprocess.DEVNULL)
    sys.stdout.write(summary_text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_reset = sub.add_parser("reset", help="delete the counters (*.gcda) under the build tree")
    p_reset.add_argument("--build", required=True)
    p_report = sub.add_parser("report", help="run gcovr and write the report under BUILD/coverage")
    p_report.add_argument("--source", required=True)
    p_report.add_argument("--build", required=True)
    p_report.add_argument("--gcovr", default="gcovr")
    p_report.add_argument("--gcov", default="gcov")
    p_report.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    if args.command == "reset":
        reset(args.build)
    else:
        report(args)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""results_page.py: writes bench/RESULTS.md from bench/results_template.md (the prose) and
the data files bench/data/NAME.json (the figures, with the runs they came from).

The template is Markdown with directives, each alone on its line:

  {{table NAME [NAME...]}}   the table of bench/data/NAME.json (several: one table, rows in order)
  {{dynamic NAME}}           a loop sweep's dynamic(256) rows: forkjoin against oneTBB's
                             simple_partitioner, libforkjoin-omp against libgomp and libomp
  {{summary NAME}}           a busy-neighbours matrix as ranges over the neighbour counts
  {{commands NAME [NAME...]}}  the runs behind those files: commit, date, load, repetitions, command
  {{loses}}                  every ratio above 1.0 on the page, section by section
  {{latest}}                 (inline) the newest date among the data files

A data file is one of:
  - a table this project writes by hand (transcribed figures): {"runs"|"provenance", "rows",
    "layout": "best_peer" or "columns": [...]};
  - run_sweep.py's DIR/NAME.json (the loop sweep), as the driver writes it;
  - run_matrix.py's FILE.json (the busy-neighbours matrix), as the driver writes it, or its
    per-cell ratios ({"format": "matrix-ratios", "cells": [...]});
  - run_compose.py's rows ({"format": "compose"});
  - bench_compare's Google Benchmark JSON (bench/data/compare.json, or --data compare=FILE):
    the best-peer table that names it in "update_from" takes the figures of each row whose
    "benchmark" it measured, at the table's "threads".
Ratios are computed here from the two figures (forkjoin's over the peer's; above 1.0 forkjoin
loses and the ratio is bold). A row may carry a recorded ratio where the figures behind it
were not kept, or were rounded after the ratio was taken: it is checked against the figures
it stands beside when they can be read.

usage: results_page.py [--check] [--data NAME=FILE ...] [--out FILE]
  --check     exit 1 (and say where) when bench/RESULTS.md differs from what this would write
  --data      read FILE in place of bench/data/NAME.json (a driver's fresh output)
  --out       write there instead of bench/RESULTS.md
"""

import argparse
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_data  # noqa: E402  (bench/results_data.py: the data files and the drivers' JSON)
from results_data import (  # noqa: E402
    DATA, WORKLOADS, PageError, kind, load, load_table, matrix_cells, newest_date, only_run, referenced_runs, runs,
    sweep_rows)

BENCH = os.path.dirname(os.path.abspath(__file__))
TEMPLATE = os.path.join(BENCH, "results_template.md")
PAGE = os.path.join(BENCH, "RESULTS.md")
DIRECTIVE = re.compile(r"^\{\{(table|dynamic|summary|commands|loses)((?:\s+[\w-]+)*)\s*\}\}$")
NUMBER = re.compile(r"^\s*\+?([0-9][0-9,]*(?:\.([0-9]+))?)\s*(ns|µs|us|ms|s)?\s*(?:\([^)]*\))?\s*x?\s*$")
UNIT = {None: 1.0, "ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}
MISSING = "–"
MAX_LINES = 399  # the page is read at a glance


# ---------------------------------------------------------------- figures and ratios


def number(text):
    """(value in base units, half the last printed digit in the same units) or None."""
    if not isinstance(text, str):
        return (float(text), 0.0) if isinstance(text, (int, float)) else None
    m = NUMBER.match(text.replace("**", "").replace("`", ""))
    if not m:
        return None
    scale = UNIT[m.group(3)]
    digits = len(m.group(2) or "")
    return float(m.group(1).replace(",", "")) * scale, 0.5 * 10.0**-digits * scale


class Ratio:
    """A ratio cell: its value(s) for the losses list and its text."""

    def __init__(self, text, values, bold=True, suffix=""):
        self.values = values  # floats, for "above 1.0"
        self.plain = text + (suffix if text != MISSING else "")
        self.text = self.plain
        if bold and values:
            parts = self.plain.split(" / ")
            self.text = " / ".join("**%s**" % p if any(v > 1.0 for v in numbers_in(p)) else p for p in parts)

    def loses(self):
        return any(v > 1.0 for v in self.values)


def numbers_in(text):
    return [float(x) for x in re.findall(r"[0-9]+(?:\.[0-9]+)?", text.replace(",", ""))]


def ratio(row, a, b, recorded_key="ratio", bold=True, suffix="", where=""):
    """row[a] / row[b] as a Ratio. A recorded ratio (row[recorded_key]) is used where the two
    figures cannot be read, and where they can, it must agree with them to their rounding."""
    x, y = number(row.get(a, "")), number(row.get(b, ""))
    recorded = row.get(recorded_key)
    if recorded is not None:
        recorded = str(recorded).replace("**", "")
        if recorded.endswith("x"):
            recorded = recorded[:-1]
    if x and y and y[0] > 0:
        r = x[0] / y[0]
        if recorded is not None and len(numbers_in(recorded)) == 1:
            lo = (x[0] - x[1]) / (y[0] + y[1]) - 0.005
            hi = (x[0] + x[1]) / max(y[0] - y[1], 1e-300) + 0.005
            if not lo <= float(recorded) <= hi:
                raise PageError("%s: the recorded ratio %s does not follow from %s / %s (%.3f)" % (
                    where, recorded, row[a], row[b], r))
            return Ratio(recorded, [float(recorded)], bold, suffix)
        return Ratio("%.2f" % r, [r], bold, suffix)
    if recorded is not None:
        return Ratio(recorded, numbers_in(recorded), bold, suffix)
    return Ratio(MISSING, [], bold, suffix)


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def table(head, align, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def short(label):
    """A row's label cut to its first clause, for the losses list."""
    return re.split(r",\s| \(", label, maxsplit=1)[0]


# ---------------------------------------------------------------- tables


def best_peer_table(data, name):
    """workload | forkjoin | best peer | ratio | commit."""
    rs = runs(data)
    head = [data.get("label", "workload"), data.get("forkjoin_head", "forkjoin"), "best peer", "ratio", "commit"]
    rows, losses = [], []
    for k, row in enumerate(data["rows"]):
        label = row[data.get("label", "workload")]
        run = rs.get(row.get("run"), {}) if "run" in row else only_run(data)
        if row.get("ratio_of") == "peer/forkjoin":
            r = ratio(row, "peer_value", "forkjoin", where="%s row %d" % (name, k + 1))
        else:
            r = ratio(row, "forkjoin", "peer_value", where="%s row %d" % (name, k + 1))
        peer = (row.get("peer", "") + " " + row.get("peer_value", "")).strip() or MISSING
        rows.append([label, row.get("forkjoin", MISSING), peer, r.text, row.get("commit", run.get("commit", MISSING))])
        if r.values:
            losses.append((max(r.values), "%s %s" % (row.get("short", short(label)), r.plain)))
    return table(head, ["l", "r", "l", "r", "l"], rows), losses


def column_table(data, name):
    """A table whose columns the data file names: fields, or ratios of two fields."""
    cols = data["columns"]
    rows, losses, ratios = [], [], []
    for k, row in enumerate(data["rows"]):
        cells = []
        for c in cols:
            if "ratio" in c:
                r = ratio(row, c["ratio"][0], c["ratio"][1], c.get("key", "ratio"), c.get("bold", True),
                          c.get("suffix", ""), "%s row %d" % (name, k + 1))
                cells.append(r.text)
                if c.get("bold", True) and r.values:
                    ratios.extend(r.values)
                    label = row.get("short", row[cols[0]["field"]])
                    which = " (%s)" % c["short"] if "short" in c else ""
                    losses.append((max(r.values), "%s%s %s" % (label, which, r.plain)))
            else:
                cells.append(str(row.get(c["field"], MISSING)))
        rows.append(cells)
    out = table([c["head"] for c in cols], [c.get("align", "l") for c in cols], rows)
    if "geomean" in data and ratios:
        out += ["", data["geomean"].format(geomean="%.2f" % geomean(ratios), count=len(ratios),
                                           at_or_below=sum(1 for v in ratios if v <= 1.0))]
    return out, losses


# The loop sweep: forkjoin's default schedule against every peer library and schedule.
SWEEP_PEERS = {"tbb": "oneTBB", "omp:libgomp": "libgomp", "omp:libomp": "libomp", "stdpar": "std::par"}


def size_label(n):
    e = int(math.floor(math.log10(n)))
    m = n / 10**e
    return "10^%d" % e if m == 1 else "%s·10^%d" % (("%g" % m), e)


def fmt_us(v):  # run_sweep.py's format
    if v >= 1000:
        return f"{v / 1000:.2f} ms"
    return f"{v:.3g} µs" if v < 10 else f"{v:.1f} µs"


def sweep_table(datas, names):
    rows, losses = [], []
    for data in datas:
        med = sweep_rows(data)
        busy = data.get("busy_neighbour")
        commit = only_run(data).get("commit", MISSING)
        for mode in ("outside", "inside"):
            for n in data["sizes"]:
                fj = med.get(("forkjoin", "auto", mode, n))
                peers = [(v, lib, s) for (lib, s, m, k), v in med.items()
                         if m == mode and k == n and lib in SWEEP_PEERS]
                if fj is None or not peers:
                    continue
                v, lib, s = min(peers)
                where = "beside a busy core" if busy else ("from outside" if mode == "outside" else "inside")
                label = "n = %s, %s" % (size_label(n), where)
                peer = SWEEP_PEERS[lib] + ("" if lib == "stdpar" else " " + s)
                r = Ratio("%.2f" % (fj / v), [fj / v])
                rows.append([label, fmt_us(fj), "%s %s" % (peer, fmt_us(v)), r.text, commit])
                losses.append((fj / v, "%s %s" % (label[4:], r.plain)))
    return table(["loop", "forkjoin `auto_`", "best peer", "ratio", "commit"], ["l", "r", "l", "r", "l"], rows), losses


def dynamic_table(datas, names):
    """The dynamic schedule at grain 256, per size: forkjoin against oneTBB's
    simple_partitioner and libforkjoin-omp against the faster OpenMP runtime, each cell
    "from outside / inside"."""
    data = datas[0]
    med = sweep_rows(data)
    commit = only_run(data).get("commit", MISSING)
    rows, losses = [], []
    modes = ("outside", "inside")

    def pair(values):
        return " / ".join(fmt_us(v).split()[0] for v in values) + " " + fmt_us(values[-1]).split()[1]

    for n in data["sizes"]:
        fj = [med.get(("forkjoin", "dynamic", m, n)) for m in modes]
        tbb = [med.get(("tbb", "dynamic", m, n)) for m in modes]
        om = [med.get(("omp:forkjoin-omp", "dynamic", m, n)) for m in modes]
        peer = [min(v for v in (med.get(("omp:libgomp", "dynamic", m, n)), med.get(("omp:libomp", "dynamic", m, n)))
                    if v is not None) for m in modes]
        if None in fj + tbb + om:
            continue
        r1 = [a / b for a, b in zip(fj, tbb)]
        r2 = [a / b for a, b in zip(om, peer)]
        c1 = Ratio(" / ".join("%.2f" % r for r in r1), r1)
        c2 = Ratio(" / ".join("%.2f" % r for r in r2), r2)
        rows.append([size_label(n), pair(fj), pair(tbb), c1.text, pair(om), pair(peer), c2.text, commit])
        for m, r in zip(modes, r1):
            losses.append((r, "dynamic n = %s %s, against oneTBB %.2f" % (size_label(n), m, r)))
        for m, r in zip(modes, r2):
            losses.append((r, "OpenMP dynamic n = %s %s %.2f" % (size_label(n), m, r)))
    head = ["n", "forkjoin `dynamic(256)`", "oneTBB `simple_partitioner`", "ratio", "libforkjoin-omp",
            "best of libgomp, libomp", "ratio", "commit"]
    return table(head, ["l", "r", "r", "r", "r", "r", "r", "l"], rows), losses


def parse_bound(text):
    """'1.03x' -> (1.03, ''), '>6.04x' -> (6.04, '>'), '-' -> None."""
    m = re.match(r"^([<>]?)([0-9.]+)x?$", str(text).strip())
    return (float(m.group(2)), m.group(1)) if m else None


def span(values):
    """A range of ratios, bold where above 1.0: '0.74-**1.11**', '**1.19 to over 6.04**'."""
    if not values:
        return MISSING, False
    lo, hi = min(values), max(values)
    t = lambda v: ("under " if v[1] == "<" else "over " if v[1] == ">" else "") + "%.2f" % v[0]
    if lo == hi:
        text = t(lo)
        return ("**%s**" % text if lo[0] > 1.0 else text), lo[0] > 1.0
    join = " to " if hi[1] or lo[1] else "-"
    if lo[0] > 1.0:
        return "**%s%s%s**" % (t(lo), join, t(hi)), True
    if hi[0] > 1.0:
        return "%s%s**%s**" % (t(lo), join, t(hi)), True
    return "%s%s%s" % (t(lo), join, t(hi)), False


def thread_groups(cells):
    ts = sorted({c["threads"] for c in cells})
    groups = [[ts[0]]] + ([ts[1:]] if len(ts) > 1 else [])
    return [(g, ("%d" % g[0] if len(g) == 1 else "%d-%d" % (g[0], g[-1]))) for g in groups]


def matrix_summary(data, name):
    cells = matrix_cells(data)
    groups = thread_groups(cells)
    commit = only_run(data).get("commit", MISSING)
    head = ["workload"] + ["fj-omp ÷ best, %s threads (gcc; clang build)" % g for _, g in groups]
    head += ["forkjoin pool ÷ oneTBB (%s threads)" % "; ".join(g for _, g in groups), "commit"]
    rows, losses = [], []
    for w in WORKLOADS:
        mine = [c for c in cells if c["workload"] == w]
        if not mine:
            continue
        row = [w]
        for g, label in groups:
            parts = []
            for key in ("gcc", "clang"):
                vals = [parse_bound(c[key]) for c in mine if c["threads"] in g and c.get(key)]
                parts.append(span([v for v in vals if v])[0])
            row.append("; ".join(parts))
        pool = []
        for g, label in groups:
            vals = [parse_bound(c["pool"]) for c in mine if c["threads"] in g and c.get("pool")]
            pool.append(span([v for v in vals if v])[0])
        row.append("; ".join(pool) if any(p != MISSING for p in pool) else "– (OpenMP only)")
        row.append(commit)
        rows.append(row)
        for c in mine:
            for key in ("gcc", "clang", "pool"):
                v = parse_bound(c.get(key, "-"))
                if v:
                    where = "%d threads, %s" % (c["threads"], "idle" if c["busy"] == 0 else "%d busy" % c["busy"])
                    bound = {">": "over ", "<": "under "}.get(v[1], "")
                    losses.append((v[0], "%s at %s (%s) %s%.2f" % (w, where, key, bound, v[0])))
    return table(head, ["l"] * len(head), rows), losses


def matrix_cell_table(data, name):
    cells = matrix_cells(data)
    keys = [k for k in ("gcc", "clang", "pool") if any(c.get(k) for c in cells)]
    order = sorted({(c["threads"], c["busy"]) for c in cells})
    head = ["cell"] + WORKLOADS
    rows, losses = [], []
    for t, b in order:
        row = ["%d threads, %s" % (t, "idle" if b == 0 else "%d busy" % b)]
        for w in WORKLOADS:
            c = next((c for c in cells if (c["workload"], c["threads"], c["busy"]) == (w, t, b)), None)
            parts = []
            for k in keys:
                v = parse_bound(c.get(k, "-")) if c else None
                if v is None:
                    continue
                text = "%s%.2f" % (v[1], v[0])
                parts.append("**%s**" % text if v[0] > 1.0 else text)
                losses.append((v[0], "%s at %s (%s) %s" % (w, row[0], k, text)))
            row.append("; ".join(parts) or MISSING)
        rows.append(row)
    head[0] = "cell: fj-omp ÷ best (%s)" % "; ".join(
        {"gcc": "gcc build", "clang": "clang build", "pool": "pool ÷ oneTBB"}[k] for k in keys)
    return table(head, ["l"] * len(head), rows), losses


def compose_table(data, name):
    """The composition rows, one line per outer-inner pair: the ratio at each thread count."""
    threads = sorted({r["threads"] for r in data["rows"]})
    pairs = list(dict.fromkeys(r["pair"] for r in data["rows"]))
    top = threads[-1]
    head = ["outer-inner"] + ["ratio, %d threads" % t for t in threads]
    head += ["threads held at %d: forkjoin / native" % top]
    rows, losses, values = [], [], []
    for p in pairs:
        row = [p]
        held = MISSING
        for t in threads:
            r = next((r for r in data["rows"] if r["pair"] == p and r["threads"] == t), None)
            if r is None:
                row.append(MISSING)
                continue
            q = ratio(r, "forkjoin", "native", where="%s %s at %d" % (name, p, t))
            row.append(q.text)
            values.extend(q.values)
            if q.values:
                losses.append((max(q.values), "%s at %d threads %s" % (p, t, q.plain)))
            if t == top:
                held = "%s / %s" % (r["held_forkjoin"], r["held_native"])
        row.append(held)
        rows.append(row)
    out = table(head, ["l"] + ["r"] * len(threads) + ["l"], rows)
    out += ["", "Geometric mean of the ratios: %.2f (%d cells; %d at or below 1.0)." % (
        geomean(values), len(values), sum(1 for v in values if v <= 1.0))]
    return out, losses


def render_table(names, overrides):
    datas = [load_table(n, overrides) for n in names]
    kinds = {kind(d) for d in datas}
    if kinds == {"sweep"}:
        return sweep_table(datas, names)
    if len(datas) != 1:
        raise PageError("{{table %s}}: several files in one table only for the loop sweep" % " ".join(names))
    d, n = datas[0], names[0]
    return {"best_peer": best_peer_table, "columns": column_table, "matrix": matrix_cell_table,
            "compose": compose_table}[kind(d)](d, n)


def render_commands(names, overrides):
    """Each run once: '# commit, date, load L, N repetitions (what)' then its command."""
    groups = {}  # command -> [(commit, the rest of the run's header)], in first-seen order
    for n in names:
        d = load_table(n, overrides)
        for p in referenced_runs(d):
            cmd = p.get("command") or ["(not recorded)"]
            cmd = tuple([cmd] if isinstance(cmd, str) else cmd)
            rest = "%s, load %s, repetitions: %s%s" % (
                p.get("date", "date not recorded"), p.get("load", "not recorded"), p.get("reps", "not recorded"),
                " (%s)" % p["what"] if p.get("what") else "")
            entry = (str(p.get("commit", "not recorded")), rest)
            if entry not in groups.setdefault(cmd, []):
                groups[cmd].append(entry)
    out = []
    for cmd, entries in groups.items():  # after the history links (below), past a blank line
        if len({e[1] for e in entries}) == 1:
            out.append("    # %s: %s" % (", ".join(e[0] for e in entries), entries[0][1]))
        else:
            out += ["    # %s: %s" % e for e in entries]
        out += ["    " + c for c in cmd]
    links = []
    for n in names:
        d = load_table(n, overrides)
        for p in referenced_runs(d):
            h = p.get("history")
            if h and h not in links:
                links.append(h)
    if links:  # numbered where one day's file holds several of them
        days = list(dict.fromkeys(h.split("/")[-1].split("#")[0][:-3] for h in links))
        texts = []
        for day in days:
            mine = [h for h in links if h.split("/")[-1].startswith(day + ".md")]
            if len(mine) == 1:
                texts.append("[%s](%s)" % (day, mine[0]))
            else:
                texts.append("%s (%s)" % (day, ", ".join("[%d](%s)" % (k + 1, h) for k, h in enumerate(mine))))
        return ["The dated runs: " + "; ".join(texts) + ".", ""] + out
    return [""] + out


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def render(overrides):
    with open(TEMPLATE, encoding="utf-8") as f:
        lines = f.read().rstrip("\n").split("\n")
    out, losses, heading = [], [], ""
    used = set()
    for n, line in enumerate(lines, 1):
        if line.startswith(("## ", "### ")):
            heading = line.split(" ", 1)[1]
        m = DIRECTIVE.match(line.strip())
        if not m:
            out.append(line)
            continue
        what, names = m.group(1), m.group(2).split()
        try:
            if what == "loses":
                out.append("\0LOSES")
            elif what == "commands":
                cmds = render_commands(names, overrides)
                if out and out[-1].startswith("|") and cmds[0] != "":
                    out.append("")  # a table ends at a blank line
                out += cmds
            elif what == "dynamic":
                body, lost = dynamic_table([load_table(n, overrides) for n in names], names)
                out += body
                losses.append((heading, lost))
            elif what == "summary":
                body, lost = matrix_summary(load(names[0], overrides), names[0])
                out += body
                losses.append((heading, lost))
            else:
                body, lost = render_table(names, overrides)
                out += body
                losses.append((heading, lost))
            used.update(names)
            used.update(load(n, overrides).get("update_from", "") for n in names if what == "table")
        except (KeyError, TypeError, ValueError) as e:
            raise PageError("%s:%d: %s: %r" % (os.path.relpath(TEMPLATE), n, line.strip(), e))
    loses = []
    for h, lost in losses:
        if not lost:
            continue
        first = [x for x in loses if x[0] == h]
        if first:
            first[0][1].extend(lost)
        else:
            loses.append((h, list(lost)))
    bullets = []
    for h, all_ratios in loses:
        lost = [x for x in all_ratios if x[0] > 1.0]
        if not lost:
            continue
        worst = sorted(lost, key=lambda x: -x[0])
        if len(lost) > 4:
            bullets.append("- [%s](#%s): %d of %d ratios; the largest: %s." % (
                h, slug(h), len(lost), len(all_ratios), "; ".join(x[1] for x in worst[:3])))
        else:
            bullets.append("- [%s](#%s): %s." % (h, slug(h), "; ".join(x[1] for x in lost)))
    text = "\n".join(out)
    text = text.replace("\0LOSES", "\n".join(bullets))
    datas = [load_table(n, overrides) for n in sorted(used)
             if n in overrides or os.path.exists(os.path.join(DATA, n + ".json"))]
    text = text.replace("{{latest}}", newest_date(datas))
    return text + "\n", sorted(n for n in used if n in overrides or os.path.exists(os.path.join(DATA, n + ".json")))


def main():
    if sys.argv[1:] == ["--self-test"]:  # bench/results_page_test.py
        sys.path.insert(0, BENCH)
        import results_page_test

        return results_page_test.main()
    ap = argparse.ArgumentParser(description="write bench/RESULTS.md from the template and bench/data/")
    ap.add_argument("--check", action="store_true", help="exit 1 if bench/RESULTS.md is not what this writes")
    ap.add_argument("--data", action="append", default=[], metavar="NAME=FILE",
                    help="read FILE (e.g. a driver's fresh JSON) in place of bench/data/NAME.json")
    ap.add_argument("--out", default=PAGE)
    ap.add_argument("--allow-quick", action="store_true", help="render a driver's --quick output (never commit it)")
    a = ap.parse_args()
    results_data.ALLOW_QUICK = a.allow_quick
    overrides = {}
    for d in a.data:
        name, _, path = d.partition("=")
        if not path:
            ap.error("--data takes NAME=FILE")
        overrides[name] = os.path.abspath(path)
    try:
        text, used = render(overrides)
    except PageError as e:
        print("results_page: %s" % e, file=sys.stderr)
        return 2
    unused = sorted(set(os.path.splitext(f)[0] for f in os.listdir(DATA) if f.endswith(".json")) - set(used) - {""})
    if unused:
        print("results_page: bench/data/ holds files no directive of the template names: %s" % ", ".join(unused),
              file=sys.stderr)
        return 2
    lines = text.count("\n")
    if lines > MAX_LINES:
        print("results_page: the page has %d lines, over %d: move older tables and long readings to bench/history/"
              % (lines, MAX_LINES), file=sys.stderr)
        if a.check:
            return 1
    if a.check:
        try:
            with open(a.out, encoding="utf-8") as f:
                have = f.read()
        except OSError:
            have = ""
        if have != text:
            old, new = have.split("\n"), text.split("\n")
            k = next((i for i in range(max(len(old), len(new)))
                      if i >= len(old) or i >= len(new) or old[i] != new[i]), 0)
            print("results_page: %s is not what bench/results_page.py writes from the template and bench/data/ "
                  "(first difference at line %d:\n  page:   %r\n  script: %r)\nrun python3 bench/results_page.py" % (
                      os.path.relpath(a.out), k + 1, old[k] if k < len(old) else "<end>",
                      new[k] if k < len(new) else "<end>"),
                  file=sys.stderr)
            return 1
        print("results_page: %s matches the template and %d data files" % (os.path.relpath(a.out), len(used)))
        return 0
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(text)
    print("results_page: wrote %s (%d lines)" % (os.path.relpath(a.out), text.count("\n")))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""results_data.py: the data files behind bench/RESULTS.md (bench/data/NAME.json) and the
drivers' own JSON read in their place, for bench/results_page.py: a file's runs and their
provenance, run_sweep.py's medians, run_matrix.py's per-cell ratios (computed as the driver
computes them), and bench_compare's Google Benchmark medians for the rows that name them."""

import json
import os
import re
import statistics

BENCH = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(BENCH, "data")
ALLOW_QUICK = False  # results_page.py --allow-quick


class PageError(Exception):
    pass


def load(name, overrides):
    path = overrides.get(name, os.path.join(DATA, name + ".json"))
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        raise PageError("%s: %s" % (path, e))
    data["_path"] = os.path.relpath(path, os.path.dirname(BENCH))
    if data.get("quick") and not ALLOW_QUICK:
        raise PageError("%s: a --quick run (tiny sizes, few repetitions): its figures are not results "
                        "(--allow-quick renders it anyway, for a look)" % path)
    return data


# bench_compare's Google Benchmark JSON (bench/run_compare.sh writes it as compare.json): a
# hand-written best-peer table that names it in "update_from" takes from it the figures of
# every row with a "benchmark" (the workload's name there), at the table's "threads".
GB_PEERS = {"tbb": "oneTBB", "openmp": "OpenMP", "std::par": "std::par"}
GB_UNIT_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


def fmt_ms(v):  # report.py's format
    return f"{v:.3g} ms" if v >= 0.1 else f"{v * 1000:.3g} µs"


def gbench_medians(gb):
    """{(workload, impl, threads): median ms} of bench_compare's JSON, as report.py reads it."""
    times = {}
    for b in gb["benchmarks"]:
        if b.get("run_type") != "iteration" or b.get("error_occurred"):
            continue
        parts = b["run_name"].split("/")
        threads = next((int(x.split(":")[1]) for x in parts if x.startswith("threads:")), None)
        times.setdefault((parts[0], parts[1], threads), []).append(b["real_time"] * GB_UNIT_MS[b["time_unit"]])
    return {k: statistics.median(v) for k, v in times.items()}, max((len(v) for v in times.values()), default=0)


def with_gbench(data, gb, gb_path):
    """data with the rows bench_compare measured replaced by its figures, under a run of its own."""
    med, reps = gbench_medians(gb)
    ctx = gb.get("context", {})
    t = data.get("threads", 2)
    run = dict(gb.get("provenance") or {})
    run.setdefault("commit", "not recorded")
    run.setdefault("date", ctx.get("date", "not recorded"))
    run.setdefault("machine", "%s, %s CPUs" % (ctx.get("cpu_model", "?"), ctx.get("num_cpus", "?")))
    if "load_avg" in ctx:
        run.setdefault("load", "/".join("%.2f" % x for x in ctx["load_avg"]) + " (1/5/15 min, at the end)")
    run.setdefault("reps", reps)
    run.setdefault("command", ["%s   # its arguments are not in the JSON: bench/run_compare.sh's, or as above" %
                               ctx.get("executable", "bench_compare")])
    run.setdefault("what", os.path.basename(gb_path))
    data = dict(data, runs=dict(runs(data)), rows=[])
    data["runs"][run["commit"] + " (bench_compare)"] = run
    used = False
    for row in data["_rows"]:
        row = dict(row)
        fj = med.get((row.get("benchmark"), "forkjoin", t))
        peers = [(med[(row.get("benchmark"), p, t)], p) for p in GB_PEERS if (row.get("benchmark"), p, t) in med]
        if fj is not None and peers:
            v, p = min(peers)
            row.update(forkjoin=fmt_ms(fj), peer=GB_PEERS[p], peer_value=fmt_ms(v),
                       run=run["commit"] + " (bench_compare)")
            row.pop("ratio", None)
            row.pop("commit", None)
            used = True
        data["rows"].append(row)
    if not used:
        data["runs"].pop(run["commit"] + " (bench_compare)")
    return data


def load_table(name, overrides):
    """A data file, with the figures of the raw file it names in "update_from" when that exists."""
    data = load(name, overrides)
    src = data.get("update_from")
    if src:
        path = overrides.get(src, os.path.join(DATA, src + ".json"))
        if os.path.exists(path):
            data["_rows"] = data["rows"]
            data = with_gbench(data, load(src, overrides), path)
    return data


def runs(data):
    """The runs of a data file, as {id: provenance}."""
    if "runs" in data and isinstance(data["runs"], dict):
        return data["runs"]
    p = dict(data.get("provenance") or {})
    # A driver's raw output: what it recorded about the machine while it ran.
    if "load_average" in data and "load" not in p:
        la = data["load_average"]
        first, last = (la[0], la[-1]) if la else (None, None)
        one = lambda v: "%.2f" % (v[0] if isinstance(v, list) else v)  # the 1-minute figure
        p["load"] = "%s before, %s after" % (one(first), one(last)) if la else "not recorded"
        if "steal_percent" in data:
            p["load"] += "; steal time %.1f%%" % data["steal_percent"]
    if "reps" in data and "reps" not in p:
        p["reps"] = data["reps"]
    p.setdefault("commit", "not recorded")
    return {p.get("commit"): p}


def referenced_runs(data):
    """The runs some row of the table comes from (all of them where rows name none)."""
    rs = runs(data)
    named = {r.get("run") for r in data.get("rows", []) if isinstance(r, dict) and "run" in r}
    return [p for k, p in rs.items() if not named or k in named]


def only_run(data):
    return next(iter(runs(data).values()))


def newest_date(datas):
    dates = [str(p.get("date", ""))[:10] for d in datas for p in runs(d).values()]
    return max((x for x in dates if re.match(r"\d{4}-\d{2}-\d{2}", x)), default="?")


def sweep_rows(data):
    """{(lib, sched, mode, n): median µs} from run_sweep.py's JSON (or its transcription)."""
    out = {}
    for r in data["rows"]:
        v = r.get("median_us")
        if v is None and r.get("best_us"):
            v = statistics.median(r["best_us"])
        if v is not None:
            out[(r["lib"], r["sched"], r["mode"], r["n"])] = v
    return out


# The busy-neighbours matrix: fj-omp over the better native OpenMP runtime, the pool over oneTBB.
WORKLOADS = ["regions", "loop", "barrier", "tree"]


def matrix_cells(data):
    """[{workload, threads, busy, gcc, clang, pool}] with ratios as run_matrix.py prints them."""
    if data.get("format") == "matrix-ratios":
        return data["cells"]
    timeout = data.get("timeout_s", 5.0)
    samples = {(r["workload"], r["runtime"], r["threads"], r["busy"]): r["samples"] for r in data["runs"]}

    def med(key):
        v = samples.get(key)
        return statistics.median(x["seconds"] for x in v) if v else None

    def censored(key):
        v = samples.get(key)
        return bool(v) and med(key) >= timeout and any(x["timed_out"] for x in v)

    def ratio_text(key, base):  # run_matrix.py's ratio()
        v, d = med(key), med(base) if base else None
        if v is None or not d or (censored(key) and censored(base)):
            return "-"
        return f"{'>' if censored(key) else '<' if censored(base) else ''}{v / d:.2f}x"

    cells = []
    for t in data["threads"]:
        for b in data["busy"]:
            for w in WORKLOADS:
                natives = [k for k in ((w, "gcc/libgomp", t, b), (w, "clang/libomp", t, b)) if med(k) is not None]
                best = min(natives, key=med) if natives else None
                c = {"workload": w, "threads": t, "busy": b}
                for key, rt in (("gcc", "gcc/fj-omp"), ("clang", "clang/fj-omp")):
                    if (w, rt, t, b) in samples:
                        c[key] = ratio_text((w, rt, t, b), best)
                if (w, "fj pool", t, b) in samples and (w, "oneTBB", t, b) in samples:
                    c["pool"] = ratio_text((w, "fj pool", t, b), (w, "oneTBB", t, b))
                if len(c) > 3:  # a workload the run measured
                    cells.append(c)
    return cells


def kind(data):
    if data.get("format") == "compose":
        return "compose"
    if data.get("format") == "matrix-ratios" or ("runs" in data and isinstance(data["runs"], list)):
        return "matrix"
    if isinstance(data.get("rows"), list) and data["rows"] and "lib" in data["rows"][0]:
        return "sweep"
    if data.get("layout") == "best_peer":
        return "best_peer"
    if "columns" in data:
        return "columns"
    raise PageError("%s: not a data file this script knows" % data.get("_path"))

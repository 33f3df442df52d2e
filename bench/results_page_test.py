#!/usr/bin/env python3
"""results_page_test.py: bench/results_page.py's rules on made-up runs (run_sweep.py's and
run_matrix.py's JSON as they write it, ratios, bounds, bold, recorded ratios, --quick runs).

usage: python3 bench/results_page_test.py (or bench/results_page.py --self-test); exit 1 on
the first case that does not come out as expected.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_data as rd  # noqa: E402
import results_page as rp  # noqa: E402


def main():
    """The raw-driver paths and the ratio rules on made-up runs; exit 1 on the first surprise."""
    failed = []

    def expect(what, got, want):
        if got != want:
            failed.append("%s: got %r, want %r" % (what, got, want))

    # run_sweep.py's JSON: forkjoin auto_ against the fastest peer library and schedule, never
    # against forkjoin's other schedules, serial or libforkjoin-omp.
    rows = []
    for lib, sched, us in (("forkjoin", "auto", 2.0), ("forkjoin", "static", 0.5), ("serial", "auto", 0.1),
                           ("omp:forkjoin-omp", "static", 0.2), ("tbb", "static", 1.6), ("omp:libgomp", "static", 1.0),
                           ("stdpar", "auto", 3.0)):
        rows.append({"lib": lib, "sched": sched, "mode": "outside", "n": 100000, "best_us": [us * 1.1, us, us * 0.9]})
    sweep = {"provenance": {"commit": "abc1234", "command": ["run_sweep.py"]}, "reps": 3, "quick": False,
             "busy_neighbour": False, "sizes": [100000], "load_average": [1.0, 2.0], "steal_percent": 0.5, "rows": rows}
    body, lost = rp.sweep_table([sweep], ["loops"])
    expect("sweep row", body[2], "| n = 10^5, from outside | 2 µs | libgomp static 1 µs | **2.00** | abc1234 |")
    expect("sweep losses", [t for _, t in lost], ["10^5, from outside 2.00"])
    expect("sweep load", rp.runs(sweep)["abc1234"]["load"], "1.00 before, 2.00 after; steal time 0.5%")

    # run_matrix.py's JSON: medians, the better native runtime, a run cut at the timeout as a bound.
    def run(w, r, secs, cut=False):
        return {"workload": w, "runtime": r, "threads": 2, "busy": 0,
                "samples": [{"seconds": x, "timed_out": cut} for x in secs]}
    matrix = {"threads": [2], "busy": [0], "timeout_s": 5.0, "reps": 3, "runs": [
        run("loop", "gcc/libgomp", [0.2, 0.1, 0.3]), run("loop", "clang/libomp", [5.0, 5.0, 5.0], True),
        run("loop", "gcc/fj-omp", [0.3, 0.3, 0.3]), run("loop", "clang/fj-omp", [5.0, 5.0, 5.0], True),
        run("loop", "fj pool", [0.1] * 3), run("loop", "oneTBB", [0.2] * 3)]}
    cells = rp.matrix_cells(matrix)
    loop = [c for c in cells if c["workload"] == "loop"][0]
    expect("matrix gcc", loop["gcc"], "1.50x")
    expect("matrix clang", loop["clang"], ">25.00x")
    expect("matrix pool", loop["pool"], "0.50x")
    body, lost = rp.matrix_summary(matrix, "matrix")
    expect("matrix summary", body[2:], ["| loop | **1.50**; **over 25.00** | 0.50 | not recorded |"])
    expect("span", rp.span([(0.74, ""), (1.11, "")])[0], "0.74-**1.11**")
    expect("span bound", rp.span([(1.19, ""), (6.04, ">")])[0], "**1.19 to over 6.04**")

    # Ratios: computed from the figures, bold above 1.0; a recorded one must follow from them.
    expect("ratio", rp.ratio({"a": "2.00 ms", "b": "1000 µs"}, "a", "b").text, "**2.00**")
    expect("ratio at 1.0", rp.ratio({"a": "0.080", "b": "0.080"}, "a", "b").text, "1.00")
    expect("recorded", rp.ratio({"a": "0.004", "b": "0.003", "ratio": "1.24"}, "a", "b").text, "**1.24**")
    try:
        rp.ratio({"a": "0.50", "b": "1.00", "ratio": "0.60"}, "a", "b", where="self-test")
        failed.append("a recorded ratio of 0.60 beside 0.50 / 1.00 was accepted")
    except rp.PageError:
        pass
    # bench_compare's Google Benchmark JSON updates the rows that name its workloads.
    def bench(name, impl, ms):
        return [{"run_name": "%s/%s/threads:2/real_time" % (name, impl), "run_type": "iteration", "real_time": x,
                 "time_unit": "ms"} for x in (ms * 1.2, ms, ms * 0.9)]
    gb = {"context": {"date": "2026-12-07T10:00:00+00:00", "cpu_model": "AMD EPYC", "num_cpus": 2,
                      "load_avg": [1.5, 1.2, 1.0], "executable": "build/release/bench/bench_compare"},
          "benchmarks": bench("fib", "forkjoin", 8.76) + bench("fib", "tbb", 201.0) + bench("fib", "openmp", 250.0)
          + bench("fib", "serial", 5.0) + bench("fib", "forkjoin", 8.76)[:0]}
    table = {"layout": "best_peer", "label": "workload", "threads": 2, "runs": {"old": {"commit": "old"}}, "_rows": [
        {"workload": "fib(32)", "benchmark": "fib", "forkjoin": "9 ms", "peer": "oneTBB", "peer_value": "9 ms",
         "ratio": "1.00", "run": "old"},
        {"workload": "deps", "forkjoin": "1 ms", "peer": "oneTBB", "peer_value": "2 ms", "run": "old"}]}
    table["rows"] = table["_rows"]
    body, _ = rp.best_peer_table(rd.with_gbench(table, gb, "compare.json"), "algorithms")
    expect("bench_compare row", body[2], "| fib(32) | 8.76 ms | oneTBB 201 ms | 0.04 | not recorded |")
    expect("row it does not measure", body[3], "| deps | 1 ms | oneTBB 2 ms | 0.50 | old |")

    try:
        rd.ALLOW_QUICK = False
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "results_page_self_test.json")
        with open(path, "w") as f:
            json.dump(dict(sweep, quick=True), f)
        rp.load("loops", {"loops": path})
        failed.append("a --quick run was accepted")
    except rp.PageError:
        pass
    finally:
        os.remove(path)
    for f in failed:
        print("results_page --self-test: " + f)
    print("results_page --self-test: %s" % ("FAILED" if failed else "every case as expected"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

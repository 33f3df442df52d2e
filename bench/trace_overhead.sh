#!/usr/bin/env bash
# trace_overhead.sh BASE_BENCH_COMPARE NEW_BENCH_COMPARE [ROUNDS]: what the trace costs.
# Runs the fib, skynet, loop_1k and loop_100k rows of forkjoin in two bench_compare builds
# (BASE: a build without the trace, e.g. the previous main; NEW: this tree) interleaved,
# ROUNDS times each (default 5, 3 repetitions a run), then NEW with FORKJOIN_TRACE on, and prints the median
# times and the ratios NEW/BASE (tracing compiled in, off) and ON/NEW (tracing on).
# Settings: FORKJOIN_BENCH_THREADS (default 2), FORKJOIN_TRACE_EVENTS (default 100000 for the
# "on" runs: the ring wraps, so the per-event cost is measured without a huge file).
set -euo pipefail
base=$1; new=$2; rounds=${3:-5}
threads=${FORKJOIN_BENCH_THREADS:-2}
filter='^(fib|skynet|loop_1k|loop_100k)/forkjoin/'
out=$(mktemp -d)
run() {  # run LABEL EXE [env...]
  local label=$1 exe=$2; shift 2
  env "$@" "$exe" --threads="$threads" --benchmark_filter="$filter" --benchmark_repetitions=3 \
    --benchmark_format=json >"$out/$label.$r.json" 2>/dev/null
}
for r in $(seq "$rounds"); do
  run base "$base"
  run off "$new"
  run on "$new" FORKJOIN_TRACE="$out/trace.json" FORKJOIN_TRACE_EVENTS="${FORKJOIN_TRACE_EVENTS:-100000}"
  rm -f "$out"/trace*.json
done
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
"$py" - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
times = {}
for label in ("base", "off", "on"):
    for r in range(1, rounds + 1):
        for b in json.load(open("%s/%s.%d.json" % (out, label, r)))["benchmarks"]:
            if b.get("run_type") != "iteration":
                continue
            times.setdefault((b["name"], label), []).append((b["real_time"], b["cpu_time"]))
names = sorted({n for n, _ in times})
# cpu: the benchmark thread's CPU time (worker 0's share), steadier than real time on a busy machine.
print("%-28s %9s %9s %9s %9s %9s %9s %9s" % ("row (ms, median)", "base", "off", "on", "off/base", "on/off", "cpu o/b", "cpu on/o"))
for n in names:
    m = {l: statistics.median(t[0] for t in times[(n, l)]) for l in ("base", "off", "on")}
    c = {l: statistics.median(t[1] for t in times[(n, l)]) for l in ("base", "off", "on")}
    short = n.split("/")[0] + "/" + n.split("/")[2]
    print("%-28s %9.4f %9.4f %9.4f %9.3f %9.3f %9.3f %9.3f" % (short, m["base"], m["off"], m["on"], m["off"] / m["base"], m["on"] / m["off"], c["off"] / c["base"], c["on"] / c["off"]))
PY
rm -rf "$out"

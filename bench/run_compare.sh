#!/usr/bin/env bash
# run_compare.sh BENCH_COMPARE RESULTS_DIR [extra bench_compare flags]: the full comparison
# (threads 1, 2 and every core, 3 interleaved repetitions), then the table, CSV and chart,
# all written to RESULTS_DIR (the bench workflow passes build/release/bench/results).
# Settings via environment: FORKJOIN_BENCH_REPS (default 3), FORKJOIN_BENCH_THREADS
# (default "1,2,<cores>" without repeats).
set -euo pipefail
exe=$1; out=$2; shift 2
mkdir -p "$out"
cores=$(nproc)
threads=${FORKJOIN_BENCH_THREADS:-$([ "$cores" -gt 2 ] && echo "1,2,$cores" || echo "1,2")}
reps=${FORKJOIN_BENCH_REPS:-3}
"$exe" --threads="$threads" --benchmark_repetitions="$reps" --benchmark_enable_random_interleaving=true \
  --benchmark_out="$out/compare.json" --benchmark_out_format=json "$@"
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3  # Debian's, where python3-matplotlib lives
"$py" "$(dirname "$0")/report.py" "$out/compare.json" "$out"

#!/bin/sh
# flexbar_check.sh LAUNCHER PROBE DIR: flexbar (Debian's, linked against oneTBB: its reader,
# aligner and writer form a parallel_pipeline) trims an adapter from 5,000 reads it is given
# in DIR (make_reads.awk: the adapter at positions from 0 to past the read's end), with as many
# threads as CPUs (-n: the global_control cap flexbar sets is then the pool's size), natively
# and under LAUNCHER. The two trimmed FASTQ files are equal byte for byte (flexbar writes reads
# in input order), and hold no whole adapter; under forkjoin, libforkjoin-tbb runs it with no
# native runtime mapped, on no more threads than the pool (common.sh). Skipped (77), saying
# why, where flexbar is not installed.
launcher=$1 probe=$2 dir=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
need flexbar flexbar
adapter=AGATCGGAAGAGCACACGTCTGAACTCCAGTCAC  # Illumina TruSeq's
mkdir -p "$dir" && cd "$dir" || exit 1
awk -v n=5000 -v adapter=$adapter -f "$here/make_reads.awk" >reads.fastq || exit 1
for mode in native forkjoin; do
  rm -f "$mode.fastq"
  check "$mode: flexbar exits 0" run "$mode" flexbar -r reads.fastq -as $adapter -n "$pool" -t "$mode"
done
reads=$(awk 'NR % 4 == 2' native.fastq | wc -l)
check "native: $reads of 5000 reads kept (some too short once trimmed)" test "$reads" -gt 0 -a "$reads" -lt 5000
check "native: no read kept holds the whole adapter" test -z "$(grep $adapter native.fastq)"
check "forkjoin: the same FASTQ as native, byte for byte" cmp native.fastq forkjoin.fastq
for mode in native forkjoin; do
  check_probe_runtimes $mode
  check_threads $mode 0  # flexbar starts no thread of its own
done
check_forkjoin_threads_named
finish flexbar

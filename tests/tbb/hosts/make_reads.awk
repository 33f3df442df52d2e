# make_reads.awk -v n=READS -v adapter=SEQ: writes n FASTQ reads of 100 bases to stdout, the
# same on every run and machine (Park and Miller's generator, whose products stay below 2^53
# and so are exact in awk's doubles). Read i is random bases with the adapter from a position
# drawn in [0, 110): whole, cut short by the read's end, or (from 100 on) absent; random bases
# follow it; qualities are drawn from 20 to 40 (Sanger, '5' to 'I').
function next_random() {
  state = (state * 16807) % 2147483647
  return state
}
function bases(k,    s, j) {
  s = ""
  for (j = 0; j < k; j++) s = s substr("ACGT", next_random() % 4 + 1, 1)
  return s
}
BEGIN {
  state = 20240601
  len = 100
  for (i = 0; i < n; i++) {
    seq = bases(len)
    pos = next_random() % (len + 10)
    if (pos < len) {
      seq = substr(substr(seq, 1, pos) adapter, 1, len)
      seq = seq bases(len - length(seq))
    }
    qual = ""
    for (j = 0; j < len; j++) qual = qual sprintf("%c", 53 + next_random() % 21)
    printf "@read%d\n%s\n+\n%s\n", i, seq, qual
  }
}

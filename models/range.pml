/* range.pml: the dynamic schedule's ranges, forkjoin/DESIGN.md [P-LOOP Steal] S1-S3.
 * Mirrors include/forkjoin/detail/loop.hpp (run_ranged, take_ranged, steal_range).
 *
 * Scenario: P participants over C chunks; participant p starts with [p*C/P, (p+1)*C/P) in
 * its range word (lo, hi). A participant takes its range's chunks first to last by one
 * read-modify-write of its word (S1: lo + 1, which never fails; an empty range's lo passes
 * its hi once), then looks at the other words, picks a non-empty one (the code picks the
 * fullest; here any), and moves its upper half, rounded up, to itself: a compare-and-swap
 * of the victim's word from what it read to (lo, mid) (S2), then a store of (mid + 1, hi)
 * into its own, empty, word, and runs chunk mid (S3: every steal runs a chunk, so chunks
 * cannot move between thieves for ever); it ends when every other word it read was empty.
 * Chunk 0 waits,
 * as the test DynamicSteal.ChunksBehindABlockedChunkAreStolen makes it, until every other
 * chunk has run: the chunks behind it in its range must be stolen.
 * Checked, exhaustively:
 *  - no chunk runs twice (assertion when it runs);
 *  - every chunk runs: when all participants have ended, each ran once (assertion);
 *  - nobody waits for ever (no invalid end state).
 * Memory model: sequential consistency. In the code every access to a word is a relaxed
 * atomic on that one word: exactly-once rests on each word's modification order (an RMW
 * reads the latest value), which sequential consistency keeps; the words share no data.
 * LAST_HELD, the OpenMP layer's form ([P-OMP WS] LP1, LP2): the ranges hold every chunk
 * but the last; the first participant whose steal finds every range empty takes the last
 * chunk by a flag and then takes nothing more; checked besides: no participant runs a chunk
 * after the last one (gcc and clang copy lastprivate variables out of the thread whose final
 * chunk was the last).
 * Switches (-D), each must give a counterexample:
 *   LAST_IN_RANGE     the last chunk in a range, its taker going on: it may steal an earlier
 *                     chunk after it (the bug the clang build of kmpc_constructs caught).
 *   OWNER_LOAD_STORE  S1 reads the word, then stores (lo + 1, hi) back: a steal between the
 *                     two is undone, and its chunks run twice.
 *   STEAL_BY_STORE    S2 stores (lo, mid) instead of comparing: chunks the owner took after
 *                     the thief's read come back into the owner's range.
 *   INSTALL_FIRST     S3's store before S2, undone when S2 fails: another thief may steal
 *                     from the installed half meanwhile, and those chunks run twice.
 *   NO_STEAL          a participant ends when its own range is empty: the chunks behind
 *                     chunk 0 wait for ever.
 */

#ifndef P
#define P 3
#endif
#ifndef C
#define C 9
#endif
#ifdef LAST_HELD
#define RANGED (C - 1) /* [P-OMP WS LP2] the last chunk is in no range */
#else
#define RANGED C
#endif

byte lo[P];
byte hi[P];
bool took_last[P]; /* ghost: the participant has run chunk C - 1 */
bool last_taken;   /* LAST_HELD: the flag that hands out chunk C - 1 (w.next) */
byte ran[C];     /* ghost: times each chunk ran */
byte finished = 0;
byte others = 0; /* ghost: chunks other than 0 that have run */

inline run_chunk(k) {
  atomic {
    assert(ran[k] == 0);
#if defined(LAST_HELD) || defined(LAST_IN_RANGE)
    assert(!took_last[me]);  /* lastprivate: nothing after the last chunk */
    took_last[me] = (k == C - 1);
#endif
    ran[k]++;
    if
    :: k != 0 -> others++
    :: else -> skip
    fi
  };
  if
  :: k == 0 -> (others == C - 1)  /* chunk 0 blocks until every other chunk ran */
  :: else -> skip
  fi
}

proctype participant(byte me) {
  byte k, h, q, v, slo, shi, vlo, vhi, mid;
  bool found;
  do
  :: /* S1: the owner's take */
#ifdef OWNER_LOAD_STORE
     atomic { k = lo[me]; h = hi[me] };
     atomic { lo[me] = k + 1; hi[me] = h };
#else
     atomic { k = lo[me]; h = hi[me]; lo[me] = k + 1 };
#endif
     if
     :: k < h -> run_chunk(k)
     :: else ->
#ifdef NO_STEAL
        break
#else
        /* look for a victim: the last non-empty word read, or one chosen on the way */
steal:  found = false;
        q = 0;
        do
        :: q == P -> break
        :: q < P && q == me -> q++
        :: q < P && q != me ->
           atomic { slo = lo[q]; shi = hi[q] };
           if
           :: slo < shi ->
              found = true;
              v = q;
              vlo = slo;
              vhi = shi;
              if
              :: true -> break  /* take this one */
              :: true -> q++    /* look further (the code keeps the fullest) */
              fi
           :: else -> q++
           fi
        od;
        if
        :: !found ->
#ifdef LAST_HELD
           /* LP2: the first participant to find every range empty takes chunk C - 1 */
           atomic {
             if
             :: !last_taken -> last_taken = true; k = C - 1
             :: else -> k = 0
             fi
           };
           if
           :: k == C - 1 -> run_chunk(k)  /* LP1: and takes nothing after it */
           :: else -> skip
           fi;
#endif
           break
        :: else -> skip
        fi;
        slo = vlo;  /* the word as the scan read it: what S2 expects */
        shi = vhi;
        mid = shi - (shi - slo + 1) / 2;
#if defined(INSTALL_FIRST)
        atomic { lo[me] = mid + 1; hi[me] = shi };
        atomic {
          if
          :: lo[v] == slo && hi[v] == shi -> hi[v] = mid
          :: else -> lo[me] = shi; hi[me] = shi; goto steal  /* undo, look again */
          fi
        };
        run_chunk(mid)
#elif defined(STEAL_BY_STORE)
        atomic { lo[v] = slo; hi[v] = mid };          /* S2 as a store */
        atomic { lo[me] = mid + 1; hi[me] = shi };    /* S3 */
        run_chunk(mid)
#else
        atomic {                                      /* S2 */
          if
          :: lo[v] == slo && hi[v] == shi -> hi[v] = mid
          :: else -> goto steal
          fi
        };
        atomic { lo[me] = mid + 1; hi[me] = shi };    /* S3 */
        run_chunk(mid)
#endif
#endif
     fi
  od;
  finished++
}

init {
  byte p = 0;
  atomic {
    do
    :: p < P ->
       lo[p] = RANGED * p / P;
       hi[p] = RANGED * (p + 1) / P;
       p++
    :: else -> break
    od;
    p = 0;
    do
    :: p < P -> run participant(p); p++
    :: else -> break
    od
  };
  (finished == P);
  p = 0;
  do
  :: p < C -> assert(ran[p] == 1); p++
  :: else -> break
  od
}

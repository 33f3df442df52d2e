/* share.pml: a region shared by a key, forkjoin/DESIGN.md [P-ISO Share]: a publishing push
 * into the region wakes the region's parked waiters (K1, K2), a waiter parks only after it
 * read the cell's word, counted itself and looked again (K3, K4, K5), and the latch's setter
 * wakes the word the waiter sleeps on. Mirrors forkjoin/isolation.cpp (park_shared,
 * wake_shared_region, wake_isolated) and worker.cpp (help_until, publish_and_notify).
 *
 * Scenario: the runner R of a region pushes one job J into it and publishes it, then waits
 * until J has run without running it itself (collaborative_call_once's runner meets its
 * helpers at a barrier inside J's loop), then finishes the latch the helpers wait for. Two
 * helpers H wait in the region: each searches (takes J if it is public and untaken, and runs
 * it), else marks itself parked (iso_parked_), announces itself on the latch and parks on
 * the region's cell; a helper woken searches again; a helper leaves once the latch is done.
 * Checked, exhaustively:
 *  - J runs exactly once (assertion);
 *  - nobody sleeps for ever: R and both helpers end (else an invalid end state).
 * Switches (each must produce a counterexample):
 *   NO_PUSH_WAKE      the push does not wake the cell (the state before [P-ISO Share]: only
 *                     the latch wakes an isolated waiter): a helper parked before J was
 *                     pushed sleeps while R waits for J.
 *   WAKE_BEFORE_PUSH  K2 reads the count before J is published: a helper that counts itself
 *                     after that read and looks before the publication parks unwoken.
 *   SEQ_AFTER_CHECK   K3 reads the word after K4's look: a bump between the look and the
 *                     read is missed, and the futex wait sleeps through it.
 *   COUNT_AFTER_CHECK K3 counts the waiter after K4's look: K2 may read no waiter between.
 * Memory model: sequential consistency. The code's K2 fence and K3 read-modify-write are
 * seq_cst (Dekker between the publication and the count), and the futex wait is the
 * blocking guard `seq != s` (it returns at once if the word changed since it was read).
 */

#define HELPERS 2

byte published = 0;  /* J is public in R's deque */
byte taken = 0;      /* J was stolen */
byte ran = 0;        /* J has run */
byte done = 0;       /* the latch the helpers wait for */
byte parked = 0;     /* the cell's count: waiters between K3 and K5 */
byte seq = 0;        /* the cell's word */
bool iso_parked[HELPERS];

inline bump() {
  seq = (seq + 1) % 4  /* enough: a waiter compares with one value it read */
}

inline k2() {
  if
  :: parked != 0 -> bump()
  :: else -> skip
  fi
}

proctype runner() {
#ifdef WAKE_BEFORE_PUSH
  k2();
  published = 1;
#else
  published = 1;  /* K1: the push, published */
#ifndef NO_PUSH_WAKE
  k2();           /* K2: the fence, then the count */
#endif
#endif
  (ran == 1);     /* R waits for J without running it */
  atomic {        /* the latch's setter: J2/G2, then the parked waiters' word */
    done = 1
  };
  byte h = 0;
  do
  :: h < HELPERS ->
     if
     :: iso_parked[h] -> bump()
     :: else -> skip
     fi;
     h++
  :: else -> break
  od
}

proctype helper(byte me) {
  byte s;
  bool got;
  do
  :: done -> break
  :: else ->
     /* the search: steal J if it is public */
     atomic {
       got = (published && !taken);
       if
       :: got -> taken = 1
       :: else -> skip
       fi
     };
     if
     :: got -> assert(ran == 0); ran = 1
     :: else ->
        iso_parked[me] = 1;  /* before the announcement, which done's setter reads */
        if
        :: done -> iso_parked[me] = 0; break
        :: else -> skip
        fi;
#ifndef SEQ_AFTER_CHECK
        s = seq;             /* K3: the word first */
#endif
#ifndef COUNT_AFTER_CHECK
        parked++;            /* K3: then the count */
#endif
        /* K4: the latch, then the region's public jobs */
        atomic {
          got = (!done && published && !taken);
          if
          :: got -> taken = 1
          :: else -> skip
          fi
        };
#ifdef SEQ_AFTER_CHECK
        s = seq;
#endif
#ifdef COUNT_AFTER_CHECK
        parked++;
#endif
        if
        :: got -> skip
        :: !got && done -> skip
        :: !got && !done -> (seq != s)  /* K5: the futex wait */
        fi;
        parked--;
        iso_parked[me] = 0;
        if
        :: got -> assert(ran == 0); ran = 1
        :: else -> skip
        fi
     fi
  od
}

init {
  atomic {
    run runner();
    run helper(0);
    run helper(1)
  }
}

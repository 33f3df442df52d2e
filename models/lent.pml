/* lent.pml: a pool whose worker slot has no thread of its own, forkjoin/DESIGN.md [P-LENT]
 * W0-W4, on top of the sleep protocol of sleep.pml ([P-SLEEP], [P-POST]):
 * W0 the slot starts listed as a sleeper, away (no thread behind it);
 * W1 its lent thread, out of work at the top of its loop, announces itself (IncSleepers),
 *    fences, re-checks for work (ReadJob) and then, under the sleep mutex, either stays
 *    searching (woken meanwhile, or work seen) or marks the slot away and leaves;
 * W2 a waker (wake_one, under the mutex) that removes an away sleeper counts it as
 *    searching, marks it searching for the thread to come and summons one (a lender job);
 * W4 the summoned thread takes the slot by a CAS from 0 to 1 (acquire); finding it still
 *    held by the thread that left (1), it leaves a note (2) and ends; the leaving thread
 *    releases the slot (exchange to 0) and, finding the note, summons again.
 * Mirrors forkjoin/sleep.cpp (fall_asleep_or_leave, wake_locked, start_away) and
 * forkjoin/worker.cpp (serve_lent, idle_park).
 *
 * Scenario: one worker slot; a pusher (an outside thread in slot 0) injects JOBS jobs one
 * after the other, each followed by the [P-POST] wake-up (PushFence, ReadSleepers, wake_one
 * if nobody searches and someone sleeps). Summons are a bag of lender jobs that the
 * lending pool runs in any order, each on a thread of its own.
 * Checked, exhaustively:
 *  - exactly once: every job runs once, and when every process has ended, every job has run
 *    (no lost wake-up: the slot is never away while a job waits with nobody summoned);
 *  - one owner: at most one thread works in the slot at a time (assertion);
 *  - exact counts: when all have ended, the slot is counted sleeping and nothing searching.
 * Switches (each must produce a counterexample):
 *   SEARCH_UNMARKED  W2 counts the summoned slot as searching but does not mark it so: the
 *                    thread that comes counts itself again, the count never drops back,
 *                    and later wake-ups see a searcher that does not exist (the bug found
 *                    first: an enqueue after a parallel_for never ran).
 *   NO_NOTE          W4's summoned thread enters a slot still held, without waiting: two
 *                    threads work in the slot.
 *   LEAVE_NO_RECHECK W1 goes away without the re-check: a job pushed before its
 *                    announcement, whose wake-up saw it searching, waits for ever.
 * Memory model: sequential consistency (the fences of [P-SLEEP SleepFence] and [P-POST
 * PushFence] make the Dekker pairs hold; sleep.pml checks them against their omission).
 */

#ifndef JOBS
#define JOBS 2
#endif

byte queued;        /* jobs in the injection queue */
byte ran;           /* jobs run */
byte searching;     /* the idle word's halves */
byte sleeping;
bool listed;        /* the slot's sleeper is in the list (under the mutex) */
bool away;          /* ... with no thread behind it */
bool marked;        /* the slot's own searching mark, owner state */
byte state;         /* W4: 0 free, 1 served, 2 served and another summoned */
byte inside;        /* threads working in the slot now */
byte summons;       /* lender jobs queued in the lending pool */
bool mutex;
bool pushed;        /* the pusher is done */
byte lents;         /* lent threads running now */

inline lock() { atomic { !mutex -> mutex = true } }
inline unlock() { mutex = false }

/* W2 under the mutex: remove the sleeper; summon when it is away */
inline wake_one() {
  lock();
  if
  :: searching == 0 && listed ->
     listed = false;
     sleeping--;
     searching++;
     if
     :: away ->
        away = false;
#ifndef SEARCH_UNMARKED
        marked = true;
#endif
        summons++
     :: else -> skip
     fi
  :: else -> skip
  fi;
  unlock()
}

proctype pusher() {
  byte i;
  for (i : 1 .. JOBS) {
    queued++;        /* [P-POST PushJob] */
    wake_one()       /* PushFence, ReadSleepers, wake_one ([INV-WAKE]: only if nobody searches) */
  };
  pushed = true
}

/* the lent thread's top-level loop: search (take a job), else W1 */
proctype lent() {
  bool seen;
  /* W4: take the slot, or leave a note for its holder */
#ifdef NO_NOTE
  state = 1;
#else
  if
  :: atomic { state == 0 -> state = 1 }
  :: atomic { state != 0 -> state = 2 }; goto done
  fi;
#endif
  d_step { inside++; assert(inside == 1) };
  /* try_start_searching: counts itself unless already marked */
  atomic {
    if
    :: !marked -> searching++; marked = true
    :: else -> skip
    fi
  };
  do
  :: atomic { queued > 0 -> queued-- };
     /* stop_searching: the last searcher would wake a replacement; one slot: none */
     atomic { if :: marked -> searching--; marked = false :: else -> skip fi };
     ran++;
     atomic { if :: !marked -> searching++; marked = true :: else -> skip fi }
  :: atomic { queued == 0 } ->
     /* W1: announce (IncSleepers) */
     lock();
     listed = true;
     sleeping++;
     if :: marked -> searching--; marked = false :: else -> skip fi;
     unlock();
     /* SleepFence, ReadJob */
#ifdef LEAVE_NO_RECHECK
     seen = false;
#else
     seen = queued > 0;
#endif
     lock();
     if
     :: !listed -> marked = true; unlock()            /* woken: stays searching */
     :: listed && seen ->
        listed = false; sleeping--; searching++; marked = true; unlock()
     :: listed && !seen -> away = true; unlock(); break
     fi
  od;
  inside--;
  /* W4: release, and summon again on a note */
  atomic {
    if
    :: state == 2 -> state = 0; summons++
    :: else -> state = 0
    fi
  };
done:
  lents--
}

/* the lending pool: runs each lender job on a thread of its own */
proctype lender_pool() {
  do
  :: atomic { summons > 0 -> summons--; lents++; run lent() }
  :: atomic { summons == 0 && lents == 0 && pushed } -> break  /* nothing more will be summoned */
  od
}

init {
  atomic {
    listed = true;  /* W0 */
    away = true;
    sleeping = 1;
    run pusher();
    run lender_pool()
  };
  _nr_pr == 1;  /* every other process has ended */
  assert(ran == JOBS);
  assert(queued == 0);
  assert(sleeping == 1 && searching == 0 && away)
}

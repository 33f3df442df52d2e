/* lend.pml: lending a pool's worker by name, forkjoin/DESIGN.md [P-LEND] (L1-L7, R1-R3)
 * and [P-OMP Team] S2's use of it. Mirrors forkjoin/mailbox.cpp (reserve_worker,
 * post_to_worker, worker_took_or_idle, withdraw_from_worker, announce_idle), the worker's
 * side in forkjoin/worker.cpp (worker_main, find_work_idle, search_until_leaving,
 * leave_idle) and omp/members.cpp's start_members (reserve, post, poll for the grace
 * period, withdraw and hand the turn to a spare thread).
 *
 * Scenario: one background worker W, in its idle loop (available = 1), which can also steal
 * one forkjoin job FJ from another deque; a primary P that, for each of two consecutive
 * regions, reserves W and posts it a team turn (R1, L1-L2; W announces itself idle before
 * its turn ends, L7), takes the late path when L2 reads 0 (polling worker_took_or_idle, and
 * withdrawing the turn for a spare thread once its grace period ends, at any moment here:
 * a worker can be descheduled for longer than any grace period); with TWO_POSTERS a second
 * primary Q posting to W unreserved (R2). When every region has ended, the pool shuts down
 * (P-TERM Close and Wake). W parks through a reduced [P-SLEEP] (the sleeper list under the
 * mutex, its mailbox as the first ReadJob source, then FJ and shutdown).
 * Checked, exhaustively: every turn runs exactly once (by W or a spare), FJ runs exactly
 * once, no mailbox points at a turn after its region ended (E3), W leaves its loop only at
 * shutdown and with its own deque empty, and nothing waits for ever (no invalid end state:
 * in particular no worker waits for mail that will never come).
 *
 * Memory model: sequential consistency; L1/L2 against L4 (and R3's store) are seq_cst in
 * the code, a Dekker pair that SC gives.
 *
 * Switches (-D), each must give a counterexample:
 *   R3_EXCHANGE_THEN_WAIT  the first R3 (before the fix "a reserved worker waits for its post
 *                          at available 2"): leaving the idle loop, the worker exchanged
 *                          available to 0 and, if it had been 2, spun for its mailbox; the
 *                          idle loop did not stop at 2. A reserved worker that had stolen FJ
 *                          made its reserver's post late, the post was withdrawn before the
 *                          worker saw it, and the worker waited for ever holding FJ.
 *   WITHDRAWN_ENDS_THREAD  (the bug "a withdrawn post ended the worker's thread") a worker
 *                          that saw mail but found it withdrawn at L5 returned empty-handed
 *                          from find_work_idle, which worker_main reads as shutdown.
 */

#define NONE 0
#define TURN_P 1 /* P's member job */
#define TURN_Q 2 /* Q's member job */
#define FJ 3     /* the forkjoin job W may steal */
#define TURN_P2 4 /* P's member job in its next region */

byte mailbox = NONE; /* worker_slot::mailbox_ */
byte avail = 1;      /* worker_slot::available_: 0 busy, 1 idle loop, 2 reserved */
bool fj_public = true; /* FJ in another worker's deque */
bool fj_own = false;   /* FJ pushed back onto W's deque (published) */
bool shutdown = false;
byte mtx = 0;          /* the sleep controller's mutex */
bool listed = false;   /* W in the sleeper list */
bool wake_flag = false;

byte runs[5];          /* ghost: times each job ran */
byte regions = 0;      /* ghost: regions ended (E3) */
bool w_left = false;   /* ghost: W's thread ended */

inline ran_job(j) {
  assert(runs[j] == 0);
  runs[j]++
}

/* wake_worker(W): wake_specific under the mutex. */
inline wake_worker() {
  atomic {
    mtx == 0 ->
    if
    :: listed -> listed = false; wake_flag = true
    :: else -> skip
    fi
  }
}

/* ---------------------------------------------------------------- the worker */

/* W's fall_asleep(no_mail): IncSleepers, SleepFence, ReadJob (mailbox, FJ, shutdown). */
inline fall_asleep() {
  atomic { mtx == 0 -> wake_flag = false; listed = true }; /* [P-SLEEP IncSleepers] */
  /* [P-SLEEP SleepFence] */
  if /* [P-SLEEP ReadJob]: no_mail(W), then the monitor */
  :: mailbox != NONE -> cancel = true
  :: else -> skip
  fi;
  if
  :: !cancel && fj_public -> cancel = true
  :: else -> skip
  fi;
  if
  :: !cancel && shutdown -> cancel = true
  :: else -> skip
  fi;
  if
  :: cancel -> atomic { mtx == 0 -> listed = false; cancel = false }
  :: else ->
end_park:
    wake_flag
  fi
}

/* leave_idle(found): [P-LEND L4] (with R3), L5; sets `got`. */
inline leave_idle() {
#ifndef R3_EXCHANGE_THEN_WAIT
  a = avail;
  do
  :: a != 2 ->
    atomic { /* [P-LEND L4] CAS from 0 or 1 to 0, seq_cst */
      if
      :: avail == a -> avail = 0; a = 9
      :: else -> a = avail /* reserved meanwhile (R1) */
      fi
    };
    if
    :: a == 9 -> break
    :: else -> skip
    fi
  :: a == 2 -> /* [P-LEND R3] wait for mail still at 2; only this thread moves it from 2 */
    mailbox != NONE;
    avail = 0; /* seq_cst store: the L4 side of the Dekker pair */
    break
  od;
  a = 0;
#else
  atomic { a = avail; avail = 0 }; /* the first L4: exchange to 0 */
  if
  :: a == 2 -> mailbox != NONE /* then wait for the reserver's post */
  :: else -> skip
  fi;
  a = 0;
#endif
  if
  :: mailbox == NONE -> got = found /* [P-LEND L4] seq_cst load: nothing posted */
  :: else ->
    atomic { mail = mailbox; mailbox = NONE }; /* [P-LEND L5] exchange, acquire */
    if
    :: mail == NONE -> got = found /* withdrawn by its poster [P-LEND L6] */
    :: else ->
      if
      :: found == FJ -> fj_own = true /* the stolen job goes back onto W's deque, published */
      :: else -> skip
      fi;
      got = mail;
      mail = NONE
    fi
  fi;
  found = NONE
}

/* search_until_leaving: L3, then mail first, R3, steal, shutdown, else sleep. */
inline search_until_leaving() {
  atomic { /* [P-LEND L3] relaxed load and store: nobody else moves it from 0 */
    if
    :: avail == 0 -> avail = 1
    :: else -> skip
    fi
  };
  do
  :: atomic { mailbox != NONE -> skip }; leave_idle(); break /* [P-LEND L3] mail first */
#ifndef R3_EXCHANGE_THEN_WAIT
  :: atomic { mailbox == NONE && avail == 2 -> skip }; leave_idle(); break /* [P-LEND R3] */
  :: atomic { mailbox == NONE && avail != 2 && fj_public -> fj_public = false; found = FJ };
#else
  :: atomic { mailbox == NONE && fj_public -> fj_public = false; found = FJ };
#endif
    leave_idle();
    break
  :: atomic { mailbox == NONE && !fj_public && shutdown -> skip }; leave_idle(); break
  :: atomic { mailbox == NONE && !fj_public && !shutdown -> skip }; fall_asleep()
  od
}

active proctype worker() {
  byte a, found, got, mail;
  bool cancel;
  do
  :: atomic { fj_own -> fj_own = false; ran_job(FJ) } /* worker_main: its own deque first */
  :: atomic { !fj_own -> skip };
    do /* find_work_idle */
    :: search_until_leaving();
#ifndef WITHDRAWN_ENDS_THREAD
      if /* [P-LEND L6] a withdrawn post is not the pool's end: idle again */
      :: got != NONE || shutdown -> break
      :: else -> skip
      fi
#else
      break
#endif
    od;
    if
    :: got == NONE -> goto leave /* worker_main: the pool shuts down */
    :: got == FJ -> atomic { ran_job(FJ); got = NONE }
    :: got == TURN_P || got == TURN_Q || got == TURN_P2 ->
      atomic { ran_job(got); got = NONE };
      /* run_member: E1, then [P-LEND L7] announce idle before E2, then the idle loop */
      atomic {
        if
        :: avail == 0 -> avail = 1
        :: else -> skip
        fi
      }
    fi
  od;
leave:
  assert(shutdown && !fj_own); /* a worker's thread ends only with its pool, its deque empty */
  w_left = true
}

/* ---------------------------------------------------------------- the posters
 * `regions` counts the regions that ended: POSTERS in all. */

/* post_to_worker(W, j, reserved) then start_members' late path; the turn runs on W or on a
 * spare thread (here: the poster itself), then the region ends (E3 waits for the turn). */
inline lend(j) {
  if /* R2: an unreserved post refuses a worker it sees reserved (relaxed load) */
  :: !reserved && avail == 2 -> r = 1
  :: else ->
    do /* [P-LEND L1] CAS the mailbox from empty, seq_cst; a reservation waits out another job */
    :: atomic { mailbox == NONE -> mailbox = j; r = 0 }; break
    :: atomic { mailbox != NONE && !reserved -> r = 1 }; break
    od;
    if
    :: r == 0 ->
      a = avail; /* [P-LEND L2] seq_cst load */
      if
      :: a == 0 -> r = 3 /* late */
      :: a == 2 && !reserved ->
        atomic { /* [P-LEND R2] kept for its reserver: withdraw (L6) */
          if
          :: mailbox == j -> mailbox = NONE; r = 1
          :: else -> r = 2 /* the worker took it in between: it runs it */
          fi
        };
        if
        :: r == 2 -> wake_worker()
        :: else -> skip
        fi
      :: else -> wake_worker(); r = 2 /* prompt */
      fi
    :: else -> skip
    fi
  fi;
  if
  :: r == 3 -> /* late: poll worker_took_or_idle until the grace period ends */
    do
    :: mailbox != j -> r = 2; break /* taken */
    :: mailbox == j ->
      if
      :: avail != 0 -> wake_worker(); r = 2; break /* idle: it takes j soon */
      :: avail == 0 -> skip /* [P-LEND L2] seq_cst load: still busy */
      fi
    :: atomic { r == 3 -> r = 4 }; break /* the grace period is over */
    od;
    if
    :: r == 4 ->
      atomic { /* [P-LEND L6] withdraw: one RMW decides between this and L5 */
        if
        :: mailbox == j -> mailbox = NONE; r = 1
        :: else -> r = 2
        fi
      }
    :: else -> skip
    fi
  :: else -> skip
  fi;
  if
  :: r == 1 -> ran_job(j) /* run_on_spare */
  :: else -> skip
  fi;
  runs[j] == 1; /* [P-OMP Team] E3: the region ends once every turn ran */
  assert(mailbox != j); /* the team is freed: no mailbox points at its turn */
  regions++
}

inline reserve() {
  atomic { /* [P-LEND R1] reserve: CAS 1 -> 2, relaxed */
    if
    :: avail == 1 -> avail = 2; reserved = true
    :: else -> reserved = false
    fi
  }
}

/* A primary's consecutive regions, each with one member turn for W. */
active proctype primary() {
  bool reserved;
  byte r, a;
  reserve();
  lend(TURN_P);
  reserve();
  lend(TURN_P2)
}

#ifdef TWO_POSTERS
#define POSTERS 3
active proctype other_primary() {
  bool reserved = false;
  byte r, a;
  lend(TURN_Q)
}
#else
#define POSTERS 2
#endif

/* The pool's destructor once every region ended: [P-TERM] Close, Wake, then Join: W leaves
 * its loop, and FJ's own worker (not modelled) drains FJ if it is still in its deque. */
active proctype destructor() {
  regions == POSTERS;
  shutdown = true;
  atomic {
    mtx == 0 ->
    if
    :: listed -> listed = false; wake_flag = true
    :: else -> skip
    fi
  };
  w_left;
  atomic {
    if
    :: fj_public -> fj_public = false; ran_job(FJ)
    :: else -> skip
    fi
  };
  assert(runs[FJ] == 1 && runs[TURN_P] == 1 && runs[TURN_P2] == 1 && runs[TURN_Q] == POSTERS - 2)
}

/* deque.pml: the split Chase-Lev deque's pop/steal race and its publication requests,
 * forkjoin/DESIGN.md [P-DEQUE] (P1-P4, T1-T4, S1-S5, Share, Reclaim, X1-X4) and
 * [P-POST Publish]. Mirrors include/forkjoin/detail/deque.hpp (push_private, push_fast,
 * take_back_unshared, publish with share_private, pop, pop_public, steal_impl,
 * request_publication), the join path of include/forkjoin/join.hpp (push_job, which hands
 * back the slot it wrote; take_back_unshared(slot, frame) || reclaim_join_job), the
 * private form of include/forkjoin/detail/worker_api.hpp (job_slots), task_group::run's
 * always-published push and the worker's top-level pop (forkjoin/worker.cpp).
 *
 * Two scenarios:
 *  - default (RACE): one owner runs a nondeterministic mix of join pushes, task_group
 *    pushes, join ends (Reclaim or reclaim_join_job) and top-level pops over NJOBS jobs,
 *    then drains its deque; THIEVES thieves make STEALS steal attempts each, each one idle
 *    (counted searching) or still busy at each attempt. A join pushes its g in its private
 *    form (PRIV + g), which publish and pop turn into the shared form (g) [P-DEQUE Share],
 *    and takes it back by the Reclaim test alone: the owner's end is one past the slot the
 *    push wrote and that slot holds g's private form (no load of bottom). Checked: every
 *    job is taken exactly once (by a pop, a take-back or a steal), none is lost, a take
 *    reads the job that was pushed (never a private form: thieves and pops see shared forms
 *    only), and a join's slow path pops only jobs pushed after its own. Exhaustive for
 *    3 jobs and 1 thief making 3 steals (the default) and for 2 jobs and 2 thieves making
 *    2 steals each (-DNJOBS=2 -DTHIEVES=2 -DSTEALS=2).
 *  - STUCK_SPAWNER: the owner spawns two task_group children and then blocks until both
 *    finished (a spawner that runs long or blocks); one thief is busy for a while, then
 *    steals. Checked (LTL, weak fairness): both children eventually run.
 *  - ISOLATED_JOINER: the owner enters an isolated region (forkjoin/isolation.cpp,
 *    enter_isolation: a publication of whatever is queued, here nothing) and joins, its f
 *    waiting until g ran elsewhere; one thief is busy for a while, then steals. Checked
 *    (LTL, weak fairness): g eventually runs. With QUEUED, a job pushed privately before
 *    the region is entered is published there, and the thief may take it at once; checked
 *    (safety) is DESIGN's invariant where join reads the request: when the public part is
 *    empty a request is pending, unless a thief is between its last-element CAS and X3.
 *    (Whether g then runs is not checked: a push that finds public work stays private, and
 *    an owner that only waits never serves a later request, the limit DESIGN states.)
 *
 * Memory model. Sequential consistency, plus the two weak behaviours the fences guard
 * against, made explicit:
 *  - P3 (release fence before P4): the owner's slot stores (P2) sit in `oslot` (the owner's
 *    view) until the fence copies them to `slot` (what thieves read). DROP_P3 moves the
 *    copy after P4, so a thief can see the new bottom before the slot.
 *  - T2 (seq_cst fence between T1 and T3): DROP_T2 performs T3's load of top before T1's
 *    store of bottom, the store-load reordering (store buffer) that T2 forbids.
 *  S2 is not modelled separately: on the hardware this code runs on, S1/S3 are acquire loads
 *  that keep their order, and S2 is T2's partner in the C11 proof, whose effect (T1 visible
 *  to S3 once T2 precedes S2) is what the model's order of T1 and T3 gives.
 * Not modelled: grow (the ring is larger than any index used: NJOBS + 1 slots), isolation
 * tags, steal_half, X5 (the parking sweep's request; sleep.pml).
 *
 * Switches (-D):
 *   DROP_T2         the owner's T3 load moves above T1: a job is taken twice.
 *   DROP_P3         P4 becomes visible before P2's slot store: a thief takes an empty slot.
 *   RECLAIM_NO_FORM the take-back tests only that the owner's end is one past g's slot, not
 *                   that the slot still holds g's private form: a g that was published and
 *                   stolen is taken back too (taken twice).
 *   SHARE_AFTER_P3  publish rewrites private forms after P3/P4: a thief can take a slot that
 *                   still holds a private form (not a job it may run).
 *   PRIVATE_CHILD   task_group::run pushes with join's rule (push_job: publish only when
 *                   requested) instead of always publishing, the bug fixed by "task_group
 *                   children always published" (DESIGN [P-DEQUE] X2, "always for a
 *                   task_group child"): with STUCK_SPAWNER a child stays private forever.
 *   PUBLISH_EMPTY_CLEARS  publish with nothing private still clears the request (X2), the
 *                   bug behind Lending.WorkFoundAfterAHandedOverJobRunsInItsRegion's rare
 *                   10 s stall: entering an isolated region while nobody was idle cleared
 *                   *emptied*, so join's push of g stayed private and the thief that then
 *                   came asked a blocked owner. With ISOLATED_JOINER g never runs.
 *   X2_AFTER_P4     publish serves the request after P4 (the order before 2026-12-02): a
 *                   thief that takes the last of the jobs just published finds *emptied*
 *                   still set and skips X3, then X2 clears it, and the public part is
 *                   empty with nothing pending. With ISOLATED_JOINER and QUEUED the
 *                   invariant's assertion fails at join's push.
 */

#ifndef NJOBS
#define NJOBS 3
#endif
#ifndef THIEVES
#define THIEVES 1
#endif
#ifndef STEALS
#define STEALS 3
#endif
#define CAP (NJOBS + 1)

#define PRIV 8 /* private form of job x: PRIV + x (join_frame_base::private_form); x < PRIV */
#define ASKED 1   /* chase_lev_deque::k_asked */
#define EMPTIED 2 /* chase_lev_deque::k_emptied */

short top = 0;      /* top_: thieves' CAS (S5), owner's CAS (T4) */
short bottom = 0;   /* bottom_: the split point, written by the owner only (P4, T1) */
byte slot[CAP];     /* the slots as other threads see them */
byte req = EMPTIED; /* publish_request_: a new deque starts with *emptied* */
byte idle = 0;      /* the pool's idle word, reduced to "thieves searching" */

byte taken[NJOBS + 1]; /* ghost: how often each job was taken */
byte ran = 0;          /* ghost: jobs taken (STUCK_SPAWNER) */
bool inwin = false;    /* ghost (QUEUED): a thief took the last public job and has not done X3 */

/* The owner's own state, local to it: head_, its view of the slots (its P2 stores, which
 * reach `slot` at P3) and the value of bottom_ (it is the only writer, so its relaxed loads
 * of bottom_ read its own last store). Each Promela step below holds at most one access to
 * shared state; purely local work is folded into the neighbouring step. */
#define OWNER_STATE short head = 0, ob = 0, b, t; byte oslot[CAP]; byte i, k, x, y, c; bool won

inline take(x) {
  assert(x >= 1 && x <= NJOBS); /* a real job, not an empty or stale slot */
  assert(taken[x] == 0);        /* exactly once */
  taken[x]++;
  ran++
}

/* request_publication(why): a relaxed test, then fetch_or if the bit is missing. One step
 * each here (and X2's load-then-store below): splitting them yields no other final word,
 * since fetch_or is idempotent and X2 stores a constant. */
inline request(why) {
  if
  :: atomic { (req & why) != why -> req = req | why }
  :: atomic { (req & why) == why -> skip }
  fi
}

/* [P-DEQUE P3] release fence: every slot store before it is visible before P4. */
inline flush_slots() {
  i = 0;
  do
  :: i < CAP -> slot[i] = oslot[i]; i++
  :: else -> break
  od;
  i = 0
}

/* [P-DEQUE Share] the private part [bottom, head) in its shared form, in the owner's view of
 * the slots (relaxed stores, which P3 publishes with the slots). */
inline share_private() {
  i = ob;
  do
  :: i < head ->
    if
    :: oslot[i] > PRIV -> oslot[i] = oslot[i] - PRIV
    :: else -> skip
    fi;
    i++
  :: else -> break
  od;
  i = 0
}

/* push_private: [P-DEQUE P1] the room check never fails here (no grow); [P-DEQUE P2]. */
inline push_private(x) {
  oslot[head] = x;
  head++
}

/* [P-DEQUE X2] a relaxed load of the bits, a store only if they change. */
inline serve_request() {
  if
  :: atomic { req != k -> req = k } /* [P-DEQUE X2] */
  :: atomic { req == k -> skip }
  fi
}

/* publish(k): X2, then Share, P3 and P4; nothing at all when nothing is private (the
 * request stays pending). */
inline publish() {
  if
#ifndef PUBLISH_EMPTY_CLEARS
  :: head <= ob -> k = 0 /* [P-DEQUE X2] only a publication that publishes serves the request */
  :: else ->
#else
  :: true ->
#endif
#ifndef X2_AFTER_P4
    serve_request();
#endif
#ifndef SHARE_AFTER_P3
  d_step { share_private() };
#endif
#ifndef DROP_P3
  d_step {
    flush_slots();
    bottom = head; /* [P-DEQUE P4] */
    ob = head
  }
#else
  d_step {
    bottom = head; /* [P-DEQUE P4], before P2's stores are visible */
    ob = head
  };
  d_step { flush_slots() }
#endif
#ifdef SHARE_AFTER_P3
  d_step { share_private(); flush_slots() };
#endif
#ifdef X2_AFTER_P4
  serve_request();
#endif
  k = 0
  fi
}

/* publish_and_notify: *asked* stays set while some worker is idle (a relaxed read). */
inline publish_and_notify() {
  atomic {
    if
    :: idle > 0 -> k = ASKED
    :: else -> k = 0
    fi
  };
  publish()
}

/* push_job (join's push, [P-POST Publish]): publish only when requested. x: the slot value
 * (a join pushes its private form). */
inline push_job(x) {
  atomic {
    push_private(x);
    c = req;
#ifdef QUEUED
    assert(top < bottom || c != 0 || inwin) /* [P-DEQUE X2] empty only while a reason is pending */
#endif
  };
  if
  :: c != 0 -> c = 0; publish_and_notify()
  :: else -> skip
  fi
}

/* task_group::run: always published. */
inline push_child(x) {
#ifdef PRIVATE_CHILD
  push_job(x)
#else
  d_step { push_private(x) };
  publish_and_notify()
#endif
}

/* pop_public: T1-T4, X4. */
inline pop_public(x) {
#ifdef DROP_T2
  atomic { b = ob - 1; t = top };     /* [P-DEQUE T3] hoisted above T1: what a missing T2 allows */
  atomic { bottom = b; ob = b };      /* [P-DEQUE T1] */
#else
  atomic { b = ob - 1; bottom = b; ob = b }; /* [P-DEQUE T1] */
                                             /* [P-DEQUE T2] seq_cst fence: T1 visible before T3 */
  t = top;                                   /* [P-DEQUE T3] */
#endif
  if
  :: t > b ->
    atomic { bottom = b + 1; ob = b + 1; head = b + 1 };
    request(EMPTIED); /* [P-DEQUE X4] */
    x = 0
  :: t <= b ->
    x = oslot[b];
    if
    :: t == b ->
      atomic { /* [P-DEQUE T4] */
        if
        :: top == t -> top = t + 1; won = true
        :: else -> won = false
        fi
      };
      atomic { /* the canonical empty state; as in the code, no X4 here (a thief that won sets X3) */
        bottom = b + 1;
        ob = b + 1;
        head = b + 1;
        if
        :: !won -> x = 0
        :: else -> skip
        fi;
        won = false
      }
    :: else -> head = b
    fi
  fi;
  t = 0;
  b = 0
}

/* pop: the newest element, private (no fence, returned in its shared form [P-DEQUE Share])
 * or through pop_public. */
inline pop(x) {
  if
  :: head > ob -> head--; x = oslot[head];
    if
    :: x > PRIV -> x = x - PRIV
    :: else -> skip
    fi
  :: else -> pop_public(x)
  fi
}

#if !defined(STUCK_SPAWNER) && !defined(ISOLATED_JOINER)

proctype owner() {
  OWNER_STATE;
  byte next = 1;     /* the next job to push */
  byte stack[NJOBS]; /* open joins: the g each one pushed */
  byte pslot[NJOBS]; /* and the slot its push wrote (push_job's return value) */
  byte sp = 0;
  do
  :: next <= NJOBS -> /* join(f, g) begins: push_job(g), then f runs */
    atomic { stack[sp] = next; pslot[sp] = head; sp++ };
    push_job(PRIV + next);
    next++
  :: next <= NJOBS -> /* task_group::run */
    push_child(next);
    next++
  :: sp > 0 -> /* f returned: [P-DEQUE Reclaim] take_back_unshared(slot, g) || reclaim_join_job */
    atomic { sp--; x = stack[sp]; stack[sp] = 0; y = pslot[sp]; pslot[sp] = 0 };
#ifndef RECLAIM_NO_FORM
    if
    :: head == y + 1 && oslot[y] == PRIV + x -> atomic { head = y; take(x); x = 0; y = 0 }
#else
    if
    :: head == y + 1 -> atomic { head = y; take(x); x = 0; y = 0 }
#endif
    :: else ->
      /* reclaim_join_job: pop and run what f left above g, then g, or find g stolen */
      y = 0;
      do
      :: pop(y);
        if
        :: y == 0 -> break /* stolen: the waiter helps until its latch is set (join.pml) */
        :: y == x -> atomic { take(y); y = 0 }; break
        :: else -> atomic { assert(y > x); take(y); y = 0 } /* only jobs pushed after g lie above it */
        fi
      od;
      x = 0
    fi
  :: sp == 0 -> /* worker_main: pop and run */
    pop(y);
    if
    :: y != 0 -> atomic { take(y); y = 0 }
    :: else -> skip
    fi
  :: next > NJOBS && sp == 0 -> break
  od;
  /* drain: the owner pops until its deque is empty */
  do
  :: pop(y);
    if
    :: y == 0 -> break
    :: else -> atomic { take(y); y = 0 }
    fi
  od
}

proctype thief() {
  short t, b;
  byte x, n = 0;
  bool searching = false, won;
  do
  :: n < STEALS ->
    atomic {
      n++;
      if /* idle (counted searching) from now, or still busy: the owner's X2 reads the word */
      :: !searching -> idle++; searching = true
      :: skip
      fi;
      t = top /* [P-DEQUE S1] */
    };
    /* [P-DEQUE S2] */
    b = bottom; /* [P-DEQUE S3] */
    if
    :: t >= b -> request(ASKED) /* [P-DEQUE X1] */
    :: t < b ->
      x = slot[t]; /* [P-DEQUE S4] read the slot before the CAS [P-DEQUE E3] */
      atomic {     /* [P-DEQUE S5] */
        if
        :: top == t -> top = t + 1; won = true
        :: else -> won = false
        fi
      };
      if
      :: won ->
        if
        :: t + 1 >= b -> request(EMPTIED) /* [P-DEQUE X3] */
        :: else -> skip
        fi;
        atomic {
          if /* stop_searching: the thief runs what it took */
          :: searching -> idle--; searching = false
          :: else -> skip
          fi;
          take(x);
          won = false
        }
      :: else -> skip /* a lost race [P-DEQUE E4] */
      fi
    fi;
    atomic { t = 0; b = 0; x = 0 }
  :: else -> break
  od;
  if
  :: searching -> idle--
  :: else -> skip
  fi
}

init {
  byte i;
  atomic {
    run owner();
    i = 0;
    do
    :: i < THIEVES -> run thief(); i++
    :: else -> break
    od
  }
  (_nr_pr == 1) -> /* everyone finished: every job was taken exactly once, none lost */
  i = 1;
  do
  :: i <= NJOBS -> assert(taken[i] == 1); i++
  :: else -> break
  od
}

#elif defined(STUCK_SPAWNER)

/* The spawner: two task_group children, then it blocks (a long task, a blocking call). */
active proctype spawner() {
  OWNER_STATE;
  push_child(1);
  push_child(2);
  (ran == 2) /* blocked until both children ran */
}

/* A worker busy elsewhere for a while, then idle: it steals until both children ran. */
active proctype thief() {
  short t, b;
  byte x;
  bool won;
  skip; /* busy: any number of the spawner's steps happen first */
  idle++;
  do
  :: ran == 2 -> break
  :: else ->
    t = top;    /* [P-DEQUE S1] */
    b = bottom; /* [P-DEQUE S3] */
    if
    :: t >= b -> request(ASKED) /* [P-DEQUE X1] */
    :: t < b ->
      x = slot[t];
      atomic { /* [P-DEQUE S5] */
        if
        :: top == t -> top = t + 1; won = true
        :: else -> won = false
        fi
      };
      if
      :: won ->
        if
        :: t + 1 >= b -> request(EMPTIED) /* [P-DEQUE X3] */
        :: else -> skip
        fi;
        atomic { take(x); won = false }
      :: else -> skip
      fi
    fi;
    atomic { t = 0; b = 0; x = 0 }
  od
}

ltl children_run { <>(ran == 2) }

#else /* ISOLATED_JOINER */

/* The joiner: enters an isolated region, whose [P-ISO Enter] publishes what is queued
 * (nothing: publish_and_notify on an empty private part, while nobody is idle yet), then
 * joins: push_job(g), and f waits until g ran elsewhere (it never takes g back meanwhile). */
active proctype joiner() {
  OWNER_STATE;
#ifdef QUEUED
  d_step { push_private(2) } /* a job queued privately before the region */
#endif
  publish_and_notify(); /* enter_isolation */
  push_job(PRIV + 1);   /* join's push of g */
  (taken[1] == 1)       /* f: waits for the thief to have run g */
}

/* A worker busy elsewhere (running a handed-over job), then idle: it steals until g ran. */
active proctype thief() {
  short t, b;
  byte x;
  bool won;
  skip; /* busy: any number of the joiner's steps happen first */
  idle++;
  do
  :: taken[1] == 1 -> break
  :: else ->
    t = top;    /* [P-DEQUE S1] */
    b = bottom; /* [P-DEQUE S3] */
    if
    :: t >= b -> request(ASKED) /* [P-DEQUE X1] */
    :: t < b ->
      x = slot[t];
      atomic { /* [P-DEQUE S5] */
        if
        :: top == t -> top = t + 1; won = true; inwin = t + 1 >= b
        :: else -> won = false
        fi
      };
      if
      :: won ->
        if
        :: t + 1 >= b -> atomic { request(EMPTIED); inwin = false } /* [P-DEQUE X3] */
        :: else -> skip
        fi;
        atomic { take(x); won = false }
      :: else -> skip
      fi
    fi;
    atomic { t = 0; b = 0; x = 0 }
  od
}

ltl g_runs { <>(taken[1] == 1) }

#endif

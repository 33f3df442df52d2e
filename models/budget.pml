/* budget.pml: the process's CPU tokens, forkjoin/DESIGN.md [P-BUDGET] (A1-A4, R1-R3, C1;
 * edges Start, Park), with [INV-BUDGET]. Mirrors forkjoin/cpu_budget.cpp (try_acquire,
 * acquire, release, unlink_locked, cancel_waiters, take_worker_token, give_back_token,
 * retake_token) and the pool's use of them (pool_impl::fall_asleep, worker_main, the
 * destructor's shutdown store before cancel_waiters).
 *
 * Scenario: W = 3 workers of one budgeted pool share CAP = 2 tokens. Each takes a token
 * (Start), gives it back and takes one again (Park), and gives it back when it leaves. The
 * pool's destructor stores its shutdown flag and cancels the waiters (C1) at any moment.
 * -DOUTSIDE=2: threads of other pools hold every token for good, so the pool's workers
 * can only wait, and its shutdown must cancel them.
 * Checked, exhaustively (both scenarios):
 *  - tokens are conserved: `running` equals the tokens the threads hold (ghost `holds`), a
 *    thread holds at most one once acquire returns, and none when it leaves;
 *  - [INV-BUDGET], as the proof needs it: while a token is free, every listed waiter is
 *    still between A2 and its A3 recheck, or some release is between R1 and the end of R3
 *    (so no worker waits while a token is free and nobody will hand it over);
 *  - no thread is left waiting (no invalid end state): every acquire returns.
 * Steps: try_acquire (a load, then a CAS loop) is one step, linearisable at its load or at
 * its CAS; a critical section of the budget's mutex is one step per access to a word that
 * other threads read outside the mutex (running, waiting, a waiter's state).
 *
 * Switches (-D), each must give a counterexample:
 *   NO_RECHECK         acquire parks right after A2, without A3: a release whose R2 read the
 *                      list empty leaves the waiter parked with a token free.
 *   R2_NOT_SEQCST      R2's load of `waiting` is performed before R1's RMW (what a load
 *                      weaker than seq_cst allows): the Dekker pair with A2/A3 breaks.
 *   A3_NOT_SEQCST      A3's load of `running` is performed before A2's RMW: the same.
 *   CANCEL_BEFORE_FLAG the destructor cancels the waiters before it stores its shutdown
 *                      flag: a worker that enlists in between waits for ever (OUTSIDE=2).
 *   KEEP_SECOND_TOKEN  a waiter that won A3 after R3 also granted it keeps both tokens.
 */

#define W 3
#define CAP 2
#ifndef OUTSIDE
#define OUTSIDE 0 /* tokens held for good by threads of other pools */
#endif
#define WAITING 0
#define GRANTED 1
#define CANCELLED 2

byte running = OUTSIDE; /* running_: tokens held */
byte waiting = 0;   /* waiting_: threads in the list */
byte mtx = 0;       /* mutex_: 0 free, else the holder's pid + 1 */
byte q[W];          /* the FIFO waiter list (head_ .. tail_), pids + 1, under mtx */
byte qlen = 0;
byte st[W];         /* each waiter's state_ word (futex) */
bool shutdown = false; /* the pool's shutdown flag, the waiters' `cancel` */

byte holds[W];      /* ghost: tokens each thread holds */
bool lst[W];        /* ghost: in the list */
bool a3pend[W];     /* ghost: enlisted, and its A3 recheck has not failed (it will not park) */
byte inrel = 0;     /* ghost: releases between R1 and the end of R3 */

#define LISTED_WAITING ((lst[0] && !a3pend[0]) || (lst[1] && !a3pend[1]) || (lst[2] && !a3pend[2]))
#define CONSERVED (running == OUTSIDE + holds[0] + holds[1] + holds[2] && running <= CAP)

inline lock() { atomic { mtx == 0 -> mtx = me + 1 } }
inline unlock() { mtx = 0 }

/* unlink_locked(who): leave the list; waiting -1 (relaxed, under the mutex). */
inline unlink(who) {
  atomic {
    i = 0;
    do
    :: i < qlen && q[i] != who + 1 -> i++
    :: i < qlen && q[i] == who + 1 -> break
    od;
    do
    :: i + 1 < qlen -> q[i] = q[i + 1]; i++
    :: else -> break
    od;
    qlen--;
    q[qlen] = 0;
    i = 0;
    lst[who] = false;
    a3pend[who] = false;
    waiting--
  }
}

/* [P-BUDGET A1] try_acquire for `who`: one token if fewer than CAP are held (seq_cst). */
inline try_acquire(who) {
  atomic {
    if
    :: running < CAP -> running++; holds[who]++; ok = true
    :: else -> ok = false
    fi
  }
}

/* release: R1, R2, R3. */
inline release() {
#ifndef R2_NOT_SEQCST
  atomic { assert(holds[me] >= 1); running--; holds[me]--; inrel++ }; /* [P-BUDGET R1] seq_cst RMW */
  atomic { wt = waiting };                                             /* [P-BUDGET R2] seq_cst load */
#else
  atomic { wt = waiting; inrel++ };                                    /* [P-BUDGET R2] before R1 */
  atomic { assert(holds[me] >= 1); running--; holds[me]--; };         /* [P-BUDGET R1] */
#endif
  if
  :: wt == 0 -> inrel--
  :: else ->
    lock();
    if /* [P-BUDGET R3] Grant, if the list is not empty and A1 succeeds on the first waiter's behalf */
    :: qlen > 0 ->
      head = q[0] - 1;
      try_acquire(head);
      if
      :: ok ->
        unlink(head);
        st[head] = GRANTED; /* release store, futex wake under the mutex */
        ok = false
      :: else -> skip
      fi
    :: else -> skip
    fi;
    atomic { unlock(); inrel-- }
  fi;
  wt = 0;
  head = 0
}

/* acquire(w, cancel): A1, A2, A3, A4. `got` says whether it returned with a token. */
inline acquire() {
  try_acquire(me); /* [P-BUDGET A1] */
  if
  :: ok -> got = true
  :: else ->
    lock();
    if
    :: shutdown -> unlock(); got = false /* the cancel flag, read (acquire) under the mutex */
    :: else ->
#ifdef A3_NOT_SEQCST
      early = running; /* A3's load, before A2's RMW */
#endif
      atomic { /* [P-BUDGET A2] Enlist: append, state = waiting, waiting + 1 (seq_cst RMW) */
        st[me] = WAITING;
        q[qlen] = me + 1;
        qlen++;
        lst[me] = true;
        a3pend[me] = true;
        waiting++;
        unlock()
      };
#ifndef NO_RECHECK
#ifndef A3_NOT_SEQCST
      try_acquire(me); /* [P-BUDGET A3] Recheck */
#else
      if
      :: early >= CAP -> ok = false
      :: else -> try_acquire(me)
      fi;
      early = 0;
#endif
#else
      ok = false;
#endif
      if
      :: !ok -> a3pend[me] = false /* it parks: from now on a release must hand it a token */
      :: else -> skip
      fi;
      if
      :: ok -> /* leave the list, or pass on the token R3 granted meanwhile */
        lock();
        i = 0;
        if
        :: st[me] == WAITING -> unlink(me) /* still listed */
        :: else -> two = (st[me] == GRANTED); a3pend[me] = false
        fi;
        unlock();
#ifndef KEEP_SECOND_TOKEN
        if
        :: two -> two = false; release()
        :: else -> skip
        fi;
#else
        two = false;
#endif
        got = true
      :: else ->
        st[me] != WAITING; /* [P-BUDGET A4] park until R3 or C1 changed the state */
        lock();            /* the waker has finished touching the word */
        unlock();
        got = (st[me] == GRANTED)
      fi
    fi
  fi;
  ok = false;
  assert(holds[me] == (got -> 1 : 0)) /* a thread holds at most one token */
}

proctype worker(byte me) {
  bool ok, got, two;
  byte i, wt, head, early;
  acquire(); /* [P-BUDGET Start] take_worker_token(&shutdown) */
  /* [P-BUDGET Park] fall_asleep: give the token back, sleep, take one again */
  if
  :: got -> release(); acquire()
  :: else -> skip
  fi;
  if /* leaving for good */
  :: got -> release()
  :: else -> skip
  fi;
  assert(holds[me] == 0)
}

/* The pool's destructor: Close, then C1. */
active proctype destructor() {
  byte me = W, k;
#ifndef CANCEL_BEFORE_FLAG
  shutdown = true; /* seq_cst store, before cancel_waiters */
#endif
  lock();
  atomic { /* [P-BUDGET C1] unlink every waiter of this pool, state = cancelled */
    k = 0;
    do
    :: k < qlen -> st[q[k] - 1] = CANCELLED; lst[q[k] - 1] = false; a3pend[q[k] - 1] = false; q[k] = 0; k++
    :: else -> break
    od;
    waiting = waiting - qlen;
    qlen = 0;
    k = 0;
    unlock()
  };
#ifdef CANCEL_BEFORE_FLAG
  shutdown = true;
#endif
  skip
}

init {
  atomic {
    byte i = 0;
    do
    :: i < W -> run worker(i); i++
    :: else -> break
    od
  }
}

/* Checked in every state: conservation and [INV-BUDGET]. */
active proctype invariant() {
  assert(CONSERVED && (running == CAP || !LISTED_WAITING || inrel > 0))
}

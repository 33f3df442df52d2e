/* slot.pml: a pool's external slot, forkjoin/DESIGN.md [P-SLOT]: T1 take, T2 release and
 * read whether a thread waits, T3 notify under the mutex; D1 a caller that found the slot
 * held injects a delegate, D2 under the mutex takes the freed slot or marks the word and
 * waits, D3 claims the delegate and runs the job in the slot, D4 a thread that pops the
 * delegate claims it, runs the job and sets done under the mutex, D5 the caller leaves on
 * done. Mirrors forkjoin/external_slot.cpp (run_external, run_in_slot, release_slot,
 * run_delegated, slot_delegate::execute_fn).
 *
 * Scenario: H holds the slot (T1 done); C found it held and delegates its job. While it
 * holds the slot H may pop the delegate and run it (a holder's help loop) or not; a worker
 * W may pop it or stay busy for ever (never popping). Then H releases the slot.
 * Checked, exhaustively:
 *  - exactly once: C's job runs once (assertion in run_job, and at C's return);
 *  - one holder: at most one thread holds the slot (assertion);
 *  - no lost wake-up: C always returns: a C blocked for good is an invalid end state.
 * Switches (each must produce a counterexample):
 *   NO_MARK          D2 waits without marking the word: H's release does not notify.
 *   MARK_UNLOCKED    D2 releases the mutex between marking the word and waiting: T3's
 *                    notify can fall between the two.
 *   CLAIM_BY_STORE   D3 and D4 read the claim and store theirs in two steps: both may win.
 * Memory model: sequential consistency; each CAS and exchange is one atomic step (T1 and
 * D2's acquire, T2's release order the slot's own state, which this model does not carry).
 * The condition variable: wait releases the mutex and starts waiting in one step, returns
 * once notified and the mutex is retaken; notify_all wakes every waiter then waiting.
 */

#define FREE 0
#define HELD 1
#define WAITED 2

#define UNCLAIMED 0
#define BY_WORKER 1
#define BY_CALLER 2

#define NOBODY 0
#define H_ID 1
#define C_ID 2
#define W_ID 3

byte word = HELD;     /* H holds the slot */
byte mtx = NOBODY;    /* the slot mutex's owner */
bool c_waiting;       /* C waits on the condition variable */
bool c_notified;
bool injected;        /* the delegate is in the injection queue */
byte claim = UNCLAIMED;
bool done;            /* under the mutex */
byte ran;             /* runs of C's job */
byte holders = 1;

inline lock(me) { atomic { mtx == NOBODY -> mtx = me } }
inline unlock(me) { assert(mtx == me); mtx = NOBODY }

inline notify_all() {
  atomic { if :: c_waiting -> c_notified = true; c_waiting = false :: else -> skip fi }
}

inline run_job() {
  d_step { assert(ran == 0); ran++ }
}

/* claim CAS: ok when this thread won */
inline claim_as(who, ok) {
#ifdef CLAIM_BY_STORE
  if
  :: claim == UNCLAIMED -> claim = who; ok = true
  :: else -> ok = false
  fi
#else
  atomic {
    if
    :: claim == UNCLAIMED -> claim = who; ok = true
    :: else -> ok = false
    fi
  }
#endif
}

/* T2, T3 */
inline release(me, old) {
  atomic { assert(holders == 1); holders--; old = word; word = FREE };
  if
  :: old == WAITED -> lock(me); unlock(me); notify_all()
  :: else -> skip
  fi
}

/* D4: the thread that popped the delegate */
inline run_delegate(me, ok) {
  claim_as(BY_WORKER, ok);
  if
  :: ok ->
     run_job();
     lock(me);
     done = true;
     unlock(me);
     notify_all()
  :: else -> skip
  fi
}

proctype holder() {
  bool ok;
  byte old;
  if
  :: atomic { injected -> injected = false }; run_delegate(H_ID, ok)
  :: skip
  fi;
  release(H_ID, old)
}

proctype worker() {
  bool ok;
  if
  :: atomic { injected -> injected = false }; run_delegate(W_ID, ok)
  :: skip  /* busy for ever with other work */
  fi
}

proctype caller() {
  bool took, ok;
  byte old;
  injected = true;  /* D1 */
  lock(C_ID);
  do
  :: done -> break  /* D5 */
  :: else ->
     took = false;
     atomic { if :: word == FREE -> word = WAITED; took = true; holders++; assert(holders == 1) :: else -> skip fi };
     if
     :: took ->
        claim_as(BY_CALLER, ok);  /* D3 */
        if
        :: ok -> unlock(C_ID); run_job(); release(C_ID, old); goto returned
        :: else -> unlock(C_ID); release(C_ID, old); lock(C_ID)
        fi
     :: else ->
#ifndef NO_MARK
        atomic { if :: word == HELD -> word = WAITED :: else -> skip fi };  /* D2 mark */
#endif
        if
        :: word == FREE -> skip  /* the mark's CAS failed: the slot freed, loop */
        :: else ->
#ifdef MARK_UNLOCKED
           unlock(C_ID);
           c_waiting = true;
#else
           atomic { unlock(C_ID); c_waiting = true };
#endif
           c_notified;
           c_notified = false;
           lock(C_ID)
        fi
     fi
  od;
  unlock(C_ID);
returned:
  assert(ran == 1)
}

init {
  atomic {
    run holder();
    run worker();
    run caller()
  }
}

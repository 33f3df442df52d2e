/* slot.pml: a pool's external slot, forkjoin/DESIGN.md [P-SLOT]: T1 take, T2 release and
 * read whether a thread waits, T3 notify under the mutex; D1 a caller that found the slot
 * held injects a delegate, D2 under the mutex takes the freed slot or marks the word and
 * waits, D3 claims the delegate and runs the job in the slot, D4 a thread that pops the
 * delegate claims it, runs the job and sets done under the mutex, D5 the caller leaves on
 * done; S1 a spawner outside the pool takes the free slot (else injects its job), S2 pushes
 * its job onto the slot's deque, S3 releases as T2 and T3 do, leaving the job there. Mirrors
 * forkjoin/external_slot.cpp (run_external, run_in_slot, release_slot, run_delegated,
 * slot_delegate::execute_fn, push_external).
 *
 * Scenario: H holds the slot (T1 done); C found it held and delegates its job; S spawns a
 * job J. While it holds the slot H may pop the delegate, J from the injection queue or J
 * from the slot's deque and run them (a holder's help loop), or not; a worker W may pop the
 * delegate or J, steal J from the deque, or stay busy for ever. C, once it runs its job in
 * the slot, may pop J there, and moves J, if still on the deque, to the injection queue as
 * T2 does. Then each holder releases the slot.
 * Checked, exhaustively:
 *  - exactly once: C's job runs once (assertion in run_job, and at C's return), and J runs
 *    at most once and, when every thread has ended, has run or is still queued (on the
 *    deque or injected) for a later thread: never lost;
 *  - one holder: at most one thread holds the slot (assertion), and the deque's owner
 *    operations (S2's push, a holder's pop) never overlap (assertion);
 *  - no lost wake-up: C always returns: a C blocked for good is an invalid end state.
 * Switches (each must produce a counterexample):
 *   NO_MARK          D2 waits without marking the word: H's release does not notify.
 *   MARK_UNLOCKED    D2 releases the mutex between marking the word and waiting: T3's
 *                    notify can fall between the two.
 *   CLAIM_BY_STORE   D3 and D4 read the claim and store theirs in two steps: both may win.
 *   SPAWN_UNHELD     S2 pushes without taking the slot (S1): its push overlaps a holder's pop.
 *   SPAWN_RELEASE_STORE  S3 stores free without reading the word: a caller that marked it
 *                    while S held the slot is never notified.
 * Memory model: sequential consistency; each CAS and exchange is one atomic step (T1, S1
 * and D2's acquire, T2's release order the slot's own state, which this model carries only
 * as the owner-operation count). The deque: J on it or not; a steal is one atomic step (the
 * deque's own protocol, models/deque.pml, orders it against the owner's pop). The condition
 * variable: wait releases the mutex and starts waiting in one step, returns once notified and
 * the mutex is retaken; notify_all wakes every waiter then waiting.
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
#define S_ID 4

byte word = HELD;     /* H holds the slot */
byte mtx = NOBODY;    /* the slot mutex's owner */
bool c_waiting;       /* C waits on the condition variable */
bool c_notified;
bool injected;        /* the delegate is in the injection queue */
byte claim = UNCLAIMED;
bool done;            /* under the mutex */
byte ran;             /* runs of C's job */
byte holders = 1;
bool j_on_deque;      /* S's job on the slot's deque */
bool j_injected;      /* S's job in the injection queue */
byte ran_j;           /* runs of S's job */
byte owner_ops;       /* owner operations on the slot's deque under way */

inline lock(me) { atomic { mtx == NOBODY -> mtx = me } }
inline unlock(me) { assert(mtx == me); mtx = NOBODY }

inline notify_all() {
  atomic { if :: c_waiting -> c_notified = true; c_waiting = false :: else -> skip fi }
}

inline run_job() {
  d_step { assert(ran == 0); ran++ }
}

inline run_j() {
  d_step { assert(ran_j == 0); ran_j++ }
}

/* an owner operation on the slot's deque: two steps, so that two at once are seen */
inline owner_begin() {
  owner_ops++;
  assert(owner_ops == 1)
}
inline owner_end() { owner_ops-- }

/* a holder's pop of J from the slot's deque (one atomic step against a steal, as the
 * deque's protocol makes it) */
inline pop_j(got) {
  owner_begin();
  atomic { if :: j_on_deque -> j_on_deque = false; got = true :: else -> got = false fi };
  owner_end();
  if
  :: got -> run_j()
  :: else -> skip
  fi
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
  bool ok, got;
  byte old;
  do
  :: atomic { injected -> injected = false }; run_delegate(H_ID, ok)
  :: atomic { j_injected -> j_injected = false }; run_j()
  :: pop_j(got)
  :: break
  od;
  release(H_ID, old)
}

proctype worker() {
  bool ok;
  do
  :: atomic { injected -> injected = false }; run_delegate(W_ID, ok)
  :: atomic { j_injected -> j_injected = false }; run_j()
  :: atomic { j_on_deque -> j_on_deque = false }; run_j()  /* a steal */
  :: break  /* busy for ever with other work */
  od
}

proctype spawner() {
  bool took;
  byte old;
#ifdef SPAWN_UNHELD
  took = true;
#else
  atomic {  /* S1: T1's CAS free -> held */
    if
    :: word == FREE -> word = HELD; took = true; holders++; assert(holders == 1)
    :: else -> took = false
    fi
  };
#endif
  if
  :: took ->
     owner_begin();  /* S2 */
     j_on_deque = true;
     owner_end();
#ifdef SPAWN_UNHELD
     skip
#elif defined(SPAWN_RELEASE_STORE)
     atomic { assert(holders == 1); holders--; word = FREE }
#else
     release(S_ID, old)  /* S3 */
#endif
  :: else -> j_injected = true  /* S1 failed: injected */
  fi
}

proctype caller() {
  bool took, ok, got, marked;
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
        :: ok ->
           unlock(C_ID);
           run_job();
           if  /* its wait's help loop */
           :: pop_j(got)
           :: skip
           fi;
           owner_begin();  /* T2: what is left on the deque goes to the injection queue */
           atomic { if :: j_on_deque -> j_on_deque = false; j_injected = true :: else -> skip fi };
           owner_end();
           release(C_ID, old);
           goto returned
        :: else -> unlock(C_ID); release(C_ID, old); lock(C_ID)
        fi
     :: else ->
        /* D2 mark: the CAS held -> waited, or the word read waited already; its failure
         * (the word read free: the slot freed, and may be taken again by S before C looks
         * once more) loops. `marked` is the CAS's own result, never a second read. */
#ifndef NO_MARK
        atomic { if :: word == HELD -> word = WAITED; marked = true :: word == WAITED -> marked = true :: else -> marked = false fi };
#else
        marked = (word != FREE);
#endif
        if
        :: !marked -> skip  /* the mark's CAS failed: the slot freed, loop */
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
    run caller();
    run spawner()
  };
  _nr_pr == 1;  /* every other process has ended */
  assert(ran_j == 1 || j_on_deque || j_injected)
}

/* extra_slot.pml: outside threads beside slot 0's holder, forkjoin/DESIGN.md [P-SLOT] X1-X3:
 * X1 a caller that found slot 0 held counts itself within the bound (CAS on the count) and
 * takes a spare slot (CAS of its in-use flag), else goes on to D1 (slot.pml's protocol);
 * X2 it works there as the slot's owner: its spawn goes onto the slot's deque, its wait may
 * pop it; X3 leaving, it moves what is left on the deque to the injection queue, uncounts
 * itself and frees the slot (release store). A spare thread ([P-BLOCK Spare]) takes spare
 * slots by the same CAS and pops their deques. Mirrors forkjoin/external_slot.cpp
 * (run_in_extra_slot, run_as_holder) and forkjoin/blocking.cpp (new_spare_slot).
 *
 * Scenario: slot 0 is held throughout (its holder is slot.pml's); two spare slots; a bound
 * of one extra holder. Callers C0 and C1 each take a spare slot or delegate, and in a slot
 * spawn one task and may pop it. A spare thread P takes a spare slot, pops what is there,
 * and frees it. A worker W steals from either deque and takes injected tasks, or stays busy
 * for ever.
 * Checked, exhaustively:
 *  - exactly once: each caller's job runs once; each spawned task runs at most once and,
 *    when every thread has ended, has run or is queued (on a deque or injected);
 *  - one owner: a slot's owner operations never overlap (assertion), and a new owner finds
 *    its deque empty (its last owner moved what it left);
 *  - the bound: at most one caller works in a spare slot at a time (assertion).
 * Switches (each must produce a counterexample):
 *   TAKE_BY_STORE      X1 reads the in-use flag and stores it in two steps: two owners.
 *   FREE_BEFORE_DRAIN  X3 frees the slot before moving what it left: the next owner's
 *                      operations overlap the move.
 *   COUNT_BY_STORE     X1 reads the count and stores it in two steps: the bound is exceeded.
 * Memory model: sequential consistency; each CAS is one atomic step (X1's acquire and X3's
 * release order the slot's owner-side state, which this model carries only as the
 * owner-operation count and the deque's content). The deque holds one task or none; a steal
 * is one atomic step (models/deque.pml orders it against the owner's pop).
 */

#define SLOTS 2
#define BOUND 1
#define NONE 255

bool in_use[SLOTS];
byte owner_ops[SLOTS];
byte dq[SLOTS];       /* the task on the slot's deque: caller + 1, or 0 */
byte extra;           /* callers counted in X1 */
byte inside;          /* callers working in a spare slot now */
byte ran_job[2];      /* runs of each caller's job */
byte ran_task[2];     /* runs of each caller's spawned task */
bool injected[2];     /* the task in the injection queue */
bool spawned[2];

inline owner_begin(s) {
  owner_ops[s]++;
  assert(owner_ops[s] == 1)
}
inline owner_end(s) { owner_ops[s]-- }

inline run_task(t) {
  d_step { assert(ran_task[t] == 0); ran_task[t]++ }
}

/* X1's slot take (new_spare_slot's CAS), for a caller or the spare thread */
inline take_slot(s) {
  s = NONE;
#ifdef TAKE_BY_STORE
  if
  :: !in_use[0] -> in_use[0] = true; s = 0
  :: !in_use[1] -> in_use[1] = true; s = 1
  :: else -> skip
  fi
#else
  atomic {
    if
    :: !in_use[0] -> in_use[0] = true; s = 0
    :: !in_use[1] -> in_use[1] = true; s = 1
    :: else -> skip
    fi
  }
#endif
}

/* the owner's pop of whatever task is on its deque (the spare) or of its own (a caller) */
inline pop_own(s, t) {
  owner_begin(s);
  atomic { t = dq[s]; dq[s] = 0 };
  owner_end(s);
  if
  :: t != 0 -> run_task(t - 1)
  :: else -> skip
  fi
}

/* X3's move of what is left to the injection queue */
inline drain(s) {
  owner_begin(s);
  atomic { if :: dq[s] != 0 -> injected[dq[s] - 1] = true; dq[s] = 0 :: else -> skip fi };
  owner_end(s)
}

proctype caller(byte c) {
  byte s = NONE, t;
  bool counted;
  /* X1: the count, bounded */
#ifdef COUNT_BY_STORE
  if
  :: extra < BOUND -> extra++; counted = true
  :: else -> counted = false
  fi;
#else
  atomic { if :: extra < BOUND -> extra++; counted = true :: else -> counted = false fi };
#endif
  if
  :: counted ->
     take_slot(s);
     if
     :: s == NONE -> extra--  /* every spare slot in use: D1 instead */
     :: else -> skip
     fi
  :: else -> skip
  fi;
  if
  :: s != NONE ->
     d_step { inside++; assert(inside <= BOUND) };
     /* X2: the job runs here; it spawns a task and its wait may pop it */
     d_step { assert(ran_job[c] == 0); ran_job[c]++ };
     owner_begin(s);
     assert(dq[s] == 0);  /* the last owner left nothing behind */
     dq[s] = c + 1;
     spawned[c] = true;
     owner_end(s);
     if
     :: pop_own(s, t)
     :: skip
     fi;
     inside--;
#ifdef FREE_BEFORE_DRAIN
     extra--;
     in_use[s] = false;
     drain(s)
#else
     drain(s);  /* X3 */
     extra--;
     in_use[s] = false  /* X3's release store */
#endif
  :: else ->
     /* D1-D5 (slot.pml): the job runs once, on a worker or in slot 0 */
     d_step { assert(ran_job[c] == 0); ran_job[c]++ }
  fi
}

proctype spare() {
  byte s = NONE, t;
  take_slot(s);
  if
  :: s != NONE ->
     pop_own(s, t);
     in_use[s] = false  /* [P-BLOCK Retire]'s release store */
  :: else -> skip
  fi
}

proctype worker() {
  byte t;
  do
  :: atomic { dq[0] != 0 -> t = dq[0]; dq[0] = 0 }; run_task(t - 1)  /* a steal */
  :: atomic { dq[1] != 0 -> t = dq[1]; dq[1] = 0 }; run_task(t - 1)
  :: atomic { injected[0] -> injected[0] = false }; run_task(0)
  :: atomic { injected[1] -> injected[1] = false }; run_task(1)
  :: break  /* busy for ever with other work */
  od
}

init {
  atomic {
    run caller(0);
    run caller(1);
    run spare();
    run worker()
  };
  _nr_pr == 1;  /* every other process has ended */
  assert(ran_job[0] == 1 && ran_job[1] == 1);
  assert(!spawned[0] || ran_task[0] == 1 || injected[0] || dq[0] == 1 || dq[1] == 1);
  assert(!spawned[1] || ran_task[1] == 1 || injected[1] || dq[0] == 2 || dq[1] == 2)
}

/* dock.pml: the dock, forkjoin/DESIGN.md [P-LEND] D1-D3, as used by omp/DESIGN.md
 * [P-OMP Hot] H6. Mirrors forkjoin/mailbox.cpp (dock_for_mail, wake_docked) and the order
 * of start_members in omp/core/members.cpp (every L1 post, then one wake_docked).
 *
 * Scenario: two workers W0 and W1 whose turns ended dock for their next post; a primary P
 * starts two regions: the first posts to W0 only (so W1 may be woken by a broadcast that
 * was not for it, and must dock again), the second posts to W1. The futex is modelled as
 * the kernel gives it: futex_wait compares the word and blocks in one step; a wake-all
 * releases every blocked waiter. The docks' time limit is not modelled: the protocol must
 * not rely on it for any wake-up (DESIGN.md says it only bounds the delay of pool work).
 * Checked, exhaustively: each worker takes its job exactly once, and nothing waits for
 * ever (no invalid end state: a docked worker with a job in its mailbox is always woken).
 *
 * Memory model: sequential consistency. D1's count and D2's read are separated from the
 * mailbox accesses by seq_cst fences in the code; the switches below model what each
 * missing fence (or a step moved) allows: the load done before the store is visible.
 *
 * Switches (-D), each must give a counterexample:
 *   READ_SEQ_LATE        the worker reads dock_seq_ after its re-check of the mailbox: a
 *                        broadcast between the two is missed, and the worker sleeps on the
 *                        new value with its job in its mailbox.
 *   NO_WORKER_FENCE      no fence between D1's count and the re-check: the re-check reads
 *                        the mailbox before the count is visible to the poster.
 *   NO_POSTER_FENCE      no fence between L1 and D2's read of docked_: the poster reads the
 *                        count before its post is visible to the worker.
 *   WAKE_BEFORE_BUMP     D3 wakes, then bumps: a worker between its re-check and its futex
 *                        wait is not woken, and its wait compares the old value.
 */

#define JOB 1

byte mailbox[2];     /* worker_slot::mailbox_ of W0 and W1 */
byte seq = 0;        /* pool_impl::dock_seq_ */
byte docked = 0;     /* pool_impl::docked_ */
bool blocked[2];     /* a worker inside futex_wait */
byte taken[2];       /* ghost: times each worker took its job */

/* futex_wait(dock_seq_, seen): compare and block in one step; return once woken. */
inline futex_wait(i, seen) {
  atomic {
    if
    :: seq != seen -> skip
    :: else -> blocked[i] = true
    fi
  };
  !blocked[i]
}

inline futex_wake_all() {
  atomic { blocked[0] = false; blocked[1] = false }
}

proctype worker(byte i) {
  byte seen;
  bool mail;
  do
  :: /* [P-LEND D1] */
#if defined(READ_SEQ_LATE)
     docked++;
     mail = (mailbox[i] != 0);
     seen = seq;
#elif defined(NO_WORKER_FENCE)
     seen = seq;
     mail = (mailbox[i] != 0);
     docked++;
#else
     seen = seq;
     docked++;
     mail = (mailbox[i] != 0);
#endif
     if
     :: !mail -> futex_wait(i, seen)
     :: else -> skip
     fi;
     docked--;
     if
     :: mailbox[i] != 0 -> break
     :: else -> skip /* a broadcast for another worker's post: dock again */
     fi
  od;
  /* [P-LEND L5] the idle loop takes the job */
  atomic { assert(mailbox[i] == JOB); mailbox[i] = 0; taken[i]++ }
}

/* one region: the L1 post to worker i, then D2 and D3 */
inline post_and_wake(i) {
#if defined(NO_POSTER_FENCE)
  d = docked;
  mailbox[i] = JOB;
#else
  mailbox[i] = JOB; /* [P-LEND L1] */
  d = docked;       /* [P-LEND D2] */
#endif
  if
  :: d != 0 -> /* [P-LEND D3] */
#if defined(WAKE_BEFORE_BUMP)
     futex_wake_all();
     seq++
#else
     seq++;
     futex_wake_all()
#endif
  :: else -> skip
  fi
}

proctype primary() {
  byte d;
  post_and_wake(0);
  post_and_wake(1)
}

init {
  atomic {
    run worker(0);
    run worker(1);
    run primary()
  };
  (_nr_pr == 1);
  assert(taken[0] == 1 && taken[1] == 1)
}

/* join.pml: join frames and task_group children, forkjoin/DESIGN.md [P-JOIN] (J1-J5,
 * G1-G4): a frame or group outlives every access to it, and a waiter never returns before
 * the results it waited for are visible to it; no lost wake-up on the latch.
 * Mirrors include/forkjoin/detail/worker_api.hpp (join_frame_base: share, probe, set,
 * try_announce_sleep; count_latch: done, finish_child, try_announce_sleep),
 * include/forkjoin/join.hpp (join_in_worker, join_frame::execute_stolen), include/forkjoin/task_group.hpp
 * (group_job::execute_body, task_group::finish_child), forkjoin/worker.cpp (help_until,
 * wait_for_join, wait_for_group, wake_worker, wake_group_waiter), the parts of
 * forkjoin/sleep.cpp a latch waiter uses (fall_asleep with the latch as its first ReadJob
 * source, wake_specific) and include/forkjoin/pool.hpp (run_job: J5).
 *
 * Scenarios (-D), each exhaustive as stated:
 *  - default (JOIN): the owner pushes g in its private form and runs f; meanwhile g stays
 *    private, or is published (a thief asked: [P-JOIN Share] constructs the latch, then
 *    P3/P4), or a wait inside f pops it (Share, then the owner runs it as a job and sets
 *    its latch). After f the owner takes g back unshared (the latch never constructed, g
 *    called directly), pops it back from the public part, or, if a thief stole it, helps
 *    until the latch is set: J3 probes, J4 announcement, then either sleep
 *    through [P-SLEEP] with the latch as a ReadJob source (wake_specific from J2) or, in an
 *    isolated region, [P-ISO Park] on its own futex word (wake_isolated from J2). One thief.
 *  - GROUP: a task_group with two children on the waiter's deque; two thieves, and the
 *    waiter pops what they leave (G1-G4, the waiter's index in the count word).
 *  - EXTERNAL: J5, a thread outside the pool blocked on run_job's mutex and condition
 *    variable while a worker runs the job.
 * Frames: `alive` is cleared when the waiter returns (the frame or group is gone); every
 * access to it by another thread asserts `alive`.
 * Visibility: sequential consistency for the latch words; the result written by the thief
 * (or child) is visible to the waiter only through an acquire load that reads the value its
 * release wrote (or a later one of the same release sequence: every G2 is an RMW). The
 * waiter records which results it synchronised with; at return it reads each of the others
 * as either value (a stale read), and asserts it read the result.
 *
 * Switches (-D):
 *   SHARE_AFTER_PUBLISH  [P-JOIN Share] constructs the latch after the publication instead
 *                     of before P3: a thief can reach a latch that does not exist yet (and
 *                     the late construction erases its J2).
 *   ANNOUNCE_RELAXED  the announcement's loads (J4, G4: the first load and the CAS's failure
 *                     load) are relaxed: an announcement that finds the latch done returns
 *                     without acquire, so a result can be stale. The historical bug ("a
 *                     waiter that returned without acquire", DESIGN [P-JOIN] G4).
 *   J1_AFTER_J2       the thief reads the waiter's slot from the frame after J2 (GROUP: G1
 *                     after G2): the frame may already be gone.
 *   J5_FLAG_OUTSIDE   the executor sets run_job's flag before taking the mutex: the waiter
 *                     can return and free the frame before the executor is done with it.
 *   ISO_PARKED_AFTER_J4  the isolated waiter stores iso_parked_ after its announcement,
 *                     where J4's release no longer orders it: its next loads may be performed
 *                     before the store is visible, the setter's J2 finds no flag and bumps
 *                     nothing, and the waiter sleeps for ever.
 */

#define UNSET 0
#define SET 1
#define SLEEPING 2
#define UNBUILT 3 /* the latch word before [P-JOIN Share] constructs it */

#ifdef GROUP
#define PROBE probe_group()
#else
#define PROBE probe_join()
#endif

bool alive = true; /* the join frame / task_group / run_job frame */
byte mtx = 0;      /* the sleep controller's mutex (one-step critical sections) */
bool listed = false;    /* the waiter is in the sleeper list */
bool wake_flag = false; /* its futex word */

/* wake_specific(waiter's slot): under the mutex, if it is listed. Touches the slot and the
 * sleeper list only, which live as long as the pool. */
inline wake_specific() {
  atomic {
    mtx == 0 ->
    if
    :: listed -> listed = false; wake_flag = true
    :: else -> skip
    fi
  }
}

/* The waiter's fall_asleep(wanted = !latch done): IncSleepers under the mutex, SleepFence,
 * ReadJob (the latch first: an acquire load), then cancel or park. `probe` is the latch's
 * acquire test (PROBE); it sets `cancel` and synchronises when it reads the latch done. */
inline fall_asleep() {
  atomic { mtx == 0 -> wake_flag = false; listed = true }; /* [P-SLEEP IncSleepers] */
  /* [P-SLEEP SleepFence] */
  PROBE; /* [P-SLEEP ReadJob] the latch it waits for; nothing else is visible here */
  if
  :: cancel -> atomic { mtx == 0 -> listed = false; cancel = false }
  :: else -> wake_flag /* parked: not an end state, a waiter left here is a lost wake-up */
  fi
}

/* The waiter returns: the frame is gone; it reads each result, fresh only if synchronised. */
inline read_result(synced, value) {
  if
  :: synced -> r = value
  :: !synced -> if
    :: r = value
    :: r = 0 /* stale */
    fi
  fi;
  assert(r == 1) /* the waiter sees the result it waited for */
}

#if !defined(GROUP) && !defined(EXTERNAL)
/* ---------------------------------------------------------------- join: J1-J4 */
byte state = UNBUILT; /* join_frame_base::state_, constructed by share() */
bool g_public = false; /* g's frame in the public part of the owner's deque */
bool iso_parked = false; /* worker_slot::iso_parked_ (the owner's slot) */
byte iso_seq = 0;        /* worker_slot::iso_seq_, the isolated waiter's futex word */
byte res = 0; /* g's result, written by whoever runs g */

inline probe_join() { /* [P-JOIN J3] probe(): acquire load, pairs with J2 */
  atomic {
    assert(state != UNBUILT);
    if
    :: state == SET -> cancel = true; sync = true
    :: else -> cancel = false
    fi
  }
}

/* The owner of the join frame (worker 0): push g's private form, run f, then take g back
 * or wait for its latch (take_back_unshared || reclaim_join_job, wait_for_join,
 * help_until). Its wait is isolated or not ([P-ISO Park]: an isolated waiter parks on its
 * latch only). */
active proctype owner() {
  bool sync = false, cancel, ok, iso, priv = true;
  byte r, seq;
  if
  :: iso = true
  :: iso = false
  fi;
  /* while f runs */
  if
  :: /* publish ([P-POST Publish]: a thief asked) */
#ifndef SHARE_AFTER_PUBLISH
    state = UNSET; /* [P-JOIN Share] before P3's release fence, which S3's acquire pairs with */
    atomic { priv = false; g_public = true } /* [P-DEQUE P3/P4] */
#else
    atomic { priv = false; g_public = true };
    state = UNSET
#endif
  :: /* a wait inside f pops g privately: Share, then g runs as a job here (J2 by the owner) */
    state = UNSET;
    priv = false;
    res = 1;
    atomic { state = SET; sync = true }
  :: skip /* g stays private */
  fi;
  /* f returned */
  if
  :: priv -> res = 1; sync = true; goto leave /* [P-DEQUE Reclaim] taken back: g called directly */
  :: else -> skip
  fi;
  if
  :: atomic { g_public -> g_public = false; res = 1; sync = true }; /* popped back, g runs inline */
    goto leave
  :: atomic { !g_public -> skip } /* a thief took it */
  fi;
  do
  :: /* help_until: nothing else to pop or steal here; the ladder ends, then
      * if (done() || !announce()) return; */
#ifndef ISO_PARKED_AFTER_J4
    if
    :: iso -> iso_parked = true /* [P-ISO Park] relaxed, ordered by J4's release */
    :: else -> skip
    fi;
#endif
    probe_join();
    if
    :: cancel -> cancel = false; iso_parked = false; goto leave
    :: else -> skip
    fi;
    atomic { /* [P-JOIN J4] CAS unset -> sleeping, acq_rel; failure load acquire */
      assert(state != UNBUILT);
      if
      :: state == UNSET -> state = SLEEPING; ok = true
      :: state == SLEEPING -> ok = true /* announced before: expected == sleeping */
      :: state == SET -> ok = false;
#ifndef ANNOUNCE_RELAXED
        sync = true
#else
        skip
#endif
      fi
    };
    if
    :: !ok -> iso_parked = false; goto leave
    :: else -> skip
    fi;
    if
    :: iso -> /* park_isolated: acquire-load iso_seq, re-check the latch, futex-wait */
#ifdef ISO_PARKED_AFTER_J4
      /* the flag stored after J4, unordered: the loads below may be performed first */
      seq = iso_seq;
      probe_join();
      iso_parked = true;
#else
      seq = iso_seq;
      probe_join();
#endif
      do
      :: cancel -> cancel = false; break
      :: !cancel ->
        iso_seq != seq; /* futex_wait(iso_seq, seq): returns once the word changed */
        seq = iso_seq;
        probe_join()
      od;
      iso_parked = false;
      goto leave
    :: else -> fall_asleep() /* woken or cancelled: help and probe again */
    fi
  od;
leave:
  alive = false; /* join returns: the frame is gone */
  read_result(sync, res)
}

/* The thief: runs g, then set(): J1, J2, and wake_worker if the owner announced sleep. */
active proctype thief() {
  byte old;
  if
  :: atomic { g_public -> g_public = false };
    res = 1; /* g's body: its result, before J2 */
#ifndef J1_AFTER_J2
    assert(alive); /* [P-JOIN J1] the runner's last read of the frame before J2 */
#endif
    atomic { assert(alive); assert(state != UNBUILT); old = state; state = SET }; /* [P-JOIN J2] acq_rel exchange */
#ifdef J1_AFTER_J2
    assert(alive); /* the frame read after J2: it may be gone */
#endif
    if
    :: old == SLEEPING ->
      wake_specific(); /* wake_worker: the slot, not the frame */
      if /* wake_isolated: [P-ISO Park] J2's acquire read the announcement, hence the flag */
      :: iso_parked -> iso_seq++ /* release, then futex wake */
      :: else -> skip
      fi
    :: else -> skip
    fi
  :: atomic { !g_public -> skip } /* the owner took it back */
  fi
}

#elif defined(GROUP)
/* ---------------------------------------------------------------- task_group: G1-G4 */
#define CHILD 4 /* count_latch::k_child; the low bits hold the waiter's index + 1 */
#define W 1     /* the waiter's slot index (0) + 1 */
byte gstate = 2 * CHILD; /* two children added (add_child), nobody asleep */
bool pub[2] = true;      /* the children on the waiter's deque, public */
byte gres[2];            /* each child's result */
bool g2done[2];          /* ghost: child i did G2 */

/* An acquire load that reads the count word synchronises with every G2 before it (all RMWs:
 * one release sequence). */
inline sync_all() {
  synced[0] = synced[0] || g2done[0];
  synced[1] = synced[1] || g2done[1]
}

/* group_job::execute_body then task_group::finish_child. */
inline run_child(i) {
  gres[i] = 1; /* the child's body */
#ifndef J1_AFTER_J2
  assert(alive); /* [P-JOIN G1] pool_ read before G2 */
#endif
  atomic { assert(alive); prev = gstate; gstate = gstate - CHILD; g2done[i] = true }; /* [P-JOIN G2] acq_rel */
#ifdef J1_AFTER_J2
  assert(alive); /* pool_ read after G2: the group may be gone */
#endif
  if
  :: prev / CHILD == 1 && prev % CHILD != 0 -> prev = 0; wake_specific() /* wake_group_waiter */
  :: else -> prev = 0
  fi
}

inline probe_group() { /* [P-JOIN G3] done(): acquire load, pairs with G2 */
  atomic {
    if
    :: gstate < CHILD -> cancel = true; sync_all()
    :: else -> cancel = false
    fi
  }
}

/* task_group::wait on worker 0: help_until(done, try_announce_sleep(0)). */
active proctype waiter() {
  bool synced[2], cancel, ok;
  byte s, r, prev;
  do
  :: /* help: pop a child from its own deque and run it (its writes are its own) */
    if
    :: atomic { pub[0] -> pub[0] = false }; run_child(0); synced[0] = true
    :: atomic { pub[1] -> pub[1] = false }; run_child(1); synced[1] = true
    :: skip /* nothing left, or the ladder ended */
    fi;
    probe_group(); /* if (done() || !announce()) return; */
    if
    :: cancel -> cancel = false; goto leave
    :: else -> skip
    fi;
    /* [P-JOIN G4] try_announce_sleep: a load, then CAS the index in; acquire on every load */
    atomic {
      s = gstate;
#ifndef ANNOUNCE_RELAXED
      sync_all()
#else
      skip
#endif
    };
    do
    :: s < CHILD -> ok = false; break /* every child finished: return */
    :: s >= CHILD && s % CHILD != 0 -> ok = true; break
    :: s >= CHILD && s % CHILD == 0 ->
      atomic {
        if
        :: gstate == s -> gstate = s + W; ok = true /* acq_rel */
        :: else -> s = gstate; ok = false;        /* failure load */
#ifndef ANNOUNCE_RELAXED
          sync_all()
#else
          skip
#endif
        fi
      };
      if
      :: ok -> break
      :: else -> skip
      fi
    od;
    s = 0;
    if
    :: !ok -> goto leave
    :: else -> skip
    fi;
    fall_asleep()
  od;
leave:
  alive = false; /* wait returns; the group may be destroyed */
  read_result(synced[0], gres[0]);
  read_result(synced[1], gres[1])
}

active [2] proctype thief() {
  byte prev, i = _pid - 1;
  if
  :: atomic { pub[i] -> pub[i] = false }; run_child(i)
  :: atomic { !pub[i] -> skip }
  fi
}

#else
/* ---------------------------------------------------------------- run_job: J5 */
byte m = 0;          /* run_job::mutex_ (in the frame) */
bool fdone = false;  /* run_job::done_ */
bool waiting = false, notified = false; /* run_job::cv_ */
byte res = 0;

/* pool::run from outside: the job was injected; wait_blocking() on the frame's mutex. */
active proctype caller() {
  byte r;
  atomic { m == 0 -> m = 1 };
  do
  :: fdone -> break
  :: !fdone -> /* cv_.wait: unlock and wait in one step, relock when notified (or spuriously) */
    atomic { m = 0; waiting = true };
    if
    :: notified
    :: skip /* a spurious wake-up */
    fi;
    atomic { m == 0 -> m = 1; waiting = false; notified = false }
  od;
  m = 0;
  alive = false; /* run returns: the frame is gone */
  r = res;       /* the executor's writes before its unlock, seen after this thread's lock */
  assert(r == 1)
}

/* The worker that runs the injected job: execute_fn. */
active proctype executor() {
  res = 1; /* the job's result */
#ifdef J5_FLAG_OUTSIDE
  atomic { assert(alive); fdone = true };
  atomic { m == 0 -> assert(alive); m = 2 };
#else
  atomic { m == 0 -> assert(alive); m = 2 }; /* [P-JOIN J5] the waiter re-locks before it returns */
  atomic { assert(alive); fdone = true };
#endif
  atomic { assert(alive); notified = waiting || notified }; /* notify_one */
  atomic { assert(alive); m = 0 }                          /* unlock: the executor's last access */
}
#endif

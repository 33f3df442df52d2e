/* sleep.pml: posting work and falling asleep, forkjoin/DESIGN.md [P-POST] (PushJob,
 * PushFence, ReadSleepers, Internal, Publish) and [P-SLEEP] (IncSleepers, SleepFence,
 * ReadJob, LastSearcher), with [INV-NOLOSS], [INV-WAKE], [INV-SEARCH] and [INV-COUNT].
 * Mirrors forkjoin/sleep.cpp (try_start_searching, stop_searching, fall_asleep, wake_one,
 * remove_locked, notify_external_work, notify_internal_work), the worker's top-level loop
 * in forkjoin/worker.cpp (worker_main, search_until_leaving, leave_idle's stop_searching,
 * any_work_visible) and pool_impl::inject (forkjoin/pool.cpp).
 *
 * Scenario: N workers (background threads, launched searching) and one submitter outside
 * the pool that injects JOBS jobs. A job, when run, may spawn one child onto its worker's
 * deque (published, as a push does while anyone is idle) at most SPAWNS times in all, and
 * then either returns (its worker pops its own deque before it goes idle) or calls
 * blocking() and waits there until the child ran ([P-BLOCK Begin], no spare thread).
 * Deques are counters of public jobs here (deque.pml checks the deque). An idle worker
 * makes one sweep (steal from any deque or take an injected job, or find nothing) and then
 * falls asleep: spinning longer only gives it more chances to find work, and the
 * protocol's safety rests on ReadJob, not on the sweep.
 * Checked, exhaustively for N = 3 workers and 2 jobs (1 spawn):
 *  - [INV-NOLOSS]: whenever no thread can move (everybody parked, the submitter done), no
 *    job is left in the injector or a deque (the `timeout` check below);
 *  - [INV-COUNT]: the idle word's counts equal the threads counted searching and the
 *    threads in the sleeper list, at every step (ghosts `counted`, `listed`), and every
 *    removal from the list makes the sleeper a searcher;
 *  - [INV-WAKE] and [INV-SEARCH]: a wake-up is decided only when nobody searches and
 *    somebody sleeps, and the top-level loop starts searching only below the cap.
 *
 * Memory model: sequential consistency, except the two fences of the Dekker pair, whose
 * absence is modelled as the store-load reordering they forbid:
 *   DROP_PUSHFENCE   the submitter's ReadSleepers load is performed before PushJob's size
 *                    store (inside the injector's critical section: a load can move above
 *                    the unlock's release but not above the lock): the job is lost.
 *   DROP_SLEEPFENCE  the sleeper's ReadJob load of the injector's size is performed before
 *                    IncSleepers' RMW (inside the controller's critical section): lost.
 * [P-POST Internal]: a worker's push has no fence, so its relaxed read of the idle word may
 * come before or after the push becomes visible; both orders are explored, and no job is lost
 * because the pusher pops its own deque before it idles.
 *   BLOCK_NO_FENCE   a worker about to block notifies as its own push does (relaxed read
 *                    of the idle word, no fence), although it will not run the jobs it
 *                    published: a sleeper's ReadJob and its read miss each other and the
 *                    child waits with everyone parked (the runtime did this until
 *                    begin_blocking got PushFence).
 * Other switches:
 *   CANCEL_UNLISTED  fall_asleep's cancel removes the sleeper from the list even when a
 *                    waker already did (no `listed` test): [INV-COUNT] breaks.
 *
 * Reduction: a critical section of the controller's mutex becomes one step when it holds one
 * access to state read outside the mutex (the lock is a right mover, the unlock a left
 * mover); wake_one holds two (the idle word's load and RMW) and is two steps.
 */

#ifndef N
#define N 3
#endif
#ifndef JOBS
#define JOBS 2
#endif
#ifndef SPAWNS
#define SPAWNS 1
#endif
#define SCAP 1 /* searcher_cap_ = max(1, N / 2) [INV-SEARCH], 1 for N = 3 */

/* the idle word (idle_count): both halves change in one RMW */
byte searching = 0;
byte sleeping = 0;
byte mtx = 0;          /* sleep_controller::mutex_: 0 free, else owner's pid + 1 */
bool listed[N];        /* sleeper::listed_ (under mtx) */
bool wake_flag[N];     /* sleeper::wake_flag_ (set under mtx, read by the sleeper) */
byte inj = 0;          /* the injector's jobs and its size word */
byte dq[N];            /* each worker's public jobs */
byte spawned = 0;      /* children spawned so far */

bool counted[N];       /* ghost: the thread is counted in `searching` */
byte ran = 0;          /* ghost: jobs run */
byte kids_ran = 0;     /* ghost: spawned children run */

#define COUNTED (counted[0] + counted[1] + counted[2])
#define LISTED (listed[0] + listed[1] + listed[2])
/* [INV-COUNT]: the idle word says exactly who searches and who sleeps */
#define COUNTS_OK assert(searching == COUNTED && sleeping == LISTED && searching <= N && sleeping <= N)

/* remove_locked(s): leave the list; sleeping -1, searching +1 in one seq_cst RMW. */
inline remove_locked(s) {
  assert(listed[s] && !counted[s]);
  listed[s] = false;
  sleeping--;
  searching++;
  counted[s] = true;
  COUNTS_OK
}

/* wake_one: under the mutex, re-check [INV-WAKE], take a sleeper, set its flag. */
inline wake_one() {
  atomic {
    mtx == 0 -> mtx = _pid + 1;
    want = (searching == 0 && sleeping != 0 && LISTED > 0)
  };
  if
  :: want ->
    atomic {
      assert(mtx == _pid + 1);
      if /* sleepers_.back(): any listed sleeper */
      :: listed[0] -> tgt = 0
      :: listed[1] -> tgt = 1
      :: listed[2] -> tgt = 2
      fi;
      remove_locked(tgt);
      wake_flag[tgt] = true; /* wake_locked: release store, then futex wake */
      mtx = 0;
      want = false;
      tgt = 0
    }
  :: else -> mtx = 0
  fi
}

/* stop_searching: searching -1 (seq_cst RMW); the last searcher wakes one [P-SLEEP LastSearcher]. */
inline stop_searching() {
  if
  :: srch ->
    atomic {
      srch = false;
      assert(counted[me] && searching >= 1);
      last = (searching == 1 && sleeping != 0);
      searching--;
      counted[me] = false;
      COUNTS_OK
    };
    if
    :: last -> last = false; wake_one()
    :: else -> skip
    fi
  :: else -> skip
  fi
}

/* fall_asleep(me): IncSleepers, SleepFence, ReadJob, then park or cancel. */
inline fall_asleep() {
#ifndef DROP_SLEEPFENCE
  atomic {
    mtx == 0 ->
    wake_flag[me] = false; /* under the mutex: a stale wake cannot reach this sleep */
    listed[me] = true;
    sleeping++; /* [P-SLEEP IncSleepers] one seq_cst RMW: sleeping +1, searching -1 if it searched */
    if
    :: srch -> assert(counted[me]); searching--; counted[me] = false
    :: else -> skip
    fi;
    srch = false;
    COUNTS_OK
  };
  /* [P-SLEEP SleepFence] seq_cst fence: IncSleepers is visible before ReadJob loads */
  cancel = (inj != 0); /* [P-SLEEP ReadJob] the monitor: the injector's size, ... */
#else
  atomic {
    mtx == 0 -> mtx = _pid + 1;
    wake_flag[me] = false;
    listed[me] = true;
    cancel = (inj != 0) /* [P-SLEEP ReadJob] performed before IncSleepers: no SleepFence */
  };
  atomic {
    sleeping++; /* [P-SLEEP IncSleepers] */
    if
    :: srch -> searching--; counted[me] = false
    :: else -> skip
    fi;
    srch = false;
    COUNTS_OK;
    mtx = 0
  };
#endif
  /* ... then every other deque's public part (has_public_work, relaxed loads) */
  if
  :: !cancel && me != 0 -> cancel = (dq[0] != 0)
  :: else -> skip
  fi;
  if
  :: !cancel && me != 1 -> cancel = (dq[1] != 0)
  :: else -> skip
  fi;
  if
  :: !cancel && me != 2 -> cancel = (dq[2] != 0)
  :: else -> skip
  fi;
  if
  :: cancel -> /* leave the list under the mutex, unless a waker already counted it searching */
    atomic {
      mtx == 0 ->
#ifndef CANCEL_UNLISTED
      if
      :: listed[me] -> remove_locked(me)
      :: else -> skip
      fi;
#else
      listed[me] = false;
      sleeping--;
      searching++;
      counted[me] = true;
      COUNTS_OK;
#endif
      srch = true;
      cancel = false
    }
  :: else ->
end_park:
    wake_flag[me] -> srch = true /* parked until the waker's release store; resumes as a searcher */
  fi
}

/* Run a job: it may spawn a child onto this worker's deque ([P-POST Internal], Publish),
 * and then either return or block until the child ran ([P-BLOCK Begin]). */
inline run_job() {
  ran++;
  if
  :: spawned < SPAWNS ->
    spawned++;
    if /* no fence: the idle word may be read before the push is visible, or after */
    :: dq[me]++; want = (searching == 0 && sleeping != 0)
    :: want = (searching == 0 && sleeping != 0); dq[me]++
    fi;
    if /* notify_internal_work */
    :: want -> want = false; wake_one()
    :: else -> skip
    fi;
    if
    :: skip /* the job goes on and returns; its worker then pops its own deque */
    :: /* [P-BLOCK Begin] the job calls blocking() and waits there until the child ran. It
        * published (above) and, since this worker blocks instead of running its jobs, it
        * posts as from outside: [P-POST PushFence], ReadSleepers. No spare thread here
        * (max_spare_threads = 0, or none could start). */
      skip; /* (so that this option is chosen before it blocks) */
#ifndef BLOCK_NO_FENCE
      want = (searching == 0 && sleeping != 0);
      if
      :: want -> want = false; wake_one()
      :: else -> skip
      fi;
#endif
      (kids_ran == spawned) /* f blocks until the child ran */
    fi
  :: skip
  fi
}

proctype worker(byte me) {
  bool srch = true; /* start_searching_at_launch */
  bool cancel, want, last, got;
  byte tgt, v;
  do
  :: atomic { dq[me] > 0 -> dq[me]--; kids_ran++ }; /* worker_main: pop its own deque first */
    run_job()
  :: atomic { dq[me] == 0 -> skip }; /* find_work_idle */
    if /* try_start_searching: refused at the cap [INV-SEARCH] */
    :: srch -> skip
    :: atomic { !srch && searching < SCAP -> searching++; srch = true; counted[me] = true; COUNTS_OK }
    :: atomic { !srch && searching >= SCAP -> skip };
      fall_asleep() /* past the cap: straight to sleep, ReadJob is the one sweep */
    fi;
    do
    :: /* one sweep: another deque, or the injector (size read relaxed, then under its mutex) */
      if
      :: atomic { me != 0 && dq[0] > 0 -> dq[0]--; kids_ran++; got = true }
      :: atomic { me != 1 && dq[1] > 0 -> dq[1]--; kids_ran++; got = true }
      :: atomic { me != 2 && dq[2] > 0 -> dq[2]--; kids_ran++; got = true }
      :: atomic { inj > 0 -> inj--; got = true }
      :: skip /* found nothing (or missed what appeared behind it) */
      fi;
      if
      :: got -> got = false; break
      :: else -> fall_asleep() /* the ladder ends: sleep, then search again */
      fi
    od;
    stop_searching(); /* leave_idle */
    run_job()
  od
}

/* pool_impl::inject from outside the pool: PushJob, PushFence, ReadSleepers. */
active proctype submitter() {
  bool want, last, srch = false;
  byte tgt, n = 0;
  do
  :: n < JOBS ->
    n++;
#ifndef DROP_PUSHFENCE
    inj++; /* [P-POST PushJob] under the injector's mutex */
    /* [P-POST PushFence] seq_cst fence */
    want = (searching == 0 && sleeping != 0); /* [P-POST ReadSleepers] one load of the idle word */
#else
    want = (searching == 0 && sleeping != 0); /* [P-POST ReadSleepers] before PushJob's store */
    inj++;                                     /* [P-POST PushJob] */
#endif
    if
    :: want -> want = false; wake_one()
    :: else -> skip
    fi
  :: else -> break
  od
}

init {
  atomic {
    byte i = 0;
    do
    :: i < N -> searching++; counted[i] = true; run worker(i); i++
    :: else -> break
    od
  }
}

/* [INV-NOLOSS] when nothing can move, every job has run. */
active proctype noloss() {
  timeout -> assert(inj == 0 && dq[0] == 0 && dq[1] == 0 && dq[2] == 0 && ran == JOBS + spawned)
}

/* qrw.pml: queuing_rw_mutex, tbb/DESIGN.md [P-TBB QRW] (Q1-Q6, G, R1, L, D1-D4, U1-U3,
 * DG). Mirrors tbb/queuing_rw_mutex.cpp (acquire, become_reader, become_writer,
 * release_writer, release_reader, upgrade, downgrade).
 *
 * Scenario: three threads take one mutex once each, in any interleaving:
 *   A a reader that may upgrade (U1-U3) before it releases;
 *   B a writer that may downgrade (DG) before it releases;
 *   C a reader (or, with -DTWO_WRITERS, a writer).
 * Each node is the thread's scoped_lock; A's second acquisition after a failed upgrade (U3)
 * uses a node id of its own (node 4), so that an access to A's first node after it left the
 * queue is caught although the real program reuses the memory.
 * Checked, exhaustively:
 *  - exclusion: a writer is alone in the critical section, a reader meets no writer;
 *  - an upgrade that returns true (kept) saw no writer enter since its read began;
 *  - lifetime: no thread touches a node (its fields or its internal lock) once the node's
 *    owner is done with its release (`gone`, set with the release's last shared step);
 *  - no deadlock, no lost grant: every thread ends (an invalid end state otherwise).
 * Switches (each must produce a counterexample):
 *   ADMIT_BEHIND_UPGRADER  Q3 admits a reader behind an upgrading node as if it were an
 *                          active reader (a reader that does not wait for its predecessor's
 *                          upgrade): the upgrader becomes the writer with that reader behind
 *                          it, and leaves as a writer (R1, no locks) while the reader, leaving
 *                          too, holds its lock: a node touched after its owner left.
 *   WRITER_DROPS_NOTIFY    Q6 makes a writer active with a plain store of its state: a
 *                          reader that queued behind it and asked for a grant is forgotten
 *                          when the writer downgrades; it waits for ever.
 *   NO_CLAIM               U1 does not claim the tail: the upgrade is always in place, with
 *                          an admitted reader still behind it (the same failure as above).
 *   D3_KEEPS_PRED_NEXT     D3 leaves the predecessor's next pointing at the leaving node
 *                          when it makes the predecessor the tail: the predecessor, leaving
 *                          later, takes it for its successor and locks a node that is gone.
 *   D4_UNLOCKED_SUCC       D4 relinks the successor without its lock: a successor that read
 *                          its prev before tries the lock of a node that is gone.
 * Memory model: sequential consistency (each atomic {} is one atomic step); the orderings
 * that publish the fields are argued in DESIGN.md.
 */

#define NIL 0
#define NODES 5 /* 1..4 */

/* node kinds (my_state without the notify bit) */
#define RW 1 /* reader waiting */
#define RA 2 /* active reader */
#define WW 3 /* writer waiting */
#define WA 4 /* active writer */
#define UP 5 /* upgrading */
#define NOTIFY 8
#define KIND 7

byte tail;
byte prev[NODES];
byte next[NODES];
byte st[NODES];
bit going[NODES];
bit lk[NODES];
bool gone[NODES];

byte readers;   /* in the critical section */
byte writers;
byte wepoch;    /* writer entries so far */
byte finished;

/* another thread's access to node n: n must still be in use */
#define live(n) assert(!gone[n])

/* [P-TBB QRW G] */
inline grant(n) {
  atomic { live(n); going[n] = 1 }
}

/* [P-TBB QRW Q6] */
inline become_reader(me, old, s) {
  atomic { old = st[me]; st[me] = RA };
  if
  :: (old & NOTIFY) != 0 ->
     (next[me] != NIL);
     s = next[me];
     grant(s)
  :: else -> skip
  fi
}

inline become_writer(me) {
#ifdef WRITER_DROPS_NOTIFY
  st[me] = WA
#else
  atomic { st[me] = WA | (st[me] & NOTIFY) }
#endif
}

/* Q1-Q6 */
inline acquire(me, write, pred, ps, admitted, old, s) {
  prev[me] = NIL; next[me] = NIL; going[me] = 0; lk[me] = 0;
  st[me] = (write -> WW : RW);
  atomic { pred = tail; tail = me };                 /* Q1 */
  if
  :: pred == NIL -> skip                              /* Q2 */
  :: else ->
     prev[me] = pred;
     admitted = false;
     if
     :: !write ->
        do                                            /* Q3 */
        :: atomic {
             live(pred);
             ps = st[pred];
             if
             :: (ps & KIND) == RA -> admitted = true; break
#ifdef ADMIT_BEHIND_UPGRADER
             :: (ps & KIND) == UP -> admitted = true; break
#endif
             :: else ->
                if
                :: st[pred] == ps -> st[pred] = ps | NOTIFY; break
                :: else -> skip                       /* CAS failed: read again */
                fi
             fi
           }
        od
     :: else -> skip
     fi;
     atomic { live(pred); next[pred] = me };          /* Q4 */
     if
     :: !admitted -> (going[me] == 1)                 /* Q5 */
     :: else -> skip
     fi
  fi;
  if
  :: write -> become_writer(me)
  :: else -> become_reader(me, old, s)
  fi
}

/* R1 */
inline release_writer(me, s, ok) {
  s = next[me];
  if
  :: s == NIL ->
     atomic { ok = (tail == me); if :: ok -> tail = NIL; gone[me] = true :: else -> skip fi };
     if
     :: !ok -> (next[me] != NIL); atomic { s = next[me]; gone[me] = true }
     :: else -> skip
     fi
  :: else -> gone[me] = true
  fi;
  if
  :: s != NIL ->
     atomic { live(s); prev[s] = NIL };
     grant(s)
  :: else -> skip
  fi
}

/* D1-D4 */
inline release_reader(me, p, s, ok, k, mw) {
  do
  :: atomic { lk[me] == 0 -> lk[me] = 1 };           /* D1 */
     p = prev[me];
     ok = true;
     if
     :: p != NIL ->                                   /* D2: only tried */
        atomic { live(p); if :: lk[p] == 0 -> lk[p] = 1 :: else -> ok = false fi }
     :: else -> skip
     fi;
     if
     :: !ok -> lk[me] = 0                             /* back off, retry */
     :: else ->
        s = next[me];                                 /* D3 */
        if
        :: s == NIL ->
#ifndef D3_KEEPS_PRED_NEXT
           if :: p != NIL -> atomic { live(p); next[p] = NIL } :: else -> skip fi;
#endif
           atomic { ok = (tail == me); if :: ok -> tail = p :: else -> skip fi };
           if
           :: ok ->
              if :: p != NIL -> atomic { live(p); lk[p] = 0 } :: else -> skip fi;
              atomic { lk[me] = 0; gone[me] = true };
              break
           :: else ->
              if :: p != NIL -> atomic { live(p); next[p] = me } :: else -> skip fi;
              (next[me] != NIL);
              s = next[me]
           fi
        :: else -> skip
        fi;
#ifndef D4_UNLOCKED_SUCC
        atomic { lk[s] == 0 -> live(s); lk[s] = 1 }; /* D4 towards the tail */
#endif
        atomic { live(s); prev[s] = p };
        if :: p != NIL -> atomic { live(p); next[p] = s } :: else -> skip fi;
        atomic { live(s); k = st[s] & KIND };
        mw = (p == NIL && (k == WW || k == UP));
#ifndef D4_UNLOCKED_SUCC
        atomic { live(s); lk[s] = 0 };
#endif
        if :: p != NIL -> atomic { live(p); lk[p] = 0 } :: else -> skip fi;
        atomic { lk[me] = 0; gone[me] = true };
        if :: mw -> grant(s) :: else -> skip fi;
        break
     fi
  od
}

inline enter_reader() {
  atomic { assert(writers == 0); readers++ }
}
inline leave_reader() {
  atomic { readers-- }
}
inline enter_writer() {
  atomic { assert(writers == 0 && readers == 0); writers++; wepoch++ }
}
inline leave_writer() {
  atomic { writers-- }
}

/* A: a reader that may upgrade. node 1; node 4 after a failed upgrade. */
proctype upgrader() {
  byte me = 1, pred, ps, old, s, p, k, e0;
  bool admitted, ok, mw, claimed, head;
  acquire(me, false, pred, ps, admitted, old, s);
  enter_reader();
  e0 = wepoch;
  leave_reader();  /* still a reader in the queue: the check moves to the writer's entry */
  if
  :: true ->                                          /* U1-U3 */
     atomic { lk[me] == 0 -> lk[me] = 1 };
     going[me] = 0;
     st[me] = UP;
#ifdef NO_CLAIM
     claimed = true;
#else
     atomic { claimed = (tail == me) };               /* CAS tail me -> me */
#endif
     if
     :: claimed ->                                    /* U2 */
        head = (prev[me] == NIL);
        lk[me] = 0;
        if :: !head -> (going[me] == 1) :: else -> skip fi;
        become_writer(me);
        assert(wepoch == e0);                         /* kept: no writer came in between */
        enter_writer();
        leave_writer();
        release_writer(me, s, ok)
     :: else ->                                       /* U3 */
        atomic { old = st[me]; st[me] = RA };
        lk[me] = 0;
        if
        :: (old & NOTIFY) != 0 -> (next[me] != NIL); s = next[me]; grant(s)
        :: else -> skip
        fi;
        release_reader(me, p, s, ok, k, mw);
        me = 4;
        acquire(me, true, pred, ps, admitted, old, s);
        enter_writer();
        leave_writer();
        release_writer(me, s, ok)
     fi
  :: true -> release_reader(me, p, s, ok, k, mw)
  fi;
  finished++
}

/* B: a writer that may downgrade. node 2 */
proctype downgrader() {
  byte me = 2, pred, ps, old, s, p, k;
  bool admitted, ok, mw;
  acquire(me, true, pred, ps, admitted, old, s);
  enter_writer();
  if
  :: true ->                                          /* DG */
     leave_writer();
     become_reader(me, old, s);
     enter_reader();
     leave_reader();
     release_reader(me, p, s, ok, k, mw)
  :: true ->
     leave_writer();
     release_writer(me, s, ok)
  fi;
  finished++
}

/* C: a reader (TWO_WRITERS: a writer). node 3 */
proctype plain() {
  byte me = 3, pred, ps, old, s, p, k;
  bool admitted, ok, mw;
#ifdef TWO_WRITERS
  acquire(me, true, pred, ps, admitted, old, s);
  enter_writer();
  leave_writer();
  release_writer(me, s, ok);
#else
  acquire(me, false, pred, ps, admitted, old, s);
  enter_reader();
  leave_reader();
  release_reader(me, p, s, ok, k, mw);
#endif
  finished++
}

init {
  atomic {
    run upgrader();
    run downgrader();
    run plain()
  };
  (finished == 3);
  assert(tail == NIL)
}

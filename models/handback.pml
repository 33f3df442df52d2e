/* handback.pml: tasks a waiter may not run go back to their parent, omp/DESIGN.md
 * [P-OMP Handback] H2 (push on the nearest open stack), H3 (the runner pops its task's stack),
 * H4 (a body's end closes its stack and moves what it held up) and H5 (an implicit task's
 * thread pops its stack at the barrier). Mirrors omp/handback.cpp (push_chain, pop_one,
 * run_handed_back, close_handed_back).
 *
 * Scenario: implicit task I; P a child of I; Q and Y children of P; X a child of Q. Thief A
 * stole X and hands it back, thief B stole Y and hands it back, each at any moment. Q's
 * runner and P's runner each either wait for their children (popping their own stack, H3)
 * or not, then end their body (H4). I's thread, at the barrier, pops I's stack until X and Y ran.
 * Checked, exhaustively:
 *  - exactly once: no task runs twice (assertion in execute);
 *  - nothing stranded: every handed-back task runs; a stack that holds a task nobody will
 *    pop again leaves the barrier (or a waiter) blocked for good: an invalid end state.
 * Switches (each must produce a counterexample):
 *   CLOSE_BY_STORE   H4 reads the stack, then stores the closed mark (no exchange): a push
 *                    between the two is lost with the stack it landed on.
 *   NO_FORWARD       H2 pushes on its parent's stack even when closed (no walk up): the task
 *                    lands on top of the closed mark, where nobody pops.
 * Memory model: sequential consistency; each CAS and exchange is one atomic step, each load
 * a step of its own (H2's release and H3's/H4's acquire order the task's contents, which
 * this model does not carry).
 */

#define NIL 0
#define I 1
#define P 2
#define Q 3
#define X 4
#define Y 5
#define CLOSED 9

byte head[4];   /* the stacks of I, P, Q (index = task) */
byte next[6];   /* link of a handed-back task */
byte parent[6];
byte ran[6];

inline execute(t) {
  d_step { assert(ran[t] == 0); ran[t] = 1 }
}

/* H2: push the chain first..last on the nearest open stack from `to` upwards */
inline push_chain(to, first, last, h, ok) {
  ok = false;
  do
  :: ok -> break
  :: else ->
     h = head[to];
     if
#ifndef NO_FORWARD
     :: h == CLOSED -> to = parent[to]
#endif
     :: else ->
        next[last] = h;
        atomic {
          if
          :: head[to] == h -> head[to] = first; ok = true
          :: else -> skip
          fi
        }
     fi
  od
}

/* H3, H5: pop one task off t's stack (its one popper) and run it */
inline pop_run(t, h, n, ok) {
  h = head[t];
  ok = false;
  if
  :: h != NIL && h != CLOSED ->
     n = next[h];
     atomic {
       if
       :: head[t] == h -> head[t] = n; ok = true
       :: else -> skip
       fi
     };
     if :: ok -> execute(h) :: else -> skip fi
  :: else -> skip
  fi
}

/* H4: close t's stack and move what it held to the nearest open ancestor */
inline close(t, first, last, up, h, ok) {
#ifdef CLOSE_BY_STORE
  first = head[t];
  head[t] = CLOSED;
#else
  atomic { first = head[t]; head[t] = CLOSED };
#endif
  if
  :: first != NIL ->
     last = first;
     do
     :: next[last] != NIL -> last = next[last]
     :: else -> break
     od;
     up = parent[t];
     push_chain(up, first, last, h, ok)
  :: else -> skip
  fi
}

proctype thief(byte x) {
  byte to, h;
  bool ok;
  to = parent[x];
  next[x] = NIL;
  push_chain(to, x, x, h, ok)
}

/* the runner of t: waits for its children c1 and c2 (NIL: none) or not, then ends its body */
proctype runner(byte t; byte c1; byte c2) {
  byte h, n, first, last, up;
  bool ok;
  if
  :: do
     :: (ran[c1] && (c2 == NIL || ran[c2])) -> break
     :: (head[t] != NIL && head[t] != CLOSED) -> pop_run(t, h, n, ok)
     od
  :: skip  /* no taskwait: its children may still be pending when the body ends */
  fi;
  close(t, first, last, up, h, ok);
  ran[t] = 1
}

proctype barrier() {
  byte h, n;
  bool ok;
  do
  :: (ran[X] && ran[Y] && ran[P] && ran[Q]) -> break
  :: (head[I] != NIL) -> pop_run(I, h, n, ok)
  od
}

init {
  parent[P] = I; parent[Q] = P; parent[X] = Q; parent[Y] = P;
  atomic {
    run thief(X);
    run thief(Y);
    run runner(Q, X, NIL);
    run runner(P, Y, Q);
    run barrier()
  }
}

/* taskprogs: task-parallel programs in the style of the Barcelona OpenMP Tasks Suite, written
   the way OpenMP users write them (tasks spawned inside `parallel` + `single`).
     fib N        fib(N) with a task per call and no cutoff
     nqueens N    all solutions of N queens, a task per placement tried
     sort N       task mergesort of N ints (serial below a cutoff), merge by halves
     sparselu NB  LU of an NB x NB block sparse matrix (BS x BS blocks), a task per block op
     uts B        the UTS binomial tree T3 with B children at the root (B = 2000 is T3 itself:
                  q = 0.124875, m = 8, seed 42, 4,112,897 nodes), written as BOTS writes it:
                  an untied task per child, the child's state computed by its parent, taskwait
     binomial B   a binomial tree with B children at the root, then 8 children with probability
                  0.1249 (a splitmix64 hash per node; B = 2000: 710,617 nodes), a task per node
                  and a taskwait per node
     chains N     N tasks, each depend(inout) on one of 64 objects (a fixed xorshift picks it),
                  each updating its object: 64 interleaved dependence chains of tiny tasks
     lookup N     N iterations of 8 random look-ups each into a 32 MiB table, a
                  parallel for with schedule(dynamic,100) and a sum reduction (XSBench's shape)
   Each checks its answer (a known value, or a serial run of the same code) and exits with
   status 1 when it is wrong. Prints "program NAME ARG THREADS SECONDS". */
#include "common.h"
#include "sha1.h"

/* ---- fib -------------------------------------------------------------------------------- */

static long fib(int n) {
  if (n < 2) return n;
  long x, y;
#pragma omp task shared(x)
  x = fib(n - 1);
#pragma omp task shared(y)
  y = fib(n - 2);
#pragma omp taskwait
  return x + y;
}

static long fib_serial(int n) {
  long a = 0, b = 1;
  for (int i = 0; i < n; ++i) {
    long c = a + b;
    a = b;
    b = c;
  }
  return a;
}

static void run_fib(int n) {
  long r = 0;
#pragma omp parallel
#pragma omp single
  r = fib(n);
  BENCH_CHECK(r == fib_serial(n));
}

/* ---- nqueens ---------------------------------------------------------------------------- */

enum { k_max_queens = 16 };

static int placement_ok(int row, const char* cols) {
  for (int i = 0; i < row; ++i) {
    int d = cols[i] - cols[row];
    if (d == 0 || d == row - i || d == i - row) return 0;
  }
  return 1;
}

static long queens(int n, int row, const char* cols) {
  if (row == n) return 1;
  long found[k_max_queens];
  for (int c = 0; c < n; ++c) {
    found[c] = 0;
#pragma omp task firstprivate(c) shared(found)
    {
      char next[k_max_queens];
      memcpy(next, cols, (size_t)row);
      next[row] = (char)c;
      if (placement_ok(row, next)) found[c] = queens(n, row + 1, next);
    }
  }
#pragma omp taskwait
  long total = 0;
  for (int c = 0; c < n; ++c) total += found[c];
  return total;
}

static void run_nqueens(int n) {
  static const long solutions[k_max_queens + 1] = {1,   1,   0,    0,     2,     10,     4,       40,      92,
                                                   352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512};
  BENCH_CHECK(n >= 1 && n <= k_max_queens);
  long r = 0;
  char cols[k_max_queens];
#pragma omp parallel
#pragma omp single
  r = queens(n, 0, cols);
  BENCH_CHECK(r == solutions[n]);
}

/* ---- sort ------------------------------------------------------------------------------- */

enum { k_sort_cutoff = 2048 };

static int cmp_int(const void* a, const void* b) {
  int x = *(const int*)a, y = *(const int*)b;
  return (x > y) - (x < y);
}

static void merge(const int* a, long na, const int* b, long nb, int* out) {
  long i = 0, j = 0, k = 0;
  while (i < na && j < nb) out[k++] = b[j] < a[i] ? b[j++] : a[i++];
  while (i < na) out[k++] = a[i++];
  while (j < nb) out[k++] = b[j++];
}

/* sorts v[0, n) using tmp[0, n) as scratch */
static void mergesort_tasks(int* v, int* tmp, long n) {
  if (n <= k_sort_cutoff) {
    qsort(v, (size_t)n, sizeof *v, cmp_int);
    return;
  }
  long h = n / 2;
#pragma omp task
  mergesort_tasks(v, tmp, h);
#pragma omp task
  mergesort_tasks(v + h, tmp + h, n - h);
#pragma omp taskwait
  merge(v, h, v + h, n - h, tmp);
  memcpy(v, tmp, (size_t)n * sizeof *v);
}

static void run_sort(int n) {
  int* v = malloc((size_t)n * sizeof *v);
  int* tmp = malloc((size_t)n * sizeof *v);
  BENCH_CHECK(v != NULL && tmp != NULL);
  unsigned long x = 88172645463325252ul, sum = 0;
  for (int i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    v[i] = (int)(x % 1000000007ul);
    sum += (unsigned long)v[i];
  }
#pragma omp parallel
#pragma omp single
  mergesort_tasks(v, tmp, n);
  unsigned long after = 0;
  for (int i = 0; i < n; ++i) {
    after += (unsigned long)v[i];
    BENCH_CHECK(i == 0 || v[i - 1] <= v[i]);
  }
  BENCH_CHECK(after == sum);
  free(v);
  free(tmp);
}

/* ---- sparselu --------------------------------------------------------------------------- */

enum { k_bs = 32 }; /* block size */

typedef float block[k_bs][k_bs];

static block** alloc_matrix(int nb) {
  block** m = calloc((size_t)nb * (size_t)nb, sizeof *m);
  BENCH_CHECK(m != NULL);
  unsigned long x = 2463534242ul;
  for (int i = 0; i < nb; ++i)
    for (int j = 0; j < nb; ++j) {
      /* BOTS-like sparsity: the diagonal, the first rows and columns, some of the rest */
      int present = i == j || i == 0 || j == 0 || (i + j) % 3 == 0 || (i * j) % 5 == 1;
      if (!present) continue;
      block* b = malloc(sizeof *b);
      BENCH_CHECK(b != NULL);
      for (int r = 0; r < k_bs; ++r)
        for (int c = 0; c < k_bs; ++c) {
          x ^= x << 13;
          x ^= x >> 17;
          x ^= x << 5;
          (*b)[r][c] = (float)((x % 1000u) / 1000.0) + (i == j && r == c ? (float)(4 * k_bs) : 0.0f);
        }
      m[i * nb + j] = b;
    }
  return m;
}

static void free_matrix(block** m, int nb) {
  for (int i = 0; i < nb * nb; ++i) free(m[i]);
  free(m);
}

static void lu0(block* d) {
  for (int k = 0; k < k_bs; ++k)
    for (int i = k + 1; i < k_bs; ++i) {
      (*d)[i][k] /= (*d)[k][k];
      for (int j = k + 1; j < k_bs; ++j) (*d)[i][j] -= (*d)[i][k] * (*d)[k][j];
    }
}

static void fwd(const block* d, block* c) {
  for (int k = 0; k < k_bs; ++k)
    for (int i = k + 1; i < k_bs; ++i)
      for (int j = 0; j < k_bs; ++j) (*c)[i][j] -= (*d)[i][k] * (*c)[k][j];
}

static void bdiv(const block* d, block* r) {
  for (int i = 0; i < k_bs; ++i)
    for (int k = 0; k < k_bs; ++k) {
      (*r)[i][k] /= (*d)[k][k];
      for (int j = k + 1; j < k_bs; ++j) (*r)[i][j] -= (*r)[i][k] * (*d)[k][j];
    }
}

static void bmod(const block* row, const block* col, block* inner) {
  for (int i = 0; i < k_bs; ++i)
    for (int j = 0; j < k_bs; ++j)
      for (int k = 0; k < k_bs; ++k) (*inner)[i][j] -= (*row)[i][k] * (*col)[k][j];
}

static block* new_zero_block(void) {
  block* b = calloc(1, sizeof *b);
  BENCH_CHECK(b != NULL);
  return b;
}

/* the task version: per step kk, lu0 then fwd/bdiv tasks, taskwait, bmod tasks, taskwait */
static void sparselu_tasks(block** m, int nb) {
#pragma omp parallel
#pragma omp single
  for (int kk = 0; kk < nb; ++kk) {
    lu0(m[kk * nb + kk]);
    for (int jj = kk + 1; jj < nb; ++jj)
      if (m[kk * nb + jj] != NULL) {
#pragma omp task firstprivate(kk, jj)
        fwd(m[kk * nb + kk], m[kk * nb + jj]);
      }
    for (int ii = kk + 1; ii < nb; ++ii)
      if (m[ii * nb + kk] != NULL) {
#pragma omp task firstprivate(kk, ii)
        bdiv(m[kk * nb + kk], m[ii * nb + kk]);
      }
#pragma omp taskwait
    for (int ii = kk + 1; ii < nb; ++ii)
      if (m[ii * nb + kk] != NULL)
        for (int jj = kk + 1; jj < nb; ++jj)
          if (m[kk * nb + jj] != NULL) {
#pragma omp task firstprivate(kk, ii, jj)
            {
              if (m[ii * nb + jj] == NULL) m[ii * nb + jj] = new_zero_block();
              bmod(m[ii * nb + kk], m[kk * nb + jj], m[ii * nb + jj]);
            }
          }
#pragma omp taskwait
  }
}

static void sparselu_serial(block** m, int nb) {
  for (int kk = 0; kk < nb; ++kk) {
    lu0(m[kk * nb + kk]);
    for (int jj = kk + 1; jj < nb; ++jj)
      if (m[kk * nb + jj] != NULL) fwd(m[kk * nb + kk], m[kk * nb + jj]);
    for (int ii = kk + 1; ii < nb; ++ii)
      if (m[ii * nb + kk] != NULL) bdiv(m[kk * nb + kk], m[ii * nb + kk]);
    for (int ii = kk + 1; ii < nb; ++ii)
      if (m[ii * nb + kk] != NULL)
        for (int jj = kk + 1; jj < nb; ++jj)
          if (m[kk * nb + jj] != NULL) {
            if (m[ii * nb + jj] == NULL) m[ii * nb + jj] = new_zero_block();
            bmod(m[ii * nb + kk], m[kk * nb + jj], m[ii * nb + jj]);
          }
  }
}

/* times the task version only; the serial run of the same kernels is the answer */
static double run_sparselu(int nb) {
  block** m = alloc_matrix(nb);
  double t0 = now_seconds();
  sparselu_tasks(m, nb);
  double t = now_seconds() - t0;
  block** ref = alloc_matrix(nb);
  sparselu_serial(ref, nb);
  for (int i = 0; i < nb * nb; ++i) {
    BENCH_CHECK((m[i] == NULL) == (ref[i] == NULL));
    if (m[i] == NULL) continue;
    /* every block op runs in the same order on the same data: the results are identical */
    BENCH_CHECK(memcmp(m[i], ref[i], sizeof(block)) == 0);
  }
  free_matrix(m, nb);
  free_matrix(ref, nb);
  return t;
}

/* ---- uts (binomial, BOTS style) ---------------------------------------------------------- */

enum { k_uts_m = 8 };
static const double k_uts_q = 0.124875;

struct uts_node {
  unsigned char state[20];
  int height;
  int children;
};

static int uts_children(const struct uts_node* n, int root_children) {
  if (n->height == 0) return root_children;
  const uint32_t r =
      ((uint32_t)n->state[16] << 24 | (uint32_t)n->state[17] << 16 | (uint32_t)n->state[18] << 8 | n->state[19]) &
      0x7FFFFFFFu;
  return (double)r / 2147483648.0 < k_uts_q ? k_uts_m : 0;
}

static void uts_child(const struct uts_node* parent, int i, struct uts_node* c) {
  unsigned char msg[24];
  memcpy(msg, parent->state, 20);
  msg[20] = (unsigned char)(i >> 24);
  msg[21] = (unsigned char)(i >> 16);
  msg[22] = (unsigned char)(i >> 8);
  msg[23] = (unsigned char)i;
  sha1_short(msg, 24, c->state);
  c->height = parent->height + 1;
  c->children = uts_children(c, 0);
}

static void uts_root(struct uts_node* root, int root_children) {
  unsigned char seed[20] = {0};
  seed[19] = 42; /* -r 42 */
  sha1_short(seed, 20, root->state);
  root->height = 0;
  root->children = root_children;
}

/* the subtree's size; the children's states are computed here, each counted by a task */
static unsigned long long uts_search(const struct uts_node* parent) {
  const int n = parent->children;
  if (n == 0) return 1;
  struct uts_node* kids = malloc((size_t)n * sizeof *kids);
  unsigned long long* part = malloc((size_t)n * sizeof *part);
  BENCH_CHECK(kids != NULL && part != NULL);
  for (int i = 0; i < n; ++i) {
    struct uts_node* k = &kids[i];
    uts_child(parent, i, k);
#pragma omp task untied firstprivate(i, k) shared(part)
    part[i] = uts_search(k);
  }
#pragma omp taskwait
  unsigned long long total = 1;
  for (int i = 0; i < n; ++i) total += part[i];
  free(kids);
  free(part);
  return total;
}

static unsigned long long uts_serial(const struct uts_node* parent) {
  unsigned long long total = 1;
  for (int i = 0; i < parent->children; ++i) {
    struct uts_node c;
    uts_child(parent, i, &c);
    total += uts_serial(&c);
  }
  return total;
}

static double run_uts(int root_children) {
  struct uts_node root;
  uts_root(&root, root_children);
  unsigned long long r = 0;
  double t0 = now_seconds();
#pragma omp parallel
#pragma omp single
  r = uts_search(&root);
  double t = now_seconds() - t0;
  if (root_children == 2000)
    BENCH_CHECK(r == 4112897ull); /* T3's published size */
  else
    BENCH_CHECK(r == uts_serial(&root));
  return t;
}

/* ---- binomial tree ---------------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static int binomial_children(uint64_t state) { return (double)(state >> 11) * 0x1.0p-53 < 0.1249 ? 8 : 0; }
static uint64_t binomial_child(uint64_t state, int i) {
  return splitmix64(state ^ (uint64_t)(i + 1) * 0xD1B54A32D192ED03ull);
}

static long binomial(uint64_t state, int n) {
  long part[8];
  long* p = n <= 8 ? part : malloc((size_t)n * sizeof *p);
  BENCH_CHECK(p != NULL);
  for (int i = 0; i < n; ++i) {
#pragma omp task firstprivate(i) shared(p)
    {
      const uint64_t c = binomial_child(state, i);
      p[i] = binomial(c, binomial_children(c));
    }
  }
#pragma omp taskwait
  long total = 1;
  for (int i = 0; i < n; ++i) total += p[i];
  if (p != part) free(p);
  return total;
}

static long binomial_serial(uint64_t state, int n) {
  long total = 1;
  for (int i = 0; i < n; ++i) {
    const uint64_t c = binomial_child(state, i);
    total += binomial_serial(c, binomial_children(c));
  }
  return total;
}

static double run_binomial(int root_children) {
  const uint64_t root = splitmix64(11);
  long r = 0;
  double t0 = now_seconds();
#pragma omp parallel
#pragma omp single
  r = binomial(root, root_children);
  double t = now_seconds() - t0;
  BENCH_CHECK(r == binomial_serial(root, root_children));
  if (root_children == 2000) BENCH_CHECK(r == 710617);
  return t;
}

/* ---- chains ----------------------------------------------------------------------------- */

enum { k_objects = 64 };

static double run_chains(int n) {
  unsigned char* object = malloc((size_t)n);
  BENCH_CHECK(object != NULL);
  uint32_t x = 2463534242u;
  for (int k = 0; k < n; ++k) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    object[k] = (unsigned char)(x % k_objects);
  }
  uint64_t v[k_objects] = {0}, expected[k_objects] = {0};
  for (int k = 0; k < n; ++k) expected[object[k]] = expected[object[k]] * 3 + (uint64_t)k;
  double t0 = now_seconds();
#pragma omp parallel
#pragma omp single
  for (int k = 0; k < n; ++k) {
    uint64_t* o = &v[object[k]];
#pragma omp task depend(inout : o[0]) firstprivate(o, k)
    *o = *o * 3 + (uint64_t)k;
  }
  double t = now_seconds() - t0;
  for (int i = 0; i < k_objects; ++i) BENCH_CHECK(v[i] == expected[i]);
  free(object);
  return t;
}

/* ---- lookup ----------------------------------------------------------------------------- */

enum { k_table_bits = 22, k_lookups = 8 };

static double lookup_iteration(const double* table, long i) {
  uint64_t x = splitmix64((uint64_t)i);
  double s = 0;
  for (int k = 0; k < k_lookups; ++k) {
    s += table[x & ((1u << k_table_bits) - 1)];
    x = splitmix64(x);
  }
  return s;
}

static double run_lookup(int n) {
  const size_t size = (size_t)1 << k_table_bits;
  double* table = malloc(size * sizeof *table);
  BENCH_CHECK(table != NULL);
  for (size_t i = 0; i < size; ++i) table[i] = (double)(i % 1000); /* integers: every sum is exact */
  double sum = 0;
  double t0 = now_seconds();
#pragma omp parallel for schedule(dynamic, 100) reduction(+ : sum)
  for (long i = 0; i < n; ++i) sum += lookup_iteration(table, i);
  double t = now_seconds() - t0;
  double expected = 0;
  for (long i = 0; i < n; ++i) expected += lookup_iteration(table, i);
  BENCH_CHECK(sum == expected);
  free(table);
  return t;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s fib|nqueens|sort|sparselu|uts|binomial|chains|lookup ARG\n", argv[0]);
    return 2;
  }
  const char* name = argv[1];
  int arg = atoi(argv[2]);
  print_runtime();
  int threads = omp_get_max_threads();
  double t0 = now_seconds(), t;
  if (strcmp(name, "fib") == 0) {
    run_fib(arg);
    t = now_seconds() - t0;
  } else if (strcmp(name, "nqueens") == 0) {
    run_nqueens(arg);
    t = now_seconds() - t0;
  } else if (strcmp(name, "sort") == 0) {
    run_sort(arg);
    t = now_seconds() - t0;
  } else if (strcmp(name, "sparselu") == 0) {
    t = run_sparselu(arg);
  } else if (strcmp(name, "uts") == 0) {
    t = run_uts(arg);
  } else if (strcmp(name, "binomial") == 0) {
    t = run_binomial(arg);
  } else if (strcmp(name, "chains") == 0) {
    t = run_chains(arg);
  } else if (strcmp(name, "lookup") == 0) {
    t = run_lookup(arg);
  } else {
    fprintf(stderr, "unknown program %s\n", name);
    return 2;
  }
  printf("program %s %d %d %.6f\n", name, arg, threads, t);
  return 0;
}

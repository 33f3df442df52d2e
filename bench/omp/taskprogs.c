/* taskprogs: task-parallel programs in the style of the Barcelona OpenMP Tasks Suite, written
   the way OpenMP users write them (tasks spawned inside `parallel` + `single`).
     fib N        fib(N) with a task per call and no cutoff
     nqueens N    all solutions of N queens, a task per placement tried
     sort N       task mergesort of N ints (serial below a cutoff), merge by halves
     sparselu NB  LU of an NB x NB block sparse matrix (BS x BS blocks), a task per block op
   Each checks its answer (a known value, or a serial run of the same code) and exits with
   status 1 when it is wrong. Prints "program NAME ARG THREADS SECONDS". */
#include "common.h"

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

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s fib|nqueens|sort|sparselu ARG\n", argv[0]);
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
  } else {
    fprintf(stderr, "unknown program %s\n", name);
    return 2;
  }
  printf("program %s %d %d %.6f\n", name, arg, threads, t);
  return 0;
}

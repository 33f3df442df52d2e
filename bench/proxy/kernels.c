/* kernels.c: eight loop-heavy OpenMP kernels in the shapes of the NAS Parallel Benchmarks and
 * LULESH, written for this bench (no code of theirs): what regular scientific codes ask of a
 * runtime is region fork/join, `for` scheduling, barriers and reductions, over and over.
 * This file is compiled twice: with -fopenmp (the kernels are then named KERNEL_omp) and
 * without (KERNEL_serial, every pragma ignored): the serial build is the reference each run
 * checks its answer against. Kernels and what they stand for are listed in proxy.c. */
#include "proxy.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#else
static int omp_get_thread_num(void) { return 0; }
static int omp_get_num_threads(void) { return 1; }
static int omp_get_max_threads(void) { return 1; }
#endif

#define SIZE(full, quick) (proxy_quick ? (quick) : (full))
#define BENCH_CHECK(cond)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: wrong answer: %s\n", __FILE__, __LINE__, #cond); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static void* xcalloc(size_t n, size_t size) {
  void* p = calloc(n, size);
  if (p == NULL) {
    fputs("out of memory\n", stderr);
    exit(2);
  }
  return p;
}

static uint64_t lcg_state;
static double lcg_next(void) { /* [0, 1), 53 bits */
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(lcg_state >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- bt: ADI sweeps -------------------------------------------------------------------- */
#define BT_V 5
static int bt_n;
#define BT(a, k, j, i, v) (a)[((((size_t)(k)*bt_n + (j)) * bt_n + (i)) * BT_V) + (v)]

static void bt_rhs_plane(const double* u, double* rhs, int k) {
  const int n = bt_n;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      for (int v = 0; v < BT_V; ++v) {
        const double c = BT(u, k, j, i, v);
        const double s = (i > 0 ? BT(u, k, j, i - 1, v) : c) + (i < n - 1 ? BT(u, k, j, i + 1, v) : c) +
                         (j > 0 ? BT(u, k, j - 1, i, v) : c) + (j < n - 1 ? BT(u, k, j + 1, i, v) : c) +
                         (k > 0 ? BT(u, k - 1, j, i, v) : c) + (k < n - 1 ? BT(u, k + 1, j, i, v) : c);
        rhs[((((size_t)k * n + j) * n + i) * BT_V) + v] = 0.01 * (s - 6.0 * c) + 0.001 * sin(c);
      }
}

/* One tridiagonal solve (-a, 1 + 2a, -a) along a line of n points spaced `stride` doubles apart. */
static void bt_line(double* x, size_t stride, int n) {
  const double a = 0.2, b = 1.0 + 2.0 * a;
  double cp[512], dp[512];
  cp[0] = -a / b;
  dp[0] = x[0] / b;
  for (int m = 1; m < n; ++m) {
    const double den = b + a * cp[m - 1];
    cp[m] = -a / den;
    dp[m] = (x[m * stride] + a * dp[m - 1]) / den;
  }
  x[(size_t)(n - 1) * stride] = dp[n - 1];
  for (int m = n - 2; m >= 0; --m) x[m * stride] = dp[m] - cp[m] * x[(m + 1) * stride];
}

static void bt_solve(double* rhs, int axis, int outer) {
  const int n = bt_n;
  for (int inner = 0; inner < n; ++inner)
    for (int v = 0; v < BT_V; ++v) {
      if (axis == 0) bt_line(&BT(rhs, outer, inner, 0, v), BT_V, n);
      if (axis == 1) bt_line(&BT(rhs, outer, 0, inner, v), (size_t)n * BT_V, n);
      if (axis == 2) bt_line(&BT(rhs, 0, outer, inner, v), (size_t)n * n * BT_V, n);
    }
}

static void bt_add_plane(double* u, const double* rhs, int k) {
  const size_t plane = (size_t)bt_n * bt_n * BT_V;
  for (size_t m = 0; m < plane; ++m) u[k * plane + m] += rhs[k * plane + m];
}

double PROXY_FN(bt)(void) {
  bt_n = SIZE(36, 8);
  const int steps = SIZE(60, 3), n = bt_n;
  const size_t cells = (size_t)n * n * n * BT_V;
  double* u = xcalloc(cells, sizeof(double));
  double* rhs = xcalloc(cells, sizeof(double));
  lcg_state = 7;
  for (size_t m = 0; m < cells; ++m) u[m] = lcg_next();
  for (int s = 0; s < steps; ++s) {
#pragma omp parallel
    {
#pragma omp for
      for (int k = 0; k < n; ++k) bt_rhs_plane(u, rhs, k);
#pragma omp for
      for (int k = 0; k < n; ++k) bt_solve(rhs, 0, k);
#pragma omp for
      for (int k = 0; k < n; ++k) bt_solve(rhs, 1, k);
#pragma omp for
      for (int j = 0; j < n; ++j) bt_solve(rhs, 2, j);
#pragma omp for
      for (int k = 0; k < n; ++k) bt_add_plane(u, rhs, k);
    }
  }
  double check = 0;
  for (size_t m = 0; m < cells; ++m) check += u[m] * (double)(m % 7 + 1);
  free(u);
  free(rhs);
  return check;
}

/* ---- cg: conjugate gradient ------------------------------------------------------------ */
double PROXY_FN(cg)(void) {
  const int n = SIZE(30000, 500), per_row = 12, outer = SIZE(30, 2), inner = 25;
  int* rowp = xcalloc((size_t)n + 1, sizeof(int));
  int* col = xcalloc((size_t)n * per_row, sizeof(int));
  double* val = xcalloc((size_t)n * per_row, sizeof(double));
  double *x = xcalloc(n, sizeof(double)), *z = xcalloc(n, sizeof(double)), *p = xcalloc(n, sizeof(double));
  double *q = xcalloc(n, sizeof(double)), *r = xcalloc(n, sizeof(double));
  lcg_state = 11;
  for (int i = 0; i < n; ++i) { /* symmetric pattern not needed: a diagonally dominant matrix */
    rowp[i] = i * per_row;
    col[i * per_row] = i;
    val[i * per_row] = per_row + 1.0;
    for (int e = 1; e < per_row; ++e) {
      col[i * per_row + e] = (int)(lcg_next() * n);
      val[i * per_row + e] = lcg_next() - 0.5;
    }
  }
  rowp[n] = n * per_row;
  for (int i = 0; i < n; ++i) x[i] = 1.0;
  double rho = 0, d = 0, rho_new = 0, rnorm = 0, zeta = 0;
  for (int it = 0; it < outer; ++it) {
#pragma omp parallel
    {
#pragma omp for
      for (int i = 0; i < n; ++i) {
        z[i] = 0;
        r[i] = x[i];
        p[i] = x[i];
      }
#pragma omp single
      rho = 0;
#pragma omp for reduction(+ : rho)
      for (int i = 0; i < n; ++i) rho += r[i] * r[i];
      for (int cgit = 0; cgit < inner; ++cgit) {
#pragma omp for
        for (int i = 0; i < n; ++i) {
          double s = 0;
          for (int e = rowp[i]; e < rowp[i + 1]; ++e) s += val[e] * p[col[e]];
          q[i] = s;
        }
#pragma omp single
        {
          d = 0;
          rho_new = 0;
        }
#pragma omp for reduction(+ : d)
        for (int i = 0; i < n; ++i) d += p[i] * q[i];
        const double alpha = rho / d;
#pragma omp for reduction(+ : rho_new)
        for (int i = 0; i < n; ++i) {
          z[i] += alpha * p[i];
          r[i] -= alpha * q[i];
          rho_new += r[i] * r[i];
        }
        const double beta = rho_new / rho;
#pragma omp for
        for (int i = 0; i < n; ++i) p[i] = r[i] + beta * p[i];
#pragma omp single
        rho = rho_new;
      }
#pragma omp single
      {
        rnorm = 0;
        zeta = 0;
      }
#pragma omp for reduction(+ : rnorm, zeta)
      for (int i = 0; i < n; ++i) {
        rnorm += r[i] * r[i];
        zeta += z[i] * z[i];
      }
      const double scale = 1.0 / sqrt(zeta);
#pragma omp for
      for (int i = 0; i < n; ++i) x[i] = z[i] * scale;
    }
  }
  free(rowp);
  free(col);
  free(val);
  free(x);
  free(z);
  free(p);
  free(q);
  free(r);
  return sqrt(rnorm) + zeta;
}

/* ---- mg: V-cycles, one region per routine and level ------------------------------------- */
#define MG_LEVELS 5
#define MG(a, n, k, j, i) (a)[(((size_t)(k) * (n) + (j)) * (n)) + (i)]

static void mg_resid(const double* u, const double* f, double* r, int n) {
#pragma omp parallel for
  for (int k = 1; k < n - 1; ++k)
    for (int j = 1; j < n - 1; ++j)
      for (int i = 1; i < n - 1; ++i)
        MG(r, n, k, j, i) = MG(f, n, k, j, i) - (6.0 * MG(u, n, k, j, i) - MG(u, n, k - 1, j, i) -
                                                 MG(u, n, k + 1, j, i) - MG(u, n, k, j - 1, i) - MG(u, n, k, j + 1, i) -
                                                 MG(u, n, k, j, i - 1) - MG(u, n, k, j, i + 1));
}
static void mg_correct(double* u, const double* r, int n) {
#pragma omp parallel for
  for (int k = 1; k < n - 1; ++k)
    for (int j = 1; j < n - 1; ++j)
      for (int i = 1; i < n - 1; ++i) MG(u, n, k, j, i) += 0.12 * MG(r, n, k, j, i);
}
static void mg_restrict(const double* r, double* c, int nc) { /* fine n = 2 nc - 1 */
  const int n = 2 * nc - 1;
#pragma omp parallel for
  for (int k = 1; k < nc - 1; ++k)
    for (int j = 1; j < nc - 1; ++j)
      for (int i = 1; i < nc - 1; ++i)
        MG(c, nc, k, j, i) = 0.5 * MG(r, n, 2 * k, 2 * j, 2 * i) +
                             (MG(r, n, 2 * k - 1, 2 * j, 2 * i) + MG(r, n, 2 * k + 1, 2 * j, 2 * i) +
                              MG(r, n, 2 * k, 2 * j - 1, 2 * i) + MG(r, n, 2 * k, 2 * j + 1, 2 * i) +
                              MG(r, n, 2 * k, 2 * j, 2 * i - 1) + MG(r, n, 2 * k, 2 * j, 2 * i + 1)) /
                                 12.0;
}
static void mg_interp(const double* c, double* u, int nc) { /* adds the coarse correction */
  const int n = 2 * nc - 1;
#pragma omp parallel for
  for (int k = 1; k < n - 1; ++k)
    for (int j = 1; j < n - 1; ++j)
      for (int i = 1; i < n - 1; ++i)
        MG(u, n, k, j, i) += 0.25 * (MG(c, nc, k / 2, j / 2, i / 2) + MG(c, nc, (k + 1) / 2, (j + 1) / 2, (i + 1) / 2));
}

double PROXY_FN(mg)(void) {
  const int cycles = SIZE(150, 2), top = SIZE(65, 17);
  int n[MG_LEVELS];
  double *u[MG_LEVELS], *f[MG_LEVELS], *r[MG_LEVELS];
  for (int l = 0; l < MG_LEVELS; ++l) {
    n[l] = l == 0 ? top : (n[l - 1] + 1) / 2;
    const size_t cells = (size_t)n[l] * n[l] * n[l];
    u[l] = xcalloc(cells, sizeof(double));
    f[l] = xcalloc(cells, sizeof(double));
    r[l] = xcalloc(cells, sizeof(double));
  }
  lcg_state = 13;
  for (int m = 0; m < 40; ++m) { /* NAS MG's right-hand side: a few +1 and -1 charges */
    const int k = 1 + (int)(lcg_next() * (top - 2)), j = 1 + (int)(lcg_next() * (top - 2)),
              i = 1 + (int)(lcg_next() * (top - 2));
    MG(f[0], top, k, j, i) = m % 2 == 0 ? 1.0 : -1.0;
  }
  for (int c = 0; c < cycles; ++c) {
    for (int l = 0; l + 1 < MG_LEVELS; ++l) {
      mg_resid(u[l], f[l], r[l], n[l]);
      mg_correct(u[l], r[l], n[l]);
      mg_resid(u[l], f[l], r[l], n[l]);
      mg_restrict(r[l], f[l + 1], n[l + 1]);
      memset(u[l + 1], 0, (size_t)n[l + 1] * n[l + 1] * n[l + 1] * sizeof(double));
    }
    const int b = MG_LEVELS - 1;
    for (int s = 0; s < 4; ++s) {
      mg_resid(u[b], f[b], r[b], n[b]);
      mg_correct(u[b], r[b], n[b]);
    }
    for (int l = MG_LEVELS - 2; l >= 0; --l) {
      mg_interp(u[l + 1], u[l], n[l + 1]);
      mg_resid(u[l], f[l], r[l], n[l]);
      mg_correct(u[l], r[l], n[l]);
    }
  }
  double check = 0;
  for (size_t m = 0; m < (size_t)top * top * top; ++m) check += r[0][m] * r[0][m] + u[0][m];
  for (int l = 0; l < MG_LEVELS; ++l) {
    free(u[l]);
    free(f[l]);
    free(r[l]);
  }
  return check;
}

/* ---- lu: Gauss-Seidel by wavefronts ----------------------------------------------------- */
double PROXY_FN(lu)(void) {
  const int n = SIZE(700, 40), sweeps = SIZE(60, 2);
  double* a = xcalloc((size_t)n * n, sizeof(double));
  lcg_state = 17;
  for (size_t m = 0; m < (size_t)n * n; ++m) a[m] = lcg_next();
  for (int s = 0; s < sweeps; ++s) {
#pragma omp parallel
    for (int dgl = 2; dgl <= 2 * (n - 2); ++dgl) { /* interior cells i + j == dgl, 1 <= i, j <= n - 2 */
      const int lo = dgl - (n - 2) > 1 ? dgl - (n - 2) : 1, hi = dgl - 1 < n - 2 ? dgl - 1 : n - 2;
#pragma omp for
      for (int i = lo; i <= hi; ++i) {
        const int j = dgl - i;
        double* c = &a[(size_t)i * n + j];
        *c = 0.25 * (c[-n] + c[n] + c[-1] + c[1]) + 1e-3;
      }
    }
  }
  double check = 0;
  for (size_t m = 0; m < (size_t)n * n; ++m) check += a[m] * (double)(m % 5 + 1);
  free(a);
  return check;
}

/* ---- ft: 3-D FFT time steps ------------------------------------------------------------- */
static void fft_line(double* re, double* im, size_t stride, int n) { /* radix 2, in place, n a power of 2 */
  for (int i = 1, j = 0; i < n; ++i) {
    int bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      double t = re[i * stride];
      re[i * stride] = re[j * stride];
      re[j * stride] = t;
      t = im[i * stride];
      im[i * stride] = im[j * stride];
      im[j * stride] = t;
    }
  }
  for (int len = 2; len <= n; len <<= 1) {
    const double ang = -2.0 * M_PI / len;
    for (int i = 0; i < n; i += len)
      for (int k = 0; k < len / 2; ++k) {
        const double wr = cos(ang * k), wi = sin(ang * k);
        const size_t a = (size_t)(i + k) * stride, b = (size_t)(i + k + len / 2) * stride;
        const double xr = re[b] * wr - im[b] * wi, xi = re[b] * wi + im[b] * wr;
        re[b] = re[a] - xr;
        im[b] = im[a] - xi;
        re[a] += xr;
        im[a] += xi;
      }
  }
}

double PROXY_FN(ft)(void) {
  const int n = SIZE(64, 8), steps = SIZE(10, 2);
  const size_t cells = (size_t)n * n * n;
  double *re = xcalloc(cells, sizeof(double)), *im = xcalloc(cells, sizeof(double));
  lcg_state = 19;
  for (size_t m = 0; m < cells; ++m) {
    re[m] = lcg_next();
    im[m] = lcg_next();
  }
  double check = 0;
  for (int s = 0; s < steps; ++s) {
    double sum = 0;
#pragma omp parallel
    {
#pragma omp for
      for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j) fft_line(re + ((size_t)k * n + j) * n, im + ((size_t)k * n + j) * n, 1, n);
#pragma omp for
      for (int k = 0; k < n; ++k)
        for (int i = 0; i < n; ++i) fft_line(re + (size_t)k * n * n + i, im + (size_t)k * n * n + i, n, n);
#pragma omp for
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) fft_line(re + (size_t)j * n + i, im + (size_t)j * n + i, (size_t)n * n, n);
#pragma omp for reduction(+ : sum)
      for (size_t m = 0; m < cells; ++m) { /* evolve: damp, scale back to unit size, checksum */
        const double damp = exp(-1e-4 * (double)(m % 97)) / (double)n;
        re[m] *= damp / n;
        im[m] *= damp / n;
        sum += re[m] - im[m];
      }
    }
    check += sum;
  }
  free(re);
  free(im);
  return check;
}

/* ---- ep: Gaussian pairs ----------------------------------------------------------------- */
double PROXY_FN(ep)(void) {
  const long batches = SIZE(2048, 16), per_batch = 1 << 14;
  double sx = 0, sy = 0;
  long q[10] = {0};
#pragma omp parallel
  {
    long lq[10] = {0};
#pragma omp for reduction(+ : sx, sy)
    for (long b = 0; b < batches; ++b) {
      uint64_t s = 0x9E3779B97F4A7C15ULL * (uint64_t)(b + 1); /* each batch seeds its own stream */
      for (long m = 0; m < per_batch; ++m) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        const double x1 = 2.0 * (double)(s >> 11) * (1.0 / 9007199254740992.0) - 1.0;
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        const double x2 = 2.0 * (double)(s >> 11) * (1.0 / 9007199254740992.0) - 1.0;
        const double t = x1 * x1 + x2 * x2;
        if (t <= 1.0 && t > 0) {
          const double f = sqrt(-2.0 * log(t) / t), gx = x1 * f, gy = x2 * f;
          const double mx = fabs(gx) > fabs(gy) ? fabs(gx) : fabs(gy);
          lq[(int)mx < 10 ? (int)mx : 9] += 1;
          sx += gx;
          sy += gy;
        }
      }
    }
#pragma omp critical
    for (int l = 0; l < 10; ++l) q[l] += lq[l];
  }
  double check = sx + 3.0 * sy;
  for (int l = 0; l < 10; ++l) check += (double)q[l] * (l + 1); /* counts are exact: any error shows */
  return check;
}

/* ---- is: integer counting sort ---------------------------------------------------------- */
double PROXY_FN(is)(void) {
  const int keys = SIZE(1 << 22, 1 << 12), range = SIZE(1 << 16, 1 << 8), iters = SIZE(30, 2);
  int* key = xcalloc((size_t)keys, sizeof(int));
  int* sorted = xcalloc((size_t)keys, sizeof(int));
  long* count = xcalloc((size_t)range + 1, sizeof(long));
  const int max_threads = omp_get_max_threads();
  long* local = xcalloc((size_t)max_threads * range, sizeof(long));
  lcg_state = 23;
  for (int m = 0; m < keys; ++m) /* NAS IS's keys: the mean of four uniforms, a bell shape */
    key[m] = (int)((lcg_next() + lcg_next() + lcg_next() + lcg_next()) * 0.25 * range);
  double check = 0;
  for (int it = 0; it < iters; ++it) {
    key[it] = it;
    key[it + iters] = range - 1 - it;
#pragma omp parallel
    {
      const int t = omp_get_thread_num(), nt = omp_get_num_threads();
      long* mine = local + (size_t)t * range;
      memset(mine, 0, (size_t)range * sizeof(long));
#pragma omp for
      for (int m = 0; m < keys; ++m) mine[key[m]] += 1;
#pragma omp for
      for (int v = 0; v < range; ++v) {
        long c = 0;
        for (int u = 0; u < nt; ++u) c += local[(size_t)u * range + v];
        count[v + 1] = c;
      }
#pragma omp single
      for (int v = 0; v < range; ++v) count[v + 1] += count[v];
#pragma omp for
      for (int v = 0; v < range; ++v) /* each value's keys go to its slots, in key order */
        for (long s = count[v]; s < count[v + 1]; ++s) sorted[s] = v;
    }
    for (int probe = 0; probe < 5; ++probe) check += (double)count[key[probe * 997 % keys]] + sorted[keys / 2 + probe];
  }
  for (int m = 1; m < keys; ++m) BENCH_CHECK(sorted[m - 1] <= sorted[m]);
  free(key);
  free(sorted);
  free(count);
  free(local);
  return check;
}

/* ---- lulesh: a Lagrangian hydro step ---------------------------------------------------- */
double PROXY_FN(lulesh)(void) {
  const int ne = SIZE(40, 8), nn = ne + 1, cycles = SIZE(120, 3);
  const int elems = ne * ne * ne, nodes = nn * nn * nn;
  double *x = xcalloc(nodes, sizeof(double)), *y = xcalloc(nodes, sizeof(double)), *z = xcalloc(nodes, sizeof(double));
  double *xd = xcalloc(nodes, sizeof(double)), *yd = xcalloc(nodes, sizeof(double)),
         *zd = xcalloc(nodes, sizeof(double));
  double *fx = xcalloc(nodes, sizeof(double)), *fy = xcalloc(nodes, sizeof(double)),
         *fz = xcalloc(nodes, sizeof(double));
  double *ex = xcalloc(elems, sizeof(double)), *ey = xcalloc(elems, sizeof(double)),
         *ez = xcalloc(elems, sizeof(double));
  double *e = xcalloc(elems, sizeof(double)), *p = xcalloc(elems, sizeof(double)), *q = xcalloc(elems, sizeof(double));
  double *vol = xcalloc(elems, sizeof(double)), *vdov = xcalloc(elems, sizeof(double));
  double *ss = xcalloc(elems, sizeof(double)), *mass = xcalloc(nodes, sizeof(double));
  for (int k = 0; k < nn; ++k)
    for (int j = 0; j < nn; ++j)
      for (int i = 0; i < nn; ++i) {
        const int m = (k * nn + j) * nn + i;
        x[m] = i * 1.125 / ne;
        y[m] = j * 1.125 / ne;
        z[m] = k * 1.125 / ne;
        mass[m] = 1.0;
      }
  for (int m = 0; m < elems; ++m) {
    vol[m] = 1.0;
    e[m] = m == 0 ? 3.948746e7 : 0.0; /* Sedov: all the energy in the corner element */
  }
  double dt = 1e-7, time = 0;
#define NODE(m, di, dj, dk) (((m) / (ne * ne) + (dk)) * nn * nn + (((m) / ne) % ne + (dj)) * nn + (m) % ne + (di))
  for (int c = 0; c < cycles; ++c) {
#pragma omp parallel for /* element stresses -> per-element face forces */
    for (int m = 0; m < elems; ++m) {
      const double sig = -(p[m] + q[m]);
      ex[m] = sig * (x[NODE(m, 1, 0, 0)] - x[NODE(m, 0, 0, 0)] + 1e-12);
      ey[m] = sig * (y[NODE(m, 0, 1, 0)] - y[NODE(m, 0, 0, 0)] + 1e-12);
      ez[m] = sig * (z[NODE(m, 0, 0, 1)] - z[NODE(m, 0, 0, 0)] + 1e-12);
    }
#pragma omp parallel for /* gather: each node sums its (up to) eight elements */
    for (int m = 0; m < nodes; ++m) {
      const int i = m % nn, j = (m / nn) % nn, k = m / (nn * nn);
      double sx = 0, sy = 0, sz = 0;
      for (int dk = -1; dk <= 0; ++dk)
        for (int dj = -1; dj <= 0; ++dj)
          for (int di = -1; di <= 0; ++di) {
            const int a = i + di, b = j + dj, cc = k + dk;
            if (a < 0 || b < 0 || cc < 0 || a >= ne || b >= ne || cc >= ne) continue;
            const int el = (cc * ne + b) * ne + a;
            sx += di == 0 ? -ex[el] : ex[el];
            sy += dj == 0 ? -ey[el] : ey[el];
            sz += dk == 0 ? -ez[el] : ez[el];
          }
      fx[m] = sx;
      fy[m] = sy;
      fz[m] = sz;
    }
#pragma omp parallel for /* acceleration and velocity, x */
    for (int m = 0; m < nodes; ++m) xd[m] = (m % nn == 0) ? 0.0 : xd[m] + fx[m] / mass[m] * dt;
#pragma omp parallel for
    for (int m = 0; m < nodes; ++m) yd[m] = ((m / nn) % nn == 0) ? 0.0 : yd[m] + fy[m] / mass[m] * dt;
#pragma omp parallel for
    for (int m = 0; m < nodes; ++m) zd[m] = (m / (nn * nn) == 0) ? 0.0 : zd[m] + fz[m] / mass[m] * dt;
#pragma omp parallel for /* positions */
    for (int m = 0; m < nodes; ++m) {
      x[m] += xd[m] * dt;
      y[m] += yd[m] * dt;
      z[m] += zd[m] * dt;
    }
#pragma omp parallel for /* kinematics: new volume and its rate */
    for (int m = 0; m < elems; ++m) {
      const double v = (x[NODE(m, 1, 0, 0)] - x[NODE(m, 0, 0, 0)]) * (y[NODE(m, 0, 1, 0)] - y[NODE(m, 0, 0, 0)]) *
                       (z[NODE(m, 0, 0, 1)] - z[NODE(m, 0, 0, 0)]) * (double)elems / (1.125 * 1.125 * 1.125);
      vdov[m] = (v - vol[m]) / (vol[m] * dt);
      vol[m] = v;
    }
#pragma omp parallel for /* artificial viscosity */
    for (int m = 0; m < elems; ++m)
      q[m] = vdov[m] < 0 ? 2.0 * vdov[m] * vdov[m] * dt * dt + 0.1 * fabs(vdov[m]) * dt : 0.0;
#pragma omp parallel for /* energy */
    for (int m = 0; m < elems; ++m) {
      e[m] -= (p[m] + q[m]) * vdov[m] * vol[m] * dt;
      if (e[m] < 0) e[m] = 0;
    }
#pragma omp parallel for /* equation of state */
    for (int m = 0; m < elems; ++m) p[m] = (2.0 / 3.0) * e[m] / (vol[m] > 1e-3 ? vol[m] : 1e-3);
#pragma omp parallel for /* sound speed */
    for (int m = 0; m < elems; ++m) ss[m] = sqrt(1e-12 + (5.0 / 3.0) * p[m] / (vol[m] > 1e-3 ? vol[m] : 1e-3));
    double dtc = 1e20, dth = 1e20;
#pragma omp parallel for reduction(min : dtc) /* Courant constraint */
    for (int m = 0; m < elems; ++m) {
      const double len = 1.125 / ne * cbrt(vol[m] > 1e-3 ? vol[m] : 1e-3);
      const double d = len / (ss[m] + fabs(q[m]) + 1e-20);
      if (d < dtc) dtc = d;
    }
#pragma omp parallel for reduction(min : dth) /* volume-change constraint */
    for (int m = 0; m < elems; ++m)
      if (vdov[m] != 0) {
        const double d = 0.1 / (fabs(vdov[m]) + 1e-20);
        if (d < dth) dth = d;
      }
    const double next = 0.5 * (dtc < dth ? dtc : dth);
    dt = next < 1.2 * dt ? next : 1.2 * dt;
    time += dt;
  }
#undef NODE
  double check = time * 1e6;
  for (int m = 0; m < elems; ++m) check += e[m] * 1e-6 + p[m] * 1e-6 + (double)(m % 3) * vol[m];
  double* arrays[] = {x, y, z, xd, yd, zd, fx, fy, fz, ex, ey, ez, e, p, q, vol, vdov, ss, mass};
  for (size_t a = 0; a < sizeof arrays / sizeof *arrays; ++a) free(arrays[a]);
  return check;
}

/* proxy.c: the driver of the proxy-app bench: loop-heavy OpenMP kernels in the shapes of the
 * NAS Parallel Benchmarks and LULESH (kernels.c):
 *
 *   bt      ADI time steps: one region a step, five `omp for` sweeps (a stencil, a tridiagonal
 *           line solve along each axis, an update), each ending in a barrier (NAS BT, SP)
 *   cg      conjugate gradient on a random sparse matrix inside one region: a mat-vec and
 *           three reductions an iteration, `single` for the scalars (NAS CG)
 *   mg      V-cycles on a 3-D grid down to 5^3: a `parallel for` region per routine and level,
 *           the coarse ones a few planes long (NAS MG)
 *   lu      Gauss-Seidel on a 2-D grid by anti-diagonal wavefronts: an `omp for` per
 *           diagonal, over a thousand barriers a sweep (NAS LU's hyperplane form)
 *   ft      3-D FFT time steps: `omp for` over planes for each axis, an evolve loop with a
 *           reduction (NAS FT)
 *   ep      Gaussian pairs from a linear congruential generator, counted by annulus: one
 *           region, a reduction and a critical section (NAS EP)
 *   is      integer counting sort: per-thread histograms, a merge `omp for`, a `single`
 *           prefix and a scatter, one region an iteration (NAS IS)
 *   lulesh  a Lagrangian hydro cycle: thirteen `parallel for` regions over elements and
 *           nodes, two of them min reductions for the time step (LULESH)
 *
 * usage: bench_proxy KERNEL [quick]
 * Runs the kernel's serial build (kernels.c without -fopenmp), then its OpenMP build (timed),
 * prints "time S kernel K threads N check C" after the runtime line, and exits 1 when the two
 * differ: bit for bit where no reduction reorders a floating-point sum, else beyond 1e-9. */
#include "../omp/common.h" /* first: it defines _GNU_SOURCE */

#include <math.h>

#include "proxy.h"

int proxy_quick;

struct kernel {
  const char* name;
  double (*omp)(void);
  double (*serial)(void);
  int reorders; /* a reduction changes the order of floating-point sums */
};
#define KERNEL(name, reorders) \
  { #name, name##_omp, name##_serial, reorders }
static const struct kernel kernels[] = {KERNEL(bt, 0), KERNEL(cg, 1), KERNEL(mg, 0), KERNEL(lu, 0),
                                        KERNEL(ft, 1), KERNEL(ep, 1), KERNEL(is, 0), KERNEL(lulesh, 0)};

int main(int argc, char** argv) {
  const struct kernel* k = NULL;
  for (size_t i = 0; argc >= 2 && i < sizeof kernels / sizeof *kernels; ++i)
    if (strcmp(argv[1], kernels[i].name) == 0) k = &kernels[i];
  if (k == NULL || argc > 3 || (argc == 3 && strcmp(argv[2], "quick") != 0)) {
    fputs("usage: bench_proxy bt|cg|mg|lu|ft|ep|is|lulesh [quick]\n", stderr);
    return 2;
  }
  proxy_quick = argc == 3;
  print_runtime();
  const double expected = k->serial();
  const double t0 = now_seconds();
  const double got = k->omp();
  const double t = now_seconds() - t0;
  printf("time %.6f kernel %s threads %d check %.15e\n", t, k->name, omp_get_max_threads(), got);
  if (k->reorders)
    BENCH_CHECK(fabs(got - expected) <= 1e-9 * fabs(expected));
  else
    BENCH_CHECK(got == expected);
  return 0;
}

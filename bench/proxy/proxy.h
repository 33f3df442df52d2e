/* proxy.h: the kernels of kernels.c, in the two builds the driver (proxy.c) links. */
#ifndef FORKJOIN_BENCH_PROXY_H
#define FORKJOIN_BENCH_PROXY_H

extern int proxy_quick; /* non-zero: tiny sizes (the unit suite's quick run) */

#ifdef _OPENMP
#define PROXY_FN(name) name##_omp
#else
#define PROXY_FN(name) name##_serial
#endif

#define PROXY_DECLARE(name) \
  double name##_omp(void);  \
  double name##_serial(void);
PROXY_DECLARE(bt)
PROXY_DECLARE(cg)
PROXY_DECLARE(mg)
PROXY_DECLARE(lu)
PROXY_DECLARE(ft)
PROXY_DECLARE(ep)
PROXY_DECLARE(is)
PROXY_DECLARE(lulesh)
#undef PROXY_DECLARE
#endif

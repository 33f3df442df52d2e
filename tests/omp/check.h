/* check.h: the self-check macro shared by the OpenMP tests (plain C, compiled with gcc -fopenmp). */
#ifndef FORKJOIN_OMP_TEST_CHECK_H
#define FORKJOIN_OMP_TEST_CHECK_H
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#endif

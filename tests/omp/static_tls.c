/* static_tls: a program linking a library with 3 KB of initial-exec TLS (static_tls_lib.c).
 * Under the launcher, whose audit library (LD_AUDIT) makes glibc set up the static TLS block
 * before the program's libraries load, it must still start: the launcher gives the block room
 * (glibc.rtld.optional_static_tls), and that room still leaves a thread of PTHREAD_STACK_MIN
 * stack startable. The main thread and a second one (of that stack) each fill their own copy
 * and read back its sum. Exit status 0 when both sums are right; the dynamic linker ends the
 * program with status 127 before main when the TLS does not fit. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>

unsigned long static_tls_fill(unsigned char seed);

static unsigned long expected(unsigned char seed) {
  unsigned long sum = 0;
  for (unsigned i = 0; i < 3072; ++i) sum += (unsigned char)(seed + i);
  return sum;
}

static void* second(void* arg) {
  (void)arg;
  return (void*)static_tls_fill(7);
}

int main(void) {
  pthread_t t;
  pthread_attr_t attr;
  void* got = NULL;
  unsigned long main_sum = static_tls_fill(1);
  int rc = pthread_attr_init(&attr);
  if (rc == 0) rc = pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN);
  if (rc == 0) rc = pthread_create(&t, &attr, second, NULL);
  if (rc != 0 || pthread_join(t, &got) != 0) {
    fprintf(stderr, "static_tls: no second thread of PTHREAD_STACK_MIN stack (error %d)\n", rc);
    return 1;
  }
  if (main_sum != expected(1) || (unsigned long)got != expected(7) || static_tls_fill(1) != main_sum) {
    fprintf(stderr, "static_tls: sums %lu %lu, expected %lu %lu\n", main_sum, (unsigned long)got, expected(1),
            expected(7));
    return 1;
  }
  printf("static_tls: 3 KB of initial-exec TLS in 2 threads, one of PTHREAD_STACK_MIN stack\n");
  return 0;
}

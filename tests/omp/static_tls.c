/* static_tls: a program linking a library with 3 KB of initial-exec TLS (static_tls_lib.c).
 * Under the launcher, whose audit library (LD_AUDIT) makes glibc set up the static TLS block
 * before the program's libraries load, it must still start: the launcher gives the block room
 * (glibc.rtld.optional_static_tls). The main thread and a second one each fill their own copy
 * and read back its sum. Exit status 0 when both sums are right; the dynamic linker ends the
 * program with status 127 before main when the TLS does not fit. */
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
  void* got = NULL;
  unsigned long main_sum = static_tls_fill(1);
  if (pthread_create(&t, NULL, second, NULL) != 0 || pthread_join(t, &got) != 0) {
    fprintf(stderr, "static_tls: no second thread\n");
    return 1;
  }
  if (main_sum != expected(1) || (unsigned long)got != expected(7) || static_tls_fill(1) != main_sum) {
    fprintf(stderr, "static_tls: sums %lu %lu, expected %lu %lu\n", main_sum, (unsigned long)got, expected(1),
            expected(7));
    return 1;
  }
  printf("static_tls: 3 KB of initial-exec TLS in 2 threads\n");
  return 0;
}

/* static_tls_lib.c: a library with 3 KB of initial-exec TLS, as libjemalloc has 2.6 KB (salmon
 * links it): the dynamic linker must place it in the static TLS block when the program starts. */
#include <stddef.h>

__attribute__((tls_model("initial-exec"))) static __thread unsigned char tls_buffer[3072];

/* Fills this thread's buffer with `seed` + i and returns the sum read back. */
unsigned long static_tls_fill(unsigned char seed) {
  unsigned long sum = 0;
  for (size_t i = 0; i < sizeof tls_buffer; ++i) tls_buffer[i] = (unsigned char)(seed + i);
  for (size_t i = 0; i < sizeof tls_buffer; ++i) sum += tls_buffer[i];
  return sum;
}

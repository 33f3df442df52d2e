/* sha1.h: SHA-1 (FIPS 180-4) of short messages, for the UTS tree of taskprogs.c: a node's
   state is a digest and a child's is the digest of its parent's state and its index. */
#ifndef FORKJOIN_BENCH_OMP_SHA1_H
#define FORKJOIN_BENCH_OMP_SHA1_H
#include <stdint.h>
#include <string.h>

static inline uint32_t sha1_rotl(uint32_t x, int s) { return (x << s) | (x >> (32 - s)); }

/* One 64-byte block into the five-word state h. */
static inline void sha1_block(uint32_t h[5], const unsigned char* p) {
  uint32_t w[80];
  for (int t = 0; t < 16; ++t)
    w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 | (uint32_t)p[4 * t + 2] << 8 | p[4 * t + 3];
  for (int t = 16; t < 80; ++t) w[t] = sha1_rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
  for (int t = 0; t < 80; ++t) {
    uint32_t f, k;
    if (t < 20) {
      f = (b & c) | (~b & d);
      k = 0x5A827999u;
    } else if (t < 40) {
      f = b ^ c ^ d;
      k = 0x6ED9EBA1u;
    } else if (t < 60) {
      f = (b & c) | (b & d) | (c & d);
      k = 0x8F1BBCDCu;
    } else {
      f = b ^ c ^ d;
      k = 0xCA62C1D6u;
    }
    uint32_t x = sha1_rotl(a, 5) + f + e + k + w[t];
    e = d;
    d = c;
    c = sha1_rotl(b, 30);
    b = a;
    a = x;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
}

/* The digest of msg[0, n) for n <= 55 (one padded block), into out[20]. */
static inline void sha1_short(const unsigned char* msg, size_t n, unsigned char out[20]) {
  uint32_t h[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};
  unsigned char block[64];
  memset(block, 0, sizeof block);
  memcpy(block, msg, n);
  block[n] = 0x80;
  const uint64_t bits = (uint64_t)n * 8;
  for (int i = 0; i < 8; ++i) block[63 - i] = (unsigned char)(bits >> (8 * i));
  sha1_block(h, block);
  for (int i = 0; i < 5; ++i) {
    out[4 * i] = (unsigned char)(h[i] >> 24);
    out[4 * i + 1] = (unsigned char)(h[i] >> 16);
    out[4 * i + 2] = (unsigned char)(h[i] >> 8);
    out[4 * i + 3] = (unsigned char)h[i];
  }
}
#endif

// sha1.hpp: SHA-1 (FIPS 180-4) of short messages, for the UTS benchmark's splittable
// random numbers. Not for security: UTS fixes SHA-1 so tree shapes match the published
// node counts.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace forkjoin::bench {

using sha1_digest = std::array<std::uint8_t, 20>;

inline sha1_digest sha1(const std::uint8_t* data, std::size_t len) {
  std::uint32_t h[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};
  auto rotl = [](std::uint32_t x, int s) { return (x << s) | (x >> (32 - s)); };
  // Messages here are at most 24 bytes, so padding fits one or two 64-byte blocks.
  std::uint8_t buf[128] = {};
  std::memcpy(buf, data, len);
  buf[len] = 0x80;
  const std::size_t blocks = len + 9 <= 64 ? 1 : 2;
  const std::uint64_t bits = static_cast<std::uint64_t>(len) * 8;
  for (int i = 0; i < 8; ++i)
    buf[blocks * 64 - 1 - static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(bits >> (8 * i));
  for (std::size_t blk = 0; blk < blocks; ++blk) {
    std::uint32_t w[80];
    for (int i = 0; i < 16; ++i) {
      const std::uint8_t* p = buf + blk * 64 + static_cast<std::size_t>(4 * i);
      w[i] = (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
    }
    for (int i = 16; i < 80; ++i) w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; ++i) {
      std::uint32_t f, k;
      if (i < 20)
        f = (b & c) | (~b & d), k = 0x5A827999u;
      else if (i < 40)
        f = b ^ c ^ d, k = 0x6ED9EBA1u;
      else if (i < 60)
        f = (b & c) | (b & d) | (c & d), k = 0x8F1BBCDCu;
      else
        f = b ^ c ^ d, k = 0xCA62C1D6u;
      const std::uint32_t t = rotl(a, 5) + f + e + k + w[i];
      e = d, d = c, c = rotl(b, 30), b = a, a = t;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
  }
  sha1_digest out;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 4; ++j)
      out[static_cast<std::size_t>(4 * i + j)] = static_cast<std::uint8_t>(h[i] >> (24 - 8 * j));
  return out;
}

}  // namespace forkjoin::bench

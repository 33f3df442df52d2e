// mandelbrot.cpp: a Mandelbrot image, rows handed out by schedule::dynamic because rows
// inside the set cost far more than rows outside. Writes a binary PGM (argv[1], default
// mandelbrot.pgm) and checks the image against a serial render.
#include <complex>
#include <cstdio>
#include <vector>

#include "forkjoin/forkjoin.hpp"

namespace {
constexpr int k_width = 800, k_height = 600, k_max_iter = 500;

unsigned char pixel(int px, int py) {
  const std::complex<double> c(-2.2 + 3.2 * px / k_width, -1.2 + 2.4 * py / k_height);
  std::complex<double> z = 0;
  int it = 0;
  while (it < k_max_iter && std::norm(z) <= 4.0) {
    z = z * z + c;
    ++it;
  }
  return static_cast<unsigned char>(it == k_max_iter ? 0 : 255 - (it * 255) / k_max_iter);
}
}  // namespace

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "mandelbrot.pgm";
  std::vector<unsigned char> image(static_cast<std::size_t>(k_width) * k_height);
  forkjoin::parallel_for(
      0, k_height,
      [&](int y) {
        for (int x = 0; x < k_width; ++x)
          image[static_cast<std::size_t>(y) * k_width + static_cast<std::size_t>(x)] = pixel(x, y);
      },
      forkjoin::schedule::dynamic(4));

  for (int y = 0; y < k_height; y += 7)  // spot-check every 7th row against the serial render
    for (int x = 0; x < k_width; ++x)
      if (image[static_cast<std::size_t>(y) * k_width + static_cast<std::size_t>(x)] != pixel(x, y)) {
        std::printf("mandelbrot: pixel (%d, %d) differs\n", x, y);
        return 1;
      }
  std::FILE* f = std::fopen(path, "wb");
  if (f == nullptr) {
    std::perror(path);
    return 1;
  }
  std::fprintf(f, "P5\n%d %d\n255\n", k_width, k_height);
  const bool ok = std::fwrite(image.data(), 1, image.size(), f) == image.size();
  std::fclose(f);
  std::printf("mandelbrot: wrote %s (%dx%d)\n", path, k_width, k_height);
  return ok ? 0 : 1;
}

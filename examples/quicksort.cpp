// quicksort.cpp: parallel quicksort by join. Partition serially, sort the two sides in
// parallel, fall back to std::sort below a cutoff. Checks the result against std::sort.
#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "forkjoin/forkjoin.hpp"

template <class It>
void quicksort(It first, It last) {
  constexpr std::ptrdiff_t k_cutoff = 2048;
  while (last - first > k_cutoff) {
    const auto pivot = *std::next(first, (last - first) / 2);
    It mid1 = std::partition(first, last, [&](const auto& x) { return x < pivot; });
    It mid2 = std::partition(mid1, last, [&](const auto& x) { return !(pivot < x); });
    forkjoin::join([&] { quicksort(first, mid1); }, [&] { quicksort(mid2, last); });
    return;
  }
  std::sort(first, last);
}

int main() {
  std::vector<int> v(1'000'000);
  std::mt19937 rng(42);
  for (int& x : v) x = static_cast<int>(rng() % 1'000'000);
  std::vector<int> expect = v;
  std::sort(expect.begin(), expect.end());
  forkjoin::default_pool().run([&] { quicksort(v.begin(), v.end()); });
  if (v != expect) {
    std::printf("quicksort: wrong order\n");
    return 1;
  }
  std::printf("quicksort: %zu ints sorted\n", v.size());
  return 0;
}

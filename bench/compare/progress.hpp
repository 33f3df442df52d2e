// progress.hpp: bench_compare's progress report on stderr (its tables go to stdout and to
// --benchmark_out): which run of how many, the time so far, and an estimate of the rest,
// at most one line per `every`, and a last line with the total.
//
// A run is one repetition of one registered benchmark. Google Benchmark calls a benchmark's
// function once per run, except in the first repetition of a benchmark without a fixed
// iteration count, where it first calls it with growing iteration counts until one call
// lasts long enough, and later repetitions reuse that count: so a call with more iterations
// than the same benchmark's previous call continues that call's run. The estimate adds,
// over the runs still to come, the mean time of that benchmark's runs so far (of all runs,
// for a benchmark not run yet); with interleaved repetitions every benchmark has run once
// after the first third of a 3-repetition run, and the estimate is close from then on.
#pragma once

#include <chrono>
#include <cstdio>
#include <map>
#include <string>

namespace forkjoin::bench {

class progress {
 public:
  using clock = std::chrono::steady_clock;

  // benchmarks: how many are registered (0: unknown, no estimate).
  progress(std::size_t benchmarks, int repetitions, clock::duration every)
      : benchmarks_(benchmarks), repetitions_(repetitions < 1 ? 1 : repetitions), every_(every) {}

  // After each call of a benchmark's function, with the iteration count it ran.
  void call_done(const std::string& name, long long iterations) {
    const clock::time_point now = clock::now();
    per_benchmark& b = runs_[name];
    if (b.count > 0 && iterations > b.last_iterations) {  // the previous call was a trial of this run
      b.count -= 1;
      --done_;
    }
    b.last_iterations = iterations;
    b.count += 1;
    b.seconds += seconds(now - last_);  // since the previous call ended: setup and settle included
    last_ = now;
    ++done_;
    if (now - printed_ >= every_) {
      printed_ = now;
      if (benchmarks_ == 0)  // a filtered subset of unknown size
        std::fprintf(stderr, "bench_compare: run %zu (%s), %s elapsed\n", done_, name.c_str(),
                     text(seconds(now - start_)).c_str());
      else
        std::fprintf(stderr, "bench_compare: run %zu of %zu (%s), %s elapsed, about %s left\n", done_, total(),
                     name.c_str(), text(seconds(now - start_)).c_str(), text(remaining()).c_str());
    }
  }

  void finish() const {
    std::fprintf(stderr, "bench_compare: %zu runs in %s\n", done_, text(seconds(clock::now() - start_)).c_str());
  }

 private:
  struct per_benchmark {
    int count = 0;
    long long last_iterations = 0;
    double seconds = 0;
  };
  std::size_t total() const { return benchmarks_ * static_cast<std::size_t>(repetitions_); }
  static double seconds(clock::duration d) { return std::chrono::duration<double>(d).count(); }
  double remaining() const {
    double all = 0;
    for (const auto& [name, b] : runs_) all += b.seconds;
    const double mean_all = done_ > 0 ? all / static_cast<double>(done_) : 0;
    const std::size_t not_run = benchmarks_ > runs_.size() ? benchmarks_ - runs_.size() : 0;
    double left = mean_all * static_cast<double>(not_run) * repetitions_;
    for (const auto& [name, b] : runs_)
      if (b.count < repetitions_) left += (b.seconds / b.count) * (repetitions_ - b.count);
    return left;
  }
  static std::string text(double s) {
    char buf[32];
    const long whole = static_cast<long>(s + 0.5);
    if (whole >= 60)
      std::snprintf(buf, sizeof buf, "%ldm%02lds", whole / 60, whole % 60);
    else
      std::snprintf(buf, sizeof buf, "%lds", whole);
    return buf;
  }

  std::size_t benchmarks_;
  int repetitions_;
  clock::duration every_;
  clock::time_point start_ = clock::now(), last_ = start_, printed_ = start_;
  std::size_t done_ = 0;
  std::map<std::string, per_benchmark> runs_;
};

}  // namespace forkjoin::bench

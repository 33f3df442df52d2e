// rcppparallel.cpp: compiled by Rcpp::sourceCpp for rcppparallel.R. parallelReduce sums a
// vector, parallelFor takes square roots, and the oneTBB runtime serving them names itself.
// [[Rcpp::depends(RcppParallel)]]
#include <Rcpp.h>
#include <RcppParallel.h>
#include <oneapi/tbb/version.h>

#include <cmath>
#include <string>

namespace {
struct sum_worker : public RcppParallel::Worker {
  const RcppParallel::RVector<double> input;
  double value = 0;
  explicit sum_worker(const Rcpp::NumericVector& in) : input(in) {}
  sum_worker(const sum_worker& other, RcppParallel::Split) : input(other.input) {}
  void operator()(std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) value += input[i];
  }
  void join(const sum_worker& other) { value += other.value; }
};

struct sqrt_worker : public RcppParallel::Worker {
  const RcppParallel::RVector<double> input;
  RcppParallel::RVector<double> output;
  sqrt_worker(const Rcpp::NumericVector& in, Rcpp::NumericVector& out) : input(in), output(out) {}
  void operator()(std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) output[i] = std::sqrt(input[i]);
  }
};
}  // namespace

// [[Rcpp::export]]
double parallel_sum(Rcpp::NumericVector x) {
  sum_worker w(x);
  RcppParallel::parallelReduce(0, x.length(), w);
  return w.value;
}

// [[Rcpp::export]]
Rcpp::NumericVector parallel_sqrt(Rcpp::NumericVector x) {
  Rcpp::NumericVector out(x.length());
  sqrt_worker w(x, out);
  RcppParallel::parallelFor(0, x.length(), w);
  return out;
}

// [[Rcpp::export]]
std::string tbb_runtime_version() { return TBB_runtime_version(); }

# rcppparallel.R MODE COMMON CPP CACHE: R's RcppParallel (Debian's r-cran-rcppparallel, which
# opens /usr/lib/<arch>/libtbb.so by absolute path when it loads) runs parallelReduce and
# parallelFor (CPP, compiled by Rcpp::sourceCpp into CACHE) with the answers base R computes.
# MODE forkjoin (under the launcher, OMP_NUM_THREADS=2): oneTBB is libforkjoin-tbb, no native
# runtime is mapped, every thread but R's own is forkjoin's and there are no more than the
# pool's 2; MODE native: native oneTBB (the control).
args <- commandArgs(trailingOnly = TRUE)
mode <- args[1]
source(args[2])
suppressPackageStartupMessages({
  library(Rcpp)
  library(RcppParallel)
})
sourceCpp(args[3], cacheDir = args[4])
x <- as.numeric(1:2000000)
check(parallel_sum(x) == sum(x), "parallelReduce: the sum base R computes")
check(identical(parallel_sqrt(x), sqrt(x)), "parallelFor: the square roots base R computes")
version <- tbb_runtime_version()
cat("TBB_runtime_version:", version, "\n")
check(grepl("libforkjoin-tbb", version) == (mode == "forkjoin"), "TBB_runtime_version names the expected runtime")
expect_runtimes(mode, 2)
finish("rcppparallel")

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
# 1,000 small calls, as an R loop over parallelFor and parallelReduce makes them (RcppParallel
# makes a task_arena per call): each answer right, and under forkjoin no thread is created
# after the first call (the same thread ids before and after).
small <- as.numeric(1:10000)
first <- names(host_threads())
started <- Sys.time()
wrong <- 0
for (i in 1:1000) {
  if (parallel_sum(small) != sum(small)) wrong <- wrong + 1
  if (!identical(parallel_sqrt(small), sqrt(small))) wrong <- wrong + 1
}
cat("1,000 parallelReduce and parallelFor calls:", format(as.numeric(Sys.time() - started, units = "secs")), "s\n")
check(wrong == 0, "1,000 calls of each: every answer the one base R computes")
if (mode == "forkjoin") check(identical(sort(names(host_threads())), sort(first)), "no thread created after the first call")
version <- tbb_runtime_version()
cat("TBB_runtime_version:", version, "\n")
check(grepl("libforkjoin-tbb", version) == (mode == "forkjoin"), "TBB_runtime_version names the expected runtime")
expect_runtimes(mode, 2)
finish("rcppparallel")

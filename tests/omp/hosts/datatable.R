# datatable.R MODE COMMON DIR: R's data.table (Debian's r-cran-data.table, built with gcc
# -fopenmp) with 2 threads: a grouped sum, a sort (setkey), and an fwrite/fread round trip
# through DIR, each equal to what base R computes. MODE forkjoin (under the launcher,
# OMP_NUM_THREADS=2): no native runtime is mapped, every thread but R's own is forkjoin's and
# there are no more than the pool's 2; MODE native: native libgomp (the control).
args <- commandArgs(trailingOnly = TRUE)
mode <- args[1]
source(args[2])
suppressPackageStartupMessages(library(data.table))
setDTthreads(2)
check(getDTthreads() == 2, "data.table uses 2 threads")
set.seed(1)
n <- 2000000L
dt <- data.table(g = sample(1000L, n, TRUE), x = sample(100000L, n, TRUE))
by_group <- dt[, .(s = sum(as.numeric(x))), keyby = g]
base <- tapply(as.numeric(dt$x), dt$g, sum)
check(identical(by_group$g, as.integer(names(base))) && identical(by_group$s, as.vector(base)),
      "a grouped sum: what tapply computes")
sorted <- copy(dt)
setkey(sorted, x, g)
o <- order(dt$x, dt$g)
check(identical(sorted$x, dt$x[o]) && identical(sorted$g, dt$g[o]), "setkey: the order order() gives")
file <- file.path(args[3], "datatable.csv")
fwrite(dt, file)
back <- fread(file)
unlink(file)
check(identical(back$g, dt$g) && identical(back$x, dt$x), "fwrite then fread: the same table")
expect_runtimes(mode, 2)
finish("datatable")

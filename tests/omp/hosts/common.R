# common.R: what the host checks share. host_runtimes(): the OpenMP and oneTBB runtime files
# mapped in this R process, split into forkjoin's (a path naming forkjoin: its libraries and
# their replace folders' links) and native ones. host_threads(): the names of this process's
# threads, the main thread's first. check(ok, what): records a failure; finish(): prints the verdict and quits with
# status 1 on any failure.
host_runtimes <- function() {
  maps <- readLines("/proc/self/maps")
  paths <- unique(sub("^[^/]*", "", maps[grepl(" /", maps)]))
  runtime <- grepl("/lib(gomp|omp|iomp5|tbb)([-.][^/]*)?\\.so[^/]*$", paths) & !grepl("/libtbbmalloc", paths)
  ours <- grepl("forkjoin", paths) & (runtime | grepl("/libforkjoin-(omp|tbb)\\.so$", paths))
  list(forkjoin = paths[ours], native = paths[runtime & !grepl("forkjoin", paths)])
}
host_threads <- function() {
  # the main thread first (its id is the process's), then the others by id: list.files sorts
  # the ids as strings, which put a worker first once the ids crossed a power of ten
  tasks <- list.files("/proc/self/task")
  tasks <- tasks[order(tasks != as.character(Sys.getpid()), as.numeric(tasks))]
  vapply(tasks, function(t) readLines(file.path("/proc/self/task", t, "comm"), n = 1), "")
}
failures <- character()
check <- function(ok, what) {
  cat(if (isTRUE(ok)) "ok:     " else "FAILED: ", what, "\n", sep = "")
  if (!isTRUE(ok)) failures <<- c(failures, what)
}
finish <- function(name) {
  cat(name, ": ", if (length(failures) == 0) "ok" else paste(length(failures), "failed"), "\n", sep = "")
  quit(status = if (length(failures) == 0) 0 else 1)
}
# expect_runtimes(mode, pool): forkjoin's runtime alone and every thread but the main one
# forkjoin's (at most pool of them in all, one at least), or native ones and none of forkjoin's
expect_runtimes <- function(mode, pool) {
  rt <- host_runtimes()
  threads <- host_threads()
  cat("runtimes mapped:", c(rt$forkjoin, rt$native), "\nthreads:", threads, "\n")
  if (mode == "forkjoin") {
    check(length(rt$native) == 0, "no native OpenMP or oneTBB runtime is mapped")
    check(length(rt$forkjoin) > 0, "forkjoin's library is mapped")
    others <- threads[-1]
    check(length(others) > 0 && all(grepl("^forkjoin-", others)), "the other threads are forkjoin's (forkjoin-*)")
    check(length(threads) <= pool, sprintf("%d threads, at most the pool's %d", length(threads), pool))
  } else {
    check(length(rt$native) > 0, "a native runtime is mapped")
    check(length(rt$forkjoin) == 0, "nothing of forkjoin is mapped")
  }
}

#!/usr/bin/env python3
"""Run oneTBB's own tests (test/conformance, test/tbb) on libforkjoin-tbb and on native oneTBB.

The tests are those of Debian's onetbb source package (oneTBB 2021.8, the version of the
installed libtbb-dev); none of their files is in this repository: tests/peer/fetch.sh unpacks
test/ (and the one header of src/ that test/common/memory_usage.h includes on Linux) into a
folder given to --sources. Each test program is built once, against the installed headers
(/usr/include) and the source's test/ folders, linked with -ltbb, then run twice: natively
(the system's libtbb.so.12) and through libforkjoin-tbb's replace folder (LD_LIBRARY_PATH),
each run with a timeout. Tests that need oneTBB's private sources (whitebox), tbbmalloc's,
hwloc (tbbbind) or another platform are not built; SKIPPED below says why, test by test.

tests/peer/expected/onetbb.txt lists what is expected to fail on forkjoin, one per line with
its reason: a program (PROGRAM), or one doctest test case of it (PROGRAM:CASE, CASE a doctest
filter: `?` for each space, `*` for any text). A program with listed cases runs on forkjoin
without them (--test-case-exclude) and must pass; each listed case then runs alone
(--test-case) and must fail. As in peer.py, the run fails on every unexpected result (a
failure not on the list, a listed program or case that passes, a listed one not run); a
result that differs is run once more, and one that then matches is reported as flaky without
failing the run. The native runs are counted, not compared.

  tests/peer/fetch.sh build/peer-src
  tests/peer/onetbb.py --sources build/peer-src --replace build/dev/tbb/forkjoin-tbb-replace
"""
import argparse
import concurrent.futures
import dataclasses
import hashlib
import os
import pathlib
import re
import shutil
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from peer import EITHER, OUTPUT_KEPT, read_expected, sh  # noqa: E402  (beside this file)

SUITE = "onetbb"
BUILD_TIMEOUT = 600.0
# Not built, with the reason: whitebox tests compile oneTBB's private sources (src/tbb/*.cpp,
# *.h) into the program, so they test those copies, not the library the program loads.
SKIPPED = {
    "test_concurrent_monitor": "whitebox: includes src/tbb/concurrent_monitor.h and misc.cpp",
    "test_concurrent_queue_whitebox": "whitebox: includes src/tbb/ sources (inject_scheduler.h)",
    "test_dynamic_link": "whitebox: includes src/tbb/dynamic_link.cpp",
    "test_environment_whitebox": "whitebox: includes src/tbb/environment.h",
    "test_handle_perror": "whitebox: includes src/tbb/exception.cpp",
    "test_intrusive_list": "whitebox: includes src/tbb/intrusive_list.h",
    "test_semaphore": "whitebox: includes src/tbb/semaphore.cpp",
    "test_arena_constraints": "hwloc: built against hwloc and tbbbind in upstream's CMake",
    "test_numa_dist": "Windows only in upstream's CMake",
    "test_implicit_linkage_on_windows": "Windows only in upstream's CMake",
    "test_adaptive_mutex": "not in upstream's test/CMakeLists.txt (not built by oneTBB 2021.8)",
    "test_tbb_header_secondary": "second source of test_tbb_header, not a program",
}
# What CI runs (the default; --all runs every program): all of test/conformance, and of
# test/tbb the programs that drive the r1 entry points libforkjoin-tbb implements: tasks,
# arenas, task groups, global_control and the scheduler handle, the algorithms and their
# exceptions and cancellation, the partitioners, the blocking queues and waits, the mutexes.
# Left out for time: test/tbb's flow-graph programs (the conformance ones cover the nodes),
# its container stress tests (100 s each on 2 cores), and test_resumable_tasks (105 s on
# forkjoin; it hangs natively here).
SELECTED_TBB = re.compile(r"test_(task|task_arena|task_group|arena_priorities|global_control|"
                          r"parallel_\w+|eh_algorithms|eh_thread|partitioner|scheduler_mix|"
                          r"collaborative_call_once|concurrent_queue|mutex|"
                          r"tbb_fork|hw_concurrency|enumerable_thread_specific|allocators|"
                          r"tick_count|blocked_range|tbb_header)$")
# A run expected to fail stops after this many seconds (the failure some wait for is a hang).
EXPECTED_FAILURE_TIMEOUT = 10.0
# Built with more than the common command line (upstream's test/CMakeLists.txt).
EXTRA_SOURCES = {"test_tbb_header": ["tbb/test_tbb_header_secondary.cpp"]}
EXTRA_FLAGS = {"test_openmp": ["-fopenmp"]}
# Linked with tbbmalloc too: a global tbb::scalable_allocator object (the test checks that
# declaring TBB objects does not start the scheduler; tbbmalloc is not under test).
EXTRA_LIBS = {"test_hw_concurrency": ["-ltbbmalloc"]}
# The rest of upstream's command line on x86-64 Linux (cmake/compilers/GNU.cmake): -mrtm and
# -mwaitpkg for the speculative mutexes and waitpkg pauses; no warnings, no -flto.
COMMON_FLAGS = ["-std=c++17", "-mrtm", "-mwaitpkg"]


@dataclasses.dataclass
class Result:
    name: str
    status: str        # pass, fail, timeout, build (did not build), skip
    detail: str = ""
    seconds: float = 0.0
    flaky: bool = False

    @property
    def ok(self):
        return self.status == "pass"


def test_root(sources):
    roots = sorted(pathlib.Path(sources).resolve().glob("oneTBB-*/test"))
    if not roots:
        raise SystemExit(f"no oneTBB-*/test under {sources} (run tests/peer/fetch.sh first)")
    return roots[-1]


def discover(root, everything):
    """[(name, source file)] of the test programs in test/conformance and test/tbb: all of
    them, or those CI runs (SELECTED_TBB)."""
    tbb = [f for f in sorted(root.glob("tbb/test_*.cpp"))
           if everything or SELECTED_TBB.match(f.stem)]
    return [(f.stem, f) for f in sorted(root.glob("conformance/conformance_*.cpp")) + tbb]


def base_environment():
    """The environment every run starts from: none of the caller's library paths, TBB,
    OpenMP or forkjoin settings, and the C locale."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMP_", "GOMP_", "KMP_", "FORKJOIN_", "TBB_", "LD_PRELOAD",
                                "LD_LIBRARY_PATH"))}
    env.update(LC_ALL="C", LANG="C")
    return env


class Runner:
    def __init__(self, args, root):
        self.args = args
        self.root = root
        self.env = base_environment()
        self.compiler = ["g++"]
        if not args.no_ccache and shutil.which("ccache"):
            self.compiler = ["ccache", "g++"]

    def workdir(self, name):
        return pathlib.Path(self.args.work).resolve() / name

    def command(self, name, source):
        sources = [str(source)] + [str(self.root / s) for s in EXTRA_SOURCES.get(name, [])]
        # -I the source's root (test/common/memory_usage.h includes "src/tbbmalloc/...") and
        # test/ ("common/test.h"); oneTBB's own headers come from /usr/include.
        return self.compiler + COMMON_FLAGS + self.args.opt.split() + \
            EXTRA_FLAGS.get(name, []) + ["-I", str(self.root.parent), "-I", str(self.root)] + \
            sources + ["-o", "prog", "-ltbb"] + EXTRA_LIBS.get(name, []) + ["-ldl", "-pthread"]

    def build(self, name, source):
        """Build into the test's work folder unless the last build there had the same command
        and sources. Returns a failed Result or None."""
        wd = self.workdir(name)
        command = self.command(name, source)
        stamp = hashlib.sha256(" ".join(command).encode())
        for path in [source] + [self.root / s for s in EXTRA_SOURCES.get(name, [])]:
            stamp.update(path.read_bytes())
        stamp = stamp.hexdigest()
        if (wd / "build.stamp").is_file() and (wd / "build.stamp").read_text() == stamp and \
                (wd / "prog").is_file():
            return None
        wd.mkdir(parents=True, exist_ok=True)
        (wd / "build.stamp").unlink(missing_ok=True)
        line = " ".join(command)
        rc, out, timed_out = sh(line, wd, self.env, BUILD_TIMEOUT)
        if rc != 0 or timed_out:
            return Result(name, "build", f"$ {line}\n{out[-OUTPUT_KEPT:]}")
        (wd / "build.stamp").write_text(stamp)
        return None

    def run(self, name, runtime, doctest_args="", limit=0.0):
        env = dict(self.env)
        if runtime == "forkjoin":
            env["LD_LIBRARY_PATH"] = str(pathlib.Path(self.args.replace).resolve())
        limit = limit or self.args.timeout
        start = time.monotonic()
        rc, out, timed_out = sh(f"./prog {doctest_args}".strip(), self.workdir(name), env, limit)
        seconds = time.monotonic() - start
        if timed_out:
            return Result(name, "timeout", f"(killed after {limit:.0f} s)\n"
                          + out[-OUTPUT_KEPT:], seconds)
        if rc != 0:
            why = f"exit status {rc}" if rc > 0 else f"signal {-rc}"
            return Result(name, "fail", f"({why})\n" + out[-OUTPUT_KEPT:], seconds)
        return Result(name, "pass", "", seconds)

    def checked_run(self, ident, name, doctest_args, expected_ok):
        """A forkjoin run; one that differs from the expectation is run once more, and marked
        flaky when the second run matches."""
        limit = 0.0 if expected_ok else min(self.args.timeout, EXPECTED_FAILURE_TIMEOUT)
        ours = self.run(name, "forkjoin", doctest_args, limit)
        if ours.ok != expected_ok:
            again = self.run(name, "forkjoin", doctest_args)
            if again.ok == expected_ok:
                again.flaky = True
                again.detail = f"first run: {ours.status}\n{ours.detail}"
                ours = again
        ours.name = ident
        return ours

    def __call__(self, name, source, listed):
        """[(ident, native result or None, forkjoin result)]: the program (natively as a
        whole; on forkjoin without the test cases listed as failing there), then each listed
        test case alone on forkjoin (ident PROGRAM:CASE)."""
        if name in SKIPPED:
            skip = Result(name, "skip", SKIPPED[name])
            return [(name, skip, skip)]
        failed = self.build(name, source)
        if failed:
            return [(name, failed, failed)]
        cases = sorted(k.split(":", 1)[1] for k in listed if k.startswith(name + ":"))
        native = self.run(name, "native") if not self.args.forkjoin_only else None
        exclude = f"--test-case-exclude={','.join(cases)}" if cases else ""
        rows = [(name, native, self.checked_run(name, name, exclude, name not in listed))]
        for case in cases:
            ident = f"{name}:{case}"
            rows.append((ident, None, self.checked_run(ident, name, f"--test-case={case}", False)))
        return rows


def report(rows, listed, verbose):
    """Print the failures and the summary line; returns the number of unexpected results.
    rows: (ident, native result or None, forkjoin result), ident PROGRAM or PROGRAM:CASE."""
    ran = [r for r in rows if r[2].status != "skip"]
    skipped = [r[2] for r in rows if r[2].status == "skip"]
    unexpected = 0
    for ident, native, ours in ran:
        if native is not None and not native.ok and verbose:
            print(f"FAIL natively [{SUITE}] {ident} ({native.status})")
            print("  " + native.detail.rstrip().replace("\n", "\n  "))
        if ours.ok == (ident not in listed):
            if not ours.ok and verbose:
                print(f"FAIL as expected [{SUITE}] {ident} ({ours.status}): {listed[ident]}")
                print("  " + ours.detail.rstrip().replace("\n", "\n  "))
            continue
        if ours.ok and listed[ident].startswith(EITHER):
            print(f"PASSED [{SUITE}] {ident}, listed as passing or failing by run")
            continue
        unexpected += 1
        if ours.ok:
            print(f"UNEXPECTED PASS [{SUITE}] {ident}")
            print(f"  it is listed as expected to fail: {listed[ident]}")
        else:
            print(f"UNEXPECTED FAILURE [{SUITE}] {ident} ({ours.status})")
            print("  " + ours.detail.rstrip().replace("\n", "\n  "))
    for _, _, ours in ran:
        if ours.flaky:
            print(f"FLAKY [{SUITE}] {ours.name}: {ours.detail.splitlines()[0]}, then as expected")
    present = {ident for ident, _, _ in ran}
    for ident in sorted(set(listed) - present):
        unexpected += 1
        print(f"STALE [{SUITE}] {ident} is listed as expected to fail but was not run")
    if verbose:
        for r in skipped:
            print(f"SKIP [{SUITE}] {r.name}: {r.detail}")
    programs = [r for r in ran if ":" not in r[0]]
    ours_passed = sum(ours.ok for _, _, ours in programs)
    trimmed = sum(ours.ok and any(i.startswith(ident + ":") for i in listed)
                  for ident, _, ours in programs)
    native_passed = sum(native is not None and native.ok for _, native, _ in programs)
    builds = sum(ours.status == "build" for _, _, ours in programs)
    cases = len(ran) - len(programs)
    print(f"peer[{SUITE}]: {len(programs)} run, {ours_passed} passed on forkjoin ({trimmed} of "
          f"them without their {cases} test cases listed as failing), {native_passed} passed "
          f"natively, {len(programs) - ours_passed} failed ({builds} did not build), "
          f"{unexpected} unexpected; not built: {len(skipped)}")
    return unexpected


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sources", required=True, help="the folder tests/peer/fetch.sh filled")
    ap.add_argument("--replace", default="build/dev/tbb/forkjoin-tbb-replace",
                    help="libforkjoin-tbb's replace folder (holds libtbb.so.12)")
    ap.add_argument("--work", default="build/peer-onetbb", help="build and run folder")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per run")
    ap.add_argument("--opt", default="-O0",
                    help="optimisation flags (default -O0: compiles in about half the time of "
                         "-O1; no test here needs optimisation to finish in time)")
    ap.add_argument("--all", action="store_true",
                    help="every program of test/tbb, not only those CI runs (SELECTED_TBB)")
    ap.add_argument("--filter", default="", help="only tests whose name matches this regex")
    ap.add_argument("--forkjoin-only", action="store_true", help="skip the native runs")
    ap.add_argument("--no-ccache", action="store_true", help="compile without ccache")
    ap.add_argument("--results", help="write name, native status, forkjoin status and "
                    "seconds of each test here")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="also print every failure and every test not built, with the reason")
    args = ap.parse_args()
    if not (pathlib.Path(args.replace) / "libtbb.so.12").exists():
        raise SystemExit(f"no libtbb.so.12 in {args.replace} (build the forkjoin_tbb target)")
    root = test_root(args.sources)
    tests = [(n, s) for n, s in discover(root, args.all) if re.search(args.filter, n)]
    listed = read_expected(SUITE)
    if args.filter:  # a partial run still says what the list expects of each test
        listed = {k: v for k, v in listed.items() if any(n == k.split(":")[0] for n, _ in tests)}
    runner = Runner(args, root)
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(runner, n, s, listed) for n, s in tests]
        rows = [row for f in futures for row in f.result()]
    unexpected = report(rows, listed, args.verbose)
    print(f"peer[{SUITE}]: {time.monotonic() - start:.0f} s")
    if args.results:
        lines = [f"{ident}\t{n.status if n else '-'}\t{o.status}\t{n.seconds if n else 0:.2f}"
                 f"\t{o.seconds:.2f}" for ident, n, o in rows]
        pathlib.Path(args.results).write_text("\n".join(lines) + "\n")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Run the OpenMP runtimes' own test suites on libforkjoin-omp.

The suites are libgomp's (gcc 12's libgomp.c, libgomp.c++ with libgomp.c-c++-common, and
libgomp.fortran) and LLVM libomp 14's openmp/runtime/test. None of their files is in this
repository: tests/peer/fetch.sh unpacks them from Debian's packages into a folder given to
--sources. Each host program is built the way its suite builds it, against its native
runtime (gcc -fopenmp: libgomp), honouring its directives (dejagnu.py, lit.py), then run
on the runtime under test: by default forkjoin (the forkjoin-omp launcher, which preloads
libforkjoin-omp), at 2 threads, with a timeout, several at a time.

Each suite has a list of the programs expected to fail on forkjoin, one per line with its
reason (tests/peer/expected/SUITE.txt). The run fails on every unexpected result: a failure
not on the list, and a pass that is on it, so that the list stays true. A result that
differs from the expectation is run once more, and one that changes is reported as flaky
without failing the run. With another --runtime (native, libomp) nothing is compared: the
counts are printed, for docs/openmp-binary.md.

  tests/peer/fetch.sh build/peer-src
  tests/peer/peer.py --sources build/peer-src --launcher build/dev/omp/forkjoin-omp
"""
import argparse
import concurrent.futures
import dataclasses
import hashlib
import os
import pathlib
import re
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from testcase import Test  # noqa: E402  (beside this file)

HERE = pathlib.Path(__file__).resolve().parent
EXPECTED = HERE / "expected"
# A reason starting so: the program passes or fails from run to run here (which pool thread
# serves which team member); a pass is not counted as unexpected.
EITHER = "either:"
SETTINGS = HERE / "settings.txt"
LIBOMP = "/usr/lib/llvm-14/lib/libomp.so.5"
LIBGOMP = "/usr/lib/x86_64-linux-gnu/libgomp.so.1"
# The entry points of an OpenMP runtime, by name (libgomp's, libomp's, and OpenACC's).
RUNTIME_SYMBOL = re.compile(r"^(GOMP_|GOACC_|omp_|acc_|__kmpc_|kmp_|__kmp|ompc_|ompt_)")
# Suites run when --suite is not given (what CI runs): all of them.
DEFAULT_SUITES = ["libgomp-c", "libgomp-c++", "libgomp-fortran", "llvm-gcc", "llvm-clang"]
ALL_SUITES = ["libgomp-c", "libgomp-c++", "libgomp-fortran", "llvm-gcc", "llvm-clang"]
BUILD_TIMEOUT = 300.0
OUTPUT_KEPT = 4000  # characters of a failing step's output kept for the report


@dataclasses.dataclass
class Result:
    test: Test
    status: str      # pass, fail, timeout, build (did not build), binding, skip
    detail: str = ""
    seconds: float = 0.0
    flaky: bool = False

    @property
    def ok(self):
        """Did the test end as its suite wants (a suite-expected failure that fails is ok)?"""
        return (self.status == "pass") != self.test.expect_fail


def dynamic_symbols(path, defined):
    """The names of the dynamic symbols an ELF file defines (or needs), without versions."""
    flag = "--defined-only" if defined else "--undefined-only"
    out = subprocess.run(["nm", "-D", flag, str(path)], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}


def runtime_entry_points(library):
    """(what the native runtimes export, what libforkjoin-omp exports): a program that needs
    a name of the first set missing from the second would call the native runtime while it
    runs on forkjoin."""
    native = set()
    for lib in (LIBGOMP, LIBOMP):
        if os.path.exists(lib):
            native |= {n for n in dynamic_symbols(lib, True) if RUNTIME_SYMBOL.match(n)}
    return native, dynamic_symbols(library, True)


def base_environment(threads):
    """The environment every step starts from: none of the caller's OpenMP or forkjoin
    settings, the C locale (messages are matched), and the team size asked for."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMP_", "GOMP_", "KMP_", "FORKJOIN_", "LD_PRELOAD"))}
    env.update(LC_ALL="C", LANG="C", OMP_NUM_THREADS=str(threads))
    return env


def sh(command, cwd, env, timeout):
    """Run a bash command line in its own process group: (exit status, output, timed out)."""
    proc = subprocess.Popen(["bash", "-o", "pipefail", "-c", command], cwd=cwd, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out.decode(errors="replace"), False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return proc.returncode, out.decode(errors="replace"), True


class Runner:
    def __init__(self, args, prefix):
        self.args = args
        self.prefix = prefix  # what the run steps put before the program ($PEER_RUN)
        self.env = base_environment(args.threads)
        self.entry_points = runtime_entry_points(args.library) \
            if args.runtime == "forkjoin" else None

    def unbound(self, suite, test):
        """A Result when the program needs a runtime entry point that forkjoin does not
        export (preloaded, that call would silently go to the native runtime), else None."""
        program = self.workdir(suite, test) / test.program
        if self.entry_points is None or not program.is_file():
            return None
        native, ours = self.entry_points
        missing = sorted((dynamic_symbols(program, False) & native) - ours)
        if not missing:
            return None
        return Result(test, "binding", "needs entry points libforkjoin-omp does not export "
                      "(they would bind to the native runtime): " + ", ".join(missing))

    def workdir(self, suite, test):
        return workdir(self.args, suite, test.ident)

    def build_stamp(self, test):
        h = hashlib.sha256()
        for kind, command in test.steps:
            if kind == "build":
                h.update(command.encode())
        for path in sorted(set(re.findall(r"\S+\.(?:c|C|cc|cpp|h|f90|f|F90|F)\b",
                                          " ".join(c for _, c in test.steps)))):
            p = pathlib.Path(path)
            if p.is_absolute() and p.is_file():
                h.update(p.read_bytes())
        h.update(test.source.read_bytes())
        return h.hexdigest()

    def build(self, suite, test):
        """Build into a fresh work folder; reuses the last build when --reuse-builds and
        nothing it depends on changed. Returns a failed Result or None."""
        wd = self.workdir(suite, test)
        stamp = self.build_stamp(test)
        if self.args.reuse_builds and (wd / "build.stamp").is_file() and \
                (wd / "build.stamp").read_text() == stamp:
            return None
        if wd.exists():
            subprocess.run(["rm", "-rf", str(wd)], check=True)
        wd.mkdir(parents=True)
        for kind, command in test.steps:
            if kind != "build":
                continue
            rc, out, timed_out = sh(command, wd, self.env, BUILD_TIMEOUT)
            if rc != 0 or timed_out:
                return Result(test, "build", f"$ {command}\n{out[-OUTPUT_KEPT:]}")
        (wd / "build.stamp").write_text(stamp)
        return None

    def run(self, suite, test):
        wd = self.workdir(suite, test)
        env = dict(self.env)
        own = self.args.settings.get((suite, test.ident), {})
        if "threads" in own:
            env["OMP_NUM_THREADS"] = own["threads"]
        env.update(test.env)
        env["PEER_RUN"] = self.prefix
        limit = float(own.get("timeout", 0)) or (test.timeout or self.args.timeout) * \
            test.timeout_factor
        output = []
        for kind, command in test.steps:
            if kind != "run":
                continue
            rc, out, timed_out = sh(command, wd, env, limit)
            output.append(out)
            if timed_out:
                return Result(test, "timeout", f"$ {command}\n(killed after {limit:.0f} s)\n"
                              + out[-OUTPUT_KEPT:])
            if (rc != 0) != test.should_fail:
                why = "exited 0, the suite wants a failure" if test.should_fail else \
                    f"exit status {rc}" if rc > 0 else f"signal {-rc}"
                return Result(test, "fail", f"$ {command}\n({why})\n" + out[-OUTPUT_KEPT:])
        if test.output_pattern and not re.search(test.output_pattern, "".join(output),
                                                 re.DOTALL):
            return Result(test, "fail", f"output does not match {test.output_pattern!r}:\n"
                          + "".join(output)[-OUTPUT_KEPT:])
        return Result(test, "pass")

    def __call__(self, suite, test, expected_ok):
        start = time.monotonic()
        if test.unsupported:
            return Result(test, "skip", test.unsupported)
        result = self.build(suite, test) or self.unbound(suite, test) or self.run(suite, test)
        if result.ok != expected_ok and result.status not in ("build", "binding"):
            again = self.run(suite, test)
            if again.ok == expected_ok:
                again.flaky = True
                again.detail = f"first run: {result.status}\n{result.detail}"
                result = again
        result.seconds = time.monotonic() - start
        return result


def workdir(args, suite, ident):
    return pathlib.Path(args.work).resolve() / suite / re.sub(r"[^A-Za-z0-9_.+-]", "_", ident)


def read_expected(suite):
    """{ident: reason} from tests/peer/expected/SUITE.txt (`ident  reason`, # comments)."""
    path = EXPECTED / f"{suite}.txt"
    listed = {}
    if path.is_file():
        for number, line in enumerate(path.read_text().splitlines(), 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            ident, _, reason = line.partition(" ")
            if not reason.strip():
                raise SystemExit(f"{path}:{number}: {ident} has no reason")
            listed[ident] = reason.strip()
    return listed


def read_settings():
    """{(suite, ident): {key: value}} from tests/peer/settings.txt: `SUITE IDENT KEY=VALUE...
    # reason`, with threads= (OMP_NUM_THREADS for that test) and timeout= (seconds)."""
    settings = {}
    for number, line in enumerate(SETTINGS.read_text().splitlines(), 1):
        text, _, reason = line.partition("#")
        words = text.split()
        if not words:
            continue
        pairs = dict(w.split("=", 1) for w in words[2:] if "=" in w)
        if len(words) < 3 or len(pairs) != len(words) - 2 or not reason.strip() or \
                not set(pairs) <= {"threads", "timeout"}:
            raise SystemExit(f"{SETTINGS}:{number}: want SUITE IDENT threads=N|timeout=S # reason")
        settings[(words[0], words[1])] = pairs
    return settings


def load_suite(name, args):
    import dejagnu
    import lit
    sources = pathlib.Path(args.sources).resolve()
    if name.startswith("libgomp-"):  # the testsuite's default: -O2
        opt = (args.opt if args.opt is not None else "-O2").split()
        root = dejagnu.gcc_libgomp_root(sources)
        return dejagnu.libgomp_suite(root, name.split("-", 1)[1], opt)
    opt = (args.opt or "").split()  # lit.cfg's default: none (-O0)
    return lit.llvm_suite(lit.llvm_test_root(sources), name.split("-", 1)[1], opt,
                          lambda ident: workdir(args, name, ident))


def runtime_prefix(args):
    if args.runtime == "forkjoin":
        launcher = pathlib.Path(args.launcher).resolve()
        if not os.access(launcher, os.X_OK):
            raise SystemExit(f"no launcher at {launcher} (build the forkjoin_omp target)")
        return str(launcher)
    if args.runtime == "libomp":
        return f"env LD_PRELOAD={LIBOMP}"
    return ""


def report(suite, results, listed, compare, seconds, verbose):
    """Print the suite's failures and summary; returns the number of unexpected results."""
    ran = [r for r in results if r.status != "skip"]
    skipped = [r for r in results if r.status == "skip"]
    passed = [r for r in ran if r.ok]
    unexpected = []
    for r in ran:
        if compare and r.ok == (r.test.ident not in listed):
            continue
        if compare and r.ok and listed[r.test.ident].startswith(EITHER):
            print(f"PASSED [{suite}] {r.test.ident}, listed as passing or failing by run")
            continue
        if compare:
            unexpected.append(r)
            what = "UNEXPECTED PASS" if r.ok else "UNEXPECTED FAILURE"
            print(f"{what} [{suite}] {r.test.ident} ({r.status})")
            if not r.ok and r.status == "pass":
                print("  it passed, and its suite expects it to fail here (XFAIL)")
            elif not r.ok:
                print("  " + r.detail.rstrip().replace("\n", "\n  "))
            else:
                print(f"  it is listed as expected to fail: {listed[r.test.ident]}")
        elif not r.ok and verbose:
            print(f"FAIL [{suite}] {r.test.ident} ({r.status})")
            print("  " + (r.detail or "it passed, and its suite expects it to fail here (XFAIL)")
                  .rstrip().replace("\n", "\n  "))
    for r in ran:
        if r.flaky:
            print(f"FLAKY [{suite}] {r.test.ident}: {r.detail.splitlines()[0]}, then as expected")
    if compare:
        present = {r.test.ident for r in ran}
        for ident in sorted(set(listed) - present):
            unexpected.append(None)
            print(f"STALE [{suite}] {ident} is listed as expected to fail but was not run")
    if verbose:
        for r in skipped:
            print(f"SKIP [{suite}] {r.test.ident}: {r.detail}")
    builds = sum(r.status == "build" for r in ran)
    bindings = sum(r.status == "binding" for r in ran)
    build_only = sum("builds only" in r.detail for r in skipped)
    print(f"peer[{suite}]: {len(ran)} run, {len(passed)} passed, {len(ran) - len(passed)} "
          f"failed ({builds} did not build, {bindings} need entry points forkjoin lacks), "
          f"{len(unexpected) if compare else '-'} unexpected; not run: {build_only} "
          f"build-only, {len(skipped) - build_only} unsupported; {seconds:.0f} s")
    return len(unexpected)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sources", required=True, help="the folder tests/peer/fetch.sh filled")
    ap.add_argument("--suite", action="append", choices=ALL_SUITES,
                    help=f"suites to run (default: {' '.join(DEFAULT_SUITES)})")
    ap.add_argument("--runtime", choices=["forkjoin", "native", "libomp"], default="forkjoin",
                    help="run on forkjoin (compared with the expected lists), on the "
                         "program's own runtime, or on LLVM's libomp (preloaded)")
    ap.add_argument("--launcher", default="build/dev/omp/forkjoin-omp")
    ap.add_argument("--library", default="build/dev/omp/libforkjoin-omp.so",
                    help="the library the launcher preloads (its exports are checked)")
    ap.add_argument("--work", default="build/peer", help="build and run folder")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--threads", type=int, default=2, help="OMP_NUM_THREADS (default 2)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per run")
    ap.add_argument("--opt", help="optimisation flags of tests that do not set their own "
                    "(default: the suite's, -O2 for libgomp's, none for LLVM's)")
    ap.add_argument("--filter", default="", help="only tests whose name matches this regex")
    ap.add_argument("--reuse-builds", action="store_true",
                    help="keep a test's build when its commands and sources did not change")
    ap.add_argument("--results", help="write suite, test, status, seconds and ok/not ok of "
                    "each test here (ok: ended as its suite wants)")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="also print every failure and every test not run, with the reason")
    args = ap.parse_args()
    args.settings = read_settings()
    prefix = runtime_prefix(args)
    runner = Runner(args, prefix)
    compare = args.runtime == "forkjoin" and not args.filter
    total_unexpected, totals = 0, [0, 0]
    rows = []
    for suite in args.suite or DEFAULT_SUITES:
        start = time.monotonic()
        tests = [t for t in load_suite(suite, args) if re.search(args.filter, t.ident)]
        listed = read_expected(suite) if args.runtime == "forkjoin" else {}
        if args.filter:  # a partial run still says what the list expects of each test
            listed = {k: v for k, v in listed.items() if any(t.ident == k for t in tests)}
            compare = args.runtime == "forkjoin"
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = [pool.submit(runner, suite, t, t.ident not in listed) for t in tests]
            results = [f.result() for f in futures]
        total_unexpected += report(suite, results, listed, compare, time.monotonic() - start,
                                   args.verbose)
        ran = [r for r in results if r.status != "skip"]
        totals[0] += sum(r.ok for r in ran)
        totals[1] += sum(not r.ok for r in ran)
        rows += [f"{suite}\t{r.test.ident}\t{r.status}\t{r.seconds:.2f}\t{'ok' if r.ok else 'not ok'}"
                 for r in results]
    if args.results:
        pathlib.Path(args.results).write_text("\n".join(rows) + "\n")
    print(f"peer on {args.runtime}: {totals[0]} passed, {totals[1]} failed"
          + (f" ({total_unexpected} unexpected)" if compare else ""))
    return 1 if total_unexpected else 0


if __name__ == "__main__":
    sys.exit(main())

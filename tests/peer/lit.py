"""LLVM libomp's runtime tests (lit): find the programs and read their RUN lines.

A test is a .c or .cpp file with `RUN:` lines (a trailing backslash continues one on the
next RUN: line), run in order as shell commands after substitution (%libomp-compile-and-run
and friends, %s, %t, ...), and `REQUIRES:`, `UNSUPPORTED:` and `XFAIL:` lines naming the
features of the compiler and host. The substitutions here build the program with the
compiler of the suite (gcc or clang, each with its own omp.h and runtime) and put $PEER_RUN
(peer.py's runtime under test) before every run of it. Each RUN line is split into the part
that builds (everything before its first run of the program) and the part that runs.
"""
import multiprocessing
import pathlib
import re

from testcase import Test

FILECHECK = "/usr/lib/llvm-14/bin/FileCheck"
NOT = "/usr/lib/llvm-14/bin/not"
COMPILERS = {  # suite name -> (C compiler, C++ compiler, version for the features)
    "gcc": ("gcc", "g++", "12.2.0"),
    "clang": ("clang-14", "clang++-14", "14.0.6"),
}
_RUN = "$PEER_RUN %t"


def features(compiler):
    """What lit.cfg would make available for this compiler on this host (no OMPT tool
    support is tested: forkjoin has no OMPT interface, and libgomp none either)."""
    version = COMPILERS[compiler][2]
    major, minor = version.split(".")[:2]
    found = {compiler, f"{compiler}-{major}", f"{compiler}-{major}.{minor}",
             f"{compiler}-{version}", "linux", "affinity"}
    if multiprocessing.cpu_count() > 1:
        found.add("multicpu")
    return found


def substitutions(compiler, opt, root, source, tmp):
    cc, cxx, _ = COMPILERS[compiler]
    libs = " -lm"
    flags = f"-I {root}"  # omp_testsuite.h; omp.h is the compiler's own
    return [  # in lit.cfg's order: a longer name before the names it contains
        ("%libomp-compile-and-run", "%libomp-compile && %libomp-run"),
        ("%libomp-c99-compile-and-run", "%libomp-c99-compile && %libomp-run"),
        ("%libomp-cxx-compile-and-run", "%libomp-cxx-compile && %libomp-run"),
        ("%libomp-cxx-compile-c", "%clangXX %openmp_flags %flags -std=c++14 -x c++ %s -o %t"
         + libs),
        ("%libomp-cxx-compile", "%clangXX %openmp_flags %flags -std=c++14 %s -o %t" + libs),
        ("%libomp-compile", "%clang %openmp_flags %flags %s -o %t" + libs),
        ("%libomp-c99-compile", "%clang %openmp_flags %flags -std=c99 %s -o %t" + libs),
        ("%libomp-run", _RUN),
        ("%clangXX", cxx),
        ("%clang", cc),
        ("%openmp_flags", "-fopenmp"),
        ("%flags-use-compiler-omp-h", "%flags"),
        ("%flags", f"{flags} {' '.join(opt)}".strip()),
        ("%python", "python3"),
        ("%not", NOT),
        ("%sort-threads", "sort -n -s"),
        ("FileCheck", FILECHECK),
        ("%s", str(source)),
        ("%S", str(source.parent)),
        ("%p", str(source.parent)),
        ("%t", str(tmp / "t.exe")),
        ("%T", str(tmp)),
    ]


def _expand(line, subs):
    line = line.replace("%%", "\0")
    for name, value in subs:
        line = line.replace(name, value)
    return line.replace("\0", "%")


def _holds(expression, available):
    """One comma-separated item of REQUIRES/UNSUPPORTED/XFAIL: a feature, `*`, or a
    boolean expression of features with !, &&, || and parentheses."""
    expression = expression.strip()
    if expression == "*":
        return True
    tokens = re.findall(r"\(|\)|!|&&|\|\||[^\s()!&|]+", expression)
    pos = 0

    def atom():
        nonlocal pos
        tok = tokens[pos]
        pos += 1
        if tok == "!":
            return not atom()
        if tok == "(":
            value = either()
            pos += 1  # the closing parenthesis
            return value
        return tok in available

    def both():
        nonlocal pos
        value = atom()
        while pos < len(tokens) and tokens[pos] == "&&":
            pos += 1
            value = atom() and value
        return value

    def either():
        nonlocal pos
        value = both()
        while pos < len(tokens) and tokens[pos] == "||":
            pos += 1
            value = both() or value
        return value

    return either()


def _split_run(command):
    """(build part, run part) of one substituted RUN line, split at the && before the first
    command that runs the program."""
    parts = command.split("&&")
    for i, part in enumerate(parts):
        if "$PEER_RUN" in part:
            return "&&".join(parts[:i]).strip(), "&&".join(parts[i:]).strip()
    return command.strip(), ""


def read_test(root, path, ident, compiler, opt, workdir):
    test = Test(ident=ident, source=path, program="t.exe")
    available = features(compiler)
    runs, pending = [], ""
    for line in path.read_text(errors="replace").splitlines():
        for key in ("REQUIRES:", "UNSUPPORTED:", "XFAIL:"):
            if key in line:
                items = line.split(key, 1)[1].split(",")
                values = [_holds(item, available) for item in items if item.strip()]
                if key == "REQUIRES:" and not all(values):
                    test.unsupported = f"REQUIRES:{line.split(key, 1)[1]}"
                elif key == "UNSUPPORTED:" and any(values):
                    test.unsupported = f"UNSUPPORTED:{line.split(key, 1)[1]}"
                elif key == "XFAIL:" and any(values):
                    test.expect_fail = True
        if "RUN:" in line:
            text = line.split("RUN:", 1)[1].rstrip()
            if text.endswith("\\"):
                pending += text[:-1] + " "
                continue
            runs.append(pending + text)
            pending = ""
    if not runs:
        test.unsupported = test.unsupported or "no RUN line"
        return test
    subs = substitutions(compiler, opt, root, path, workdir)
    for run in runs:
        build, execute = _split_run(_expand(run, subs))
        if build:
            test.steps.append(("build", build))
        if execute:
            test.steps.append(("run", execute))
    if not any(kind == "run" for kind, _ in test.steps) and not test.unsupported:
        test.unsupported = "builds only, nothing runs on the runtime"
    return test


def llvm_suite(root, compiler, opt, workdir_of):
    """The tests of openmp/runtime/test; `opt`: flags added to every build (the suite's own
    default is none, i.e. -O0); `workdir_of(ident)` is the folder a test's %t and %T live in
    (peer.py's work folder for it)."""
    tests = []
    for path in sorted(root.rglob("*")):
        if path.suffix in (".c", ".cpp") and path.is_file():
            ident = str(path.relative_to(root))
            tests.append(read_test(root, path, ident, compiler, opt, workdir_of(ident)))
    return tests


def llvm_test_root(source_dir):
    hits = sorted(pathlib.Path(source_dir).glob("llvm-toolchain-*/openmp/runtime/test"))
    if not hits:
        raise SystemExit(f"no llvm-toolchain-*/openmp/runtime/test under {source_dir}: "
                         "run tests/peer/fetch.sh first")
    return hits[-1]

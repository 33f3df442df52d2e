#!/usr/bin/env python3
"""check_docs.py: the user documentation (README.md, docs/*.md) speaks to users, and its
code is code that builds.

1. No design step tags ([P-...], [INV-...]: those belong to forkjoin/DESIGN.md, omp/DESIGN.md and the code
   comments), no references to the project's internal history (issue numbers, sessions),
   and no build directory of one preset hard-coded in docs/ (build/release/, build/dev/).
2. Every fenced code block in C, C++ or CMake is preceded by a line
   `<!-- snippet: PATH#NAME -->` naming a source file of the repository in which the same
   text stands between a line containing `[doc:NAME]` and a line containing `[/doc]`
   (compared after removing the region's common indentation). Those files are built and run
   by the test suite (examples/doc_snippets.cpp, examples/openmp_side_by_side.cpp,
   tests/package/consumer/CMakeLists.txt), so a snippet that drifts from them, or a new
   snippet nobody compiles, fails here.
3. Every repository path the prose names exists: a backticked `a/b...` whose first folder is
   one of the repository's own (build trees and system paths are left alone; `<build>/...`
   names a build tree), and the target of every relative link, resolved from the document's
   folder. A glob (`bench/compare/impl_*.cpp`) must match a file. A `#anchor` or `:line`
   suffix is dropped first. "Exists" means tracked by git (on disk when there is no git), so a
   path that only a local build or an old tree has fails here.
4. The README's test command (the one ending in `cmake --workflow --preset test`) installs
   every package that .ci/run installs (its `need+=(...)` lines), but the few that only CI's
   own steps use (CI_ONLY below): a package the tests need and the README forgets makes its
   tests skip on a user's machine.

Run from anywhere: python3 .ci/check_docs.py. Prints each problem and exits 1, or 0.
python3 .ci/check_docs.py --self-test checks rule 3 on made-up lines.
"""

import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CODE_LANGS = {"c", "cpp", "c++", "cxx", "cmake"}
FORBIDDEN = [
    (re.compile(r"\[(P|INV)-[A-Z]"), "a design step tag (user docs name DESIGN.md's sections instead)"),
    (re.compile(r"\bissues? #?\d+", re.I), "an issue number (internal history)"),
    (re.compile(r"\bsessions?\b", re.I), "a session (internal history)"),
]
FORBIDDEN_IN_DOCS = [
    (re.compile(r"\bbuild/(release|dev|asan|tsan|clang)/"), "one preset's build directory hard-coded"),
]
# Packages .ci/run installs for its own steps, not for the test workflow: the README's test
# command need not install them.
CI_ONLY = {
    "git": "the commit-subject check",
    "clang-tidy-14": "clang-tidy",
    "clang-format": "the format check",
    "llvm-14-tools": "FileCheck, for the peer runtimes' suites (tests/peer)",
    "ccache": "a compiler cache",
}
INLINE_CODE = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"\]\(([^)\s]+)\)")
SNIPPET = re.compile(r"^<!--\s*snippet:\s*(\S+?)#(\S+)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")


def dedent(lines):
    indents = [len(l) - len(l.lstrip(" ")) for l in lines if l.strip()]
    cut = min(indents) if indents else 0
    return [l[cut:] if l.strip() else "" for l in lines]


def region(path, name):
    """The lines between the [doc:name] and [/doc] markers of path, or None."""
    try:
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError:
        return None
    for i, line in enumerate(lines):
        if re.search(r"\[doc:%s\]" % re.escape(name), line):
            for j in range(i + 1, len(lines)):
                if "[/doc]" in lines[j]:
                    return dedent(lines[i + 1 : j])
            return None
    return None


def repository_files():
    """The tracked files (git ls-files), or every file on disk but build trees when there is no git."""
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], capture_output=True, check=True).stdout
        return set(out.decode("utf-8").split("\0")) - {""}
    except (OSError, subprocess.CalledProcessError):
        files = set()
        for top, dirs, names in os.walk(ROOT):
            dirs[:] = [d for d in dirs if d != ".git" and not (top == ROOT and d.startswith("build"))]
            files.update(os.path.relpath(os.path.join(top, n), ROOT) for n in names)
        return files


class Paths:
    """Which repository paths exist: files, and the folders that hold them."""

    def __init__(self, files):
        self.files = set(files)
        self.folders = {os.path.dirname(f) for f in self.files}
        for d in list(self.folders):
            while d:
                d = os.path.dirname(d)
                self.folders.add(d)
        self.tops = {f.split("/", 1)[0] for f in self.files if "/" in f}

    def exists(self, path):
        path = os.path.normpath(path).replace(os.sep, "/")
        if any(c in path for c in "*?"):  # a glob, whose * and ? stay within one folder
            pattern = "".join({"*": "[^/]*", "?": "[^/]"}.get(c, re.escape(c)) for c in path)
            return any(re.fullmatch(pattern, f) for f in self.files)
        return path in self.files or path in self.folders

    def problems(self, rel, n, line):
        """The missing paths of one line of prose in the document rel, as problem strings."""
        found = []
        for m in INLINE_CODE.finditer(line):
            token = m.group(1).strip().rstrip(".,;:")
            if "/" not in token or re.search(r"[\s<>{}$=]|://", token) or token.split("/", 1)[0] not in self.tops:
                continue
            path = re.sub(r"(#.*|:\d+(-\d+)?)$", "", token)
            if not self.exists(path):
                found.append("%s:%d: `%s` does not exist in the repository" % (rel, n, token))
        for m in LINK.finditer(line):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue
            path = target.split("#", 1)[0]
            if path and not self.exists(os.path.join(os.path.dirname(rel), path)):
                found.append("%s:%d: the link (%s) names a path that does not exist" % (rel, n, target))
        return found


def check_file(path, problems, paths):
    rel = os.path.relpath(path, ROOT)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    rules = FORBIDDEN + (FORBIDDEN_IN_DOCS if rel.startswith("docs" + os.sep) else [])
    in_code, lang, start, body, pending = False, "", 0, [], None
    for n, line in enumerate(lines, 1):
        for pattern, why in rules:
            m = pattern.search(line)
            if m:
                problems.append("%s:%d: %s: '%s'" % (rel, n, why, m.group(0)))
        fence = FENCE.match(line)
        if not in_code and not fence:
            problems.extend(paths.problems(rel, n, line))
        if not in_code:
            m = SNIPPET.match(line.strip())
            if m:
                pending = (m.group(1), m.group(2), n)
            elif fence:
                in_code, lang, start, body = True, fence.group(2).lower(), n, []
            elif line.strip():
                pending = None
            continue
        if fence and not fence.group(2):
            in_code = False
            if lang in CODE_LANGS:
                if pending is None:
                    problems.append(
                        "%s:%d: a %s block with no '<!-- snippet: PATH#NAME -->' line before it: put the code "
                        "in a file the tests build, between [doc:NAME] and [/doc], and name it" % (rel, start, lang)
                    )
                else:
                    src, name, at = pending
                    want = region(src, name)
                    got = dedent(body)
                    if want is None:
                        problems.append("%s:%d: snippet %s#%s: no [doc:%s] ... [/doc] region in %s" % (rel, at, src, name, name, src))
                    elif got != want:
                        diff = next((k for k in range(max(len(got), len(want))) if k >= len(got) or k >= len(want) or got[k] != want[k]), 0)
                        problems.append(
                            "%s:%d: the block differs from %s#%s at its line %d:\n  doc:    %r\n  source: %r"
                            % (rel, start, src, name, diff + 1, got[diff] if diff < len(got) else "<end>", want[diff] if diff < len(want) else "<end>")
                        )
            pending = None
        else:
            body.append(line)
    if in_code:
        problems.append("%s:%d: a code block that never closes" % (rel, start))


def check_test_command(problems):
    """The README's test command installs what .ci/run installs, but CI_ONLY."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        commands = [l for l in f.read().split("\n") if l.rstrip().endswith("cmake --workflow --preset test")]
    if len(commands) != 1:
        problems.append("README.md: expected one command ending in 'cmake --workflow --preset test', found %d" % len(commands))
        return
    m = re.search(r"apt-get install -y ([^&]+)&&", commands[0])
    if not m:
        problems.append("README.md: the test command installs nothing with 'apt-get install -y ... &&'")
        return
    readme = set(m.group(1).split())
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
        ci = re.findall(r"need\+=\(([^)\s]+)\)", f.read())
    if not ci:
        problems.append(".ci/run: no need+=(PACKAGE) line found")
    for package in ci:
        if package not in readme and package not in CI_ONLY:
            problems.append(
                "README.md: the test command does not install %s, which .ci/run installs (add it, or list it "
                "in CI_ONLY of .ci/check_docs.py if only CI's own steps use it)" % package
            )


def self_test():
    """Rule 3 on made-up lines: the missing paths found, the rest left alone."""
    paths = Paths(["omp/core/team.cpp", "bench/compare/impl_tbb.cpp", "docs/tracing.md", "README.md"])
    cases = [
        ("`omp/core/team.cpp` and `omp/core/` and `omp/core/team.cpp:12` and `omp/core/team.cpp#x`", 0),
        ("`bench/compare/impl_*.cpp`, `omp/*/team.cpp`, `omp/core/t?am.cpp`", 0),
        ("`build/release/bench/results/`, `/usr/include/omp.h`, `<build>/bench/results/`, `forkjoin::join`", 0),
        ("`cmake --install build --prefix DIR`, `a/b`, `omp/<file>`, `https://x/y`, `omp/{a,b}.cpp`", 0),
        ("[tracing](tracing.md), [top](#top), [site](https://example.org/a/b), [r](../README.md#x)", 0),
        ("`omp/team.cpp`", 1),
        ("`omp/core/team.cpp` and `omp/core/tem.cpp:3` and `bench/compare/impl_*.c`", 2),
        ("`omp/kmpc/` and `omp/*.cpp` and `omp/c?re.cpp`", 3),
        ("[missing](nothere.md) and [up](../omp/team.cpp#L3)", 2),
    ]
    failed = 0
    for line, want in cases:
        got = paths.problems("docs/x.md", 1, line)
        if len(got) != want:
            failed += 1
            print("check_docs --self-test: %r: expected %d problems, got %d: %s" % (line, want, len(got), got))
    print("check_docs --self-test: %d of %d cases as expected" % (len(cases) - failed, len(cases)))
    return 1 if failed else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    files = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    problems = []
    paths = Paths(repository_files())
    for path in files:
        check_file(path, problems, paths)
    check_test_command(problems)
    for p in problems:
        print("check_docs: " + p)
    if problems:
        return 1
    print(
        "check_docs: %d files: no internal references, every code snippet matches the file that builds it, "
        "every repository path named exists; the README's test command installs what .ci/run installs for the "
        "tests" % len(files)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

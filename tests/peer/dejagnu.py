"""libgomp's testsuite (DejaGnu): find the host programs and read their dg- directives.

A libgomp test is one source file whose comments hold directives of the form
`{ dg-NAME args... }`, one per line, the arguments written as Tcl words. This module turns
each file into a `Test` (see peer.py): how to build it, how to run it, what counts as
passing, or why it is not run. Only what decides building and running is honoured; the
directives that check the compiler's own diagnostics and dumps (dg-warning, dg-error,
dg-final, ...) concern gcc, not the runtime, and are read past.
"""
import fnmatch
import pathlib
import re
import shlex

from testcase import Test, host_cpu_flags

TARGET_TRIPLET = "x86_64-pc-linux-gnu"

# The gcc testsuite's effective-target keywords that these programs ask for, decided for an
# x86_64 GNU/Linux host with gcc 12 and no offload compiler or device.
_EFFECTIVE = {
    "size32plus": True, "tls": True, "tls_runtime": True, "tls_native": True,
    "sync_int_long": True, "sync_long_long": True, "lto": True, "shared": True,
    "fpic": True, "pthread": True, "fopenmp": True, "large_long_double": True,
    "__float128": True, "lp64": True, "ia32": False, "ilp32": False, "x32": False,
    "vect_simd_clones": True, "cas_char": True, "cas_int": True, "nonpic": False,
    "alias": True, "weak_undefined": True, "init_priority": True,
    "offload_device": False, "offload_device_nonshared_as": False,
    "offload_device_shared_as": False, "offload_device_nvptx": False,
    "offload_device_intel_mic": False, "offload_device_any_intel_mic": False,
    "offload_target_nvptx": False, "offload_target_amdgcn": False,
    "offload_target_any": False, "openacc_nvidia_accel_selected": False,
    "openacc_radeon_accel_selected": False, "openacc_host_selected": False,
    "openacc_cuda": False, "openacc_cublas": False, "openacc_cudart": False,
    "fortran_real_16": True, "fortran_real_10": True, "fortran_integer_16": True,
    "fortran_large_int": True, "fortran_large_real": True, "libquadmath": True,
    "fd_truncate": True, "aarch64_tiny": False,
    "run_expensive_tests": False,  # as when GCC_TEST_RUN_EXPENSIVE is unset
}
# `{ target NAME_runtime }`: the CPU runs instructions of that extension.
_RUNTIME_SUFFIX = "_runtime"


class Unknown(Exception):
    """A directive or keyword this harness cannot decide; the test is reported, not guessed."""


def tcl_words(text):
    """Split Tcl source text into its words: {braced} kept verbatim (without the braces),
    "quoted" with backslash sequences substituted, bare words as written."""
    words, i, n = [], 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        if text[i] == "{":
            depth, j = 1, i + 1
            while j < n and depth:
                if text[j] == "\\":
                    j += 1
                elif text[j] == "{":
                    depth += 1
                elif text[j] == "}":
                    depth -= 1
                j += 1
            if depth:
                raise Unknown(f"unbalanced braces in {text!r}")
            words.append(("brace", text[i + 1:j - 1]))
            i = j
        elif text[i] == '"':
            out, j = [], i + 1
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n:
                    out.append(_tcl_escape(text[j + 1]))
                    j += 2
                else:
                    out.append(text[j])
                    j += 1
            words.append(("quote", "".join(out)))
            i = j + 1
        else:
            j = i
            while j < n and not text[j].isspace():
                j += 1
            words.append(("bare", text[i:j]))
            i = j
    return words


def _tcl_escape(c):
    return {"n": "\n", "r": "\r", "t": "\t"}.get(c, c)


class Host:
    """Answers selectors (`{ target ... }`) for this host and the language under test."""

    def __init__(self, language):
        self.language = language  # "c", "c++" or "fortran"
        self.cpu_flags = host_cpu_flags()

    def keyword(self, word):
        if word.count("-") >= 2 and not word.startswith("-"):  # a target triplet glob
            return fnmatch.fnmatchcase(TARGET_TRIPLET, word)
        if word in ("c", "c++", "fortran"):
            return word == self.language
        if word in _EFFECTIVE:
            return _EFFECTIVE[word]
        if word.endswith(_RUNTIME_SUFFIX):
            return word[:-len(_RUNTIME_SUFFIX)] in self.cpu_flags
        raise Unknown(f"effective target {word!r}")

    def selector(self, text):
        """A selector's body: a list of keywords (any true), or an expression of them with
        ||, && and !, whose operands may be braced lists themselves."""
        words = tcl_words(text)
        if not any(w in ("||", "&&", "!") for _, w in words):
            return any(self.selector(w) if kind == "brace" else self.keyword(w)
                       for kind, w in words)
        return self._expr(words)

    def _expr(self, words):
        pos = 0

        def operand():
            nonlocal pos
            kind, w = words[pos]
            pos += 1
            if kind == "bare" and w == "!":
                return not operand()
            return self.selector(w) if kind == "brace" else self.keyword(w)

        def conj():
            nonlocal pos
            value = operand()
            while pos < len(words) and words[pos][1] == "&&":
                pos += 1
                value = operand() and value
            return value

        value = conj()
        while pos < len(words) and words[pos][1] == "||":
            pos += 1
            value = conj() or value
        return value

    def clause(self, word, keyword="target"):
        """A `{ target SEL }` (or `{ xfail SEL }`) argument: (keyword, truth)."""
        kind, text = word
        inner = tcl_words(text)
        if kind != "brace" or not inner or inner[0][1] not in ("target", "xfail"):
            raise Unknown(f"selector {text!r}")
        rest = text.split(inner[0][1], 1)[1]
        return inner[0][1], self.selector(rest)


_DIRECTIVE = re.compile(r"\{\s+(dg-[-a-z]+)((?:\s.*)?)\s+\}")
# Directives about gcc's diagnostics and dumps: nothing to do with the runtime.
_COMPILER_ONLY = {"dg-warning", "dg-error", "dg-message", "dg-bogus", "dg-excess-errors",
                  "dg-prune-output", "dg-final", "dg-note", "dg-line",
                  "dg-compile-aux-modules"}


def directives(path):
    for line in path.read_text(errors="replace").splitlines():
        m = _DIRECTIVE.search(line)
        if m:
            yield m.group(1), tcl_words(m.group(2))


def _arg_applies(host, args, index):
    """Whether the optional `{ target SEL }` at args[index] (absent: true) holds."""
    if len(args) <= index:
        return True
    kind, truth = host.clause(args[index])
    return truth if kind == "target" else True


def read_test(path, ident, language, compiler, default_flags, base_flags, libs):
    """The Test for one source file of a libgomp testsuite directory."""
    host = Host(language)
    test = Test(ident=ident, source=path)
    action, options, extra, sources, skips = "run", None, [], [], []
    try:
        for name, args in directives(path):
            values = [w for _, w in args]
            if name == "dg-do":
                action = values[0]
                if len(args) > 1:
                    kind, truth = host.clause(args[1])
                    if kind == "target" and not truth:
                        test.unsupported = f"dg-do {action} only for {args[1][1].strip()}"
                    elif kind == "xfail" and truth:
                        test.expect_fail = True
            elif name == "dg-options":
                if _arg_applies(host, args, 1):
                    options = values[0].split()
            elif name == "dg-additional-options":
                if _arg_applies(host, args, 1):
                    extra += values[0].split()
            elif name == "dg-additional-sources":
                sources += [str(path.parent / s) for s in values[0].split()]
            elif name == "dg-set-target-env-var":
                test.env[values[0]] = values[1]
            elif name == "dg-output":
                if _arg_applies(host, args, 1):
                    test.output_pattern += values[0]
            elif name == "dg-shouldfail":
                if _arg_applies(host, args, 1):
                    test.should_fail = True
            elif name in ("dg-require-effective-target", "dg-require-alias"):
                wanted = values[0] if name.endswith("target") else "alias"
                if _arg_applies(host, args, 1) and not host.keyword(wanted):
                    test.unsupported = f"needs effective target {wanted}"
            elif name == "dg-skip-if":
                if host.selector(values[1]):
                    skips.append(values)
            elif name in ("dg-xfail-run-if",):
                if host.selector(values[1]):
                    test.expect_fail = True
            elif name == "dg-xfail-if":
                if host.selector(values[1]):
                    test.unsupported = "expected not to build on this host"
            elif name == "dg-add-options":
                if values[0] not in ("__float128",):  # nothing to add on x86_64
                    raise Unknown(f"dg-add-options {values[0]}")
            elif name == "dg-timeout":
                test.timeout = float(values[0])
            elif name == "dg-timeout-factor":
                test.timeout_factor = float(values[0])
            elif name in _COMPILER_ONLY:
                continue
            else:
                raise Unknown(name)
    except (Unknown, IndexError, ValueError) as e:
        test.unsupported = f"harness cannot decide: {e}"
        return test
    if action not in ("run",) and not test.unsupported:
        test.unsupported = f"dg-do {action}: builds only, nothing runs on the runtime"
    flags = (default_flags if options is None else options) + extra
    for values in skips:
        if _skip_options_match(values[2:], flags) and not test.unsupported:
            test.unsupported = f"dg-skip-if {values[1].strip()}"
    build = compiler + [str(path)] + sources + base_flags + flags + ["-o", "prog"] + libs
    test.steps = [("build", shlex.join(build)), ("run", "$PEER_RUN ./prog")]
    return test


def _skip_options_match(lists, flags):
    include = lists[0].split() if lists else ["*"]
    exclude = lists[1].split() if len(lists) > 1 else []
    hit = "*" in include or any(o in flags for o in include)
    return hit and not any(o in flags for o in exclude)


def libgomp_suite(root, language, opt):
    """The tests of one language of libgomp's testsuite; `root` is gcc's libgomp directory
    (holding testsuite/, libgomp_g.h), with gcc's include/ beside it. `opt`: the flags a
    test without dg-options gets (the testsuite's own default is -O2)."""
    ts = root / "testsuite"
    base = ["-fopenmp", f"-I{root}", f"-I{root.parent / 'include'}", "-fmessage-length=0",
            "-fno-diagnostics-show-caret", "-fdiagnostics-color=never"]
    fortran = (".f", ".F", ".f90", ".F90", ".f95", ".F95", ".f03", ".F03", ".f08", ".F08")
    if language == "c":
        dirs = [("libgomp.c", (".c",)), ("libgomp.c-c++-common", (".c",))]
        compiler = ["gcc"]
    elif language == "c++":  # the common .c files are compiled as C++ too, as c++.exp does
        dirs = [("libgomp.c++", (".C",)), ("libgomp.c-c++-common", (".c",))]
        compiler = ["g++", "-x", "c++"]
    else:
        dirs, compiler = [("libgomp.fortran", fortran)], ["gfortran"]
    tests = []
    for d, exts in dirs:
        for path in sorted((ts / d).rglob("*")):
            if path.suffix in exts and path.is_file():
                ident = str(path.relative_to(ts))
                tests.append(read_test(path, ident, language, compiler, opt, base, ["-lm"]))
    return tests


def gcc_libgomp_root(source_dir):
    """libgomp's directory inside an extracted gcc source tree."""
    hits = sorted(pathlib.Path(source_dir).glob("gcc-*/libgomp"))
    if not hits:
        raise SystemExit(f"no gcc-*/libgomp under {source_dir}: run tests/peer/fetch.sh first")
    return hits[-1]


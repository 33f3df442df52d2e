#!/usr/bin/env python3
"""Check that comments cite only what the repository defines.

1. Every step tag cited in the tracked sources must be defined in forkjoin/DESIGN.md.
   Tags look like [P-DEQUE], [P-DEQUE S2], [P-POST PushFence+ReadSleepers] or [INV-WAKE].
   A tag is *defined* when:
     - it appears verbatim in DESIGN.md (e.g. "**[P-POST Publish]**", "[INV-WAKE]"), or
     - it is [P-NAME Step...] and DESIGN.md has a section (a "#" heading) whose heading
       contains [P-NAME], and every step name (the words after P-NAME, split at "+", ","
       and spaces) occurs as a whole word, case-sensitively, in that section's text.
       So "S2 seq_cst fence" under "## 3. [P-DEQUE] ..." defines [P-DEQUE S2].
   [P-NAME] alone must be a section heading's tag; [INV-NAME] must appear verbatim.
2. No file cites things outside the repository: "errata N"/"erratum N", "correctness.md",
   "../shared/" or "issue N" (case-insensitive); cite a DESIGN.md tag or say what is meant.

Scanned: tracked source files (C++, CMake, Python, shell, Promela) under forkjoin/, include/,
tests/, bench/, examples/, omp/ and models/, plus forkjoin/DESIGN.md for rule 2.
Exit status 1 with one line per problem ("path:line: message"), else 0.
"""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DESIGN = "forkjoin/DESIGN.md"
DIRS = ("forkjoin/", "include/", "tests/", "bench/", "examples/", "omp/", "models/")
SOURCE = re.compile(r"(\.(cpp|hpp|h|cc|py|sh|cmake|in|pml)|CMakeLists\.txt)$")
TAG = re.compile(r"\[((?:P|INV)-[A-Z]+)((?:\s+[^\]\[]+)?)\]")
OUTSIDE = re.compile(r"\berrat(?:a|um)\s+\d|correctness\.md|\.\./shared/|\bissues?\s+\d", re.IGNORECASE)


def sections(design):
    """(heading, text) per '#' heading of DESIGN.md."""
    out, heading, body = [], "", []
    for line in design.splitlines():
        if line.startswith("#"):
            out.append((heading, "\n".join(body)))
            heading, body = line, []
        else:
            body.append(line)
    out.append((heading, "\n".join(body)))
    return out


def defined(name, steps, design, secs):
    tag = f"[{name}{steps}]"
    if tag in design:
        return True
    if name.startswith("INV-"):
        return False
    owned = [text for heading, text in secs if f"[{name}]" in heading]
    if not steps.strip():
        return bool(owned)
    words = [w for w in re.split(r"[+,\s]+", steps) if w]
    if any(all(re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", text) for w in words) for text in owned):
        return True
    # A paragraph that opens with [NAME First] (e.g. **[P-OMP Team]**) owns the remaining
    # step words up to the next such paragraph or heading.
    start = design.find(f"[{name} {words[0]}]")
    if start < 0 or len(words) < 2:
        return False
    end = min([i for i in (design.find("\n**[", start + 1), design.find("\n#", start + 1)) if i >= 0] or [len(design)])
    block = design[start:end]
    return all(re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", block) for w in words[1:])


def main():
    design = (ROOT / DESIGN).read_text(encoding="utf-8")
    secs = sections(design)
    files = subprocess.run(["git", "ls-files", *DIRS], cwd=ROOT, check=True, capture_output=True,
                           text=True).stdout.split()
    problems = []
    for path in files:
        is_design = path == DESIGN
        if not (SOURCE.search(path) or is_design):
            continue
        try:
            lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        for number, line in enumerate(lines, 1):
            for m in OUTSIDE.finditer(line):
                problems.append(f"{path}:{number}: cites '{m.group(0)}' outside the repository; cite a DESIGN.md tag")
            if is_design:
                continue
            for t in TAG.finditer(line):
                if not defined(t.group(1), t.group(2), design, secs):
                    problems.append(f"{path}:{number}: {t.group(0)} is not defined in {DESIGN}")
    for p in problems:
        print(p)
    if problems:
        print(f"check_tags: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print("check_tags: every cited tag is defined in DESIGN.md; no outside citations")
    return 0


if __name__ == "__main__":
    sys.exit(main())

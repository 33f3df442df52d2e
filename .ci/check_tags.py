#!/usr/bin/env python3
"""Check that comments cite only what the repository defines.

1. Every step tag cited in the tracked sources must be defined in one of the design
   documents: forkjoin/DESIGN.md (the core runtime), omp/DESIGN.md (the OpenMP layer) or
   tbb/DESIGN.md (the oneTBB layer).
   Tags look like [P-DEQUE], [P-DEQUE S2], [P-POST PushFence+ReadSleepers], [P-OMP Hot H1]
   or [INV-WAKE]. A tag is *defined* when, in either document:
     - it appears verbatim (e.g. "[P-POST Publish]", "[INV-WAKE]"), or
     - it is [P-NAME Step...] and the document has a section (a "#" heading) whose heading
       contains [P-NAME], and every step name (the words after P-NAME, split at "+", ","
       and spaces) occurs as a whole word, case-sensitively, in that section's text.
       So "S2 seq_cst fence" under "## 3. [P-DEQUE] ..." defines [P-DEQUE S2]; or
     - it is [P-NAME First Step...] and a section's heading contains [P-NAME First] (one
       protocol per heading, e.g. "## [P-OMP Hot] hot teams ..."), and every further step
       name occurs as a whole word in that heading and its section's text. So "H1" under
       "## [P-OMP Hot] ..." defines [P-OMP Hot H1]; or
     - a paragraph that opens with **[P-NAME First]** holds the further step names before
       the next such paragraph or heading.
   [P-NAME] alone must be a section heading's tag (or appear verbatim); [INV-NAME] must
   appear verbatim. A section is the text between its heading and the next heading of any
   level, in the document that holds it.
2. No file cites things outside the repository: "errata N"/"erratum N", "correctness.md",
   "../shared/" or "issue N" (case-insensitive); cite a design document's tag or say what is
   meant.

Scanned: tracked source files (C++, CMake, Python, shell, Promela) under forkjoin/, include/,
tests/, bench/, examples/, omp/ and models/, plus both design documents for rule 2.
Exit status 1 with one line per problem ("path:line: message"), else 0.
"""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DESIGNS = ("forkjoin/DESIGN.md", "omp/DESIGN.md", "tbb/DESIGN.md")
DIRS = ("forkjoin/", "include/", "tests/", "bench/", "examples/", "omp/", "tbb/", "models/")
SOURCE = re.compile(r"(\.(cpp|hpp|h|cc|py|sh|cmake|in|pml)|CMakeLists\.txt)$")
TAG = re.compile(r"\[((?:P|INV)-[A-Z]+)((?:\s+[^\]\[]+)?)\]")
OUTSIDE = re.compile(r"\berrat(?:a|um)\s+\d|correctness\.md|\.\./shared/|\bissues?\s+\d", re.IGNORECASE)


def sections(design):
    """(heading, text) per '#' heading of a design document."""
    out, heading, body = [], "", []
    for line in design.splitlines():
        if line.startswith("#"):
            out.append((heading, "\n".join(body)))
            heading, body = line, []
        else:
            body.append(line)
    out.append((heading, "\n".join(body)))
    return out


def whole_words(words, text):
    return all(re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", text) for w in words)


def defined_in(name, steps, design, secs):
    tag = f"[{name}{steps}]"
    if tag in design:
        return True
    if name.startswith("INV-"):
        return False
    owned = [text for heading, text in secs if f"[{name}]" in heading]
    if not steps.strip():
        return bool(owned)
    words = [w for w in re.split(r"[+,\s]+", steps) if w]
    if any(whole_words(words, text) for text in owned):
        return True
    # A heading of one protocol, [NAME First] (e.g. "## [P-OMP Hot] ..."), owns the remaining
    # step words of its section.
    first = f"[{name} {words[0]}]"
    if len(words) >= 2 and any(whole_words(words[1:], heading + "\n" + text)
                               for heading, text in secs if first in heading):
        return True
    # A paragraph that opens with **[NAME First]** owns the remaining step words up to the
    # next such paragraph or heading.
    start = design.find("\n**" + first)
    if start < 0 or len(words) < 2:
        return False
    end = min([i for i in (design.find("\n**[", start + 1), design.find("\n#", start + 1)) if i >= 0] or [len(design)])
    block = design[start:end]
    return whole_words(words[1:], block)


def defined(name, steps, designs):
    """Whether [name steps] is defined in any of the design documents."""
    return any(defined_in(name, steps, design, secs) for design, secs in designs)


def main():
    designs = []
    for doc in DESIGNS:
        try:
            text = (ROOT / doc).read_text(encoding="utf-8")
        except FileNotFoundError:
            print(f"check_tags: the design document {doc} is missing", file=sys.stderr)
            return 1
        designs.append((text, sections(text)))
    files = subprocess.run(["git", "ls-files", *DIRS], cwd=ROOT, check=True, capture_output=True,
                           text=True).stdout.split()
    # The design documents are scanned for rule 2 even before git tracks them.
    files += [doc for doc in DESIGNS if doc not in files]
    where = " or ".join(DESIGNS)
    problems = []
    for path in files:
        is_design = path in DESIGNS
        if not (SOURCE.search(path) or is_design):
            continue
        try:
            lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        for number, line in enumerate(lines, 1):
            for m in OUTSIDE.finditer(line):
                problems.append(f"{path}:{number}: cites '{m.group(0)}' outside the repository; cite a design document's tag")
            if is_design:
                continue
            for t in TAG.finditer(line):
                if not defined(t.group(1), t.group(2), designs):
                    problems.append(f"{path}:{number}: {t.group(0)} is not defined in {where}")
    for p in problems:
        print(p)
    if problems:
        print(f"check_tags: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check_tags: every cited tag is defined in {' or '.join(DESIGNS)}; no outside citations")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Check the subjects of the commits made after a recorded base commit (CONTRIBUTING.md, "Commits").

The rule, for each commit's message (its first line is the subject):
  - the subject is at most 72 characters;
  - it reads "area: what changed": an area (letters, digits and _ . / + -, so "omp", "bench",
    "README", "RESULTS.md", "omp/gomp"), optionally a "(detail)", then ": " and a description
    that starts with a non-space character;
  - a body, if there is one, is separated from the subject by a blank line;
  - subjects git writes for merges ("Merge ...") are allowed as they are.

Which commits: .ci/commit-subjects-since holds the base, a full hash and its committer date as a
Unix time (lines starting with "#" are comments). History up to the base is not checked.
  1. The base is in this clone: the commits reachable from HEAD and not from the base
     (git rev-list HEAD ^BASE, i.e. BASE..HEAD). If the base is not an ancestor of HEAD (a
     rewritten history), the same set is checked and a note says so.
  2. The base is missing (a shallow clone cut above it, or a history that never had it) and its
     date is recorded: the commits reachable from HEAD whose committer date is later than the
     base's. In a shallow clone these are the commits present after the base's time; a clone
     too shallow to hold them all checks the ones it has.
  3. The base is missing and no date is recorded: the last 50 commits from HEAD, with a note.
  No commit to check (HEAD is the base, or an empty repository): exit 0.

Usage: check_commits.py [--base REV] [--self-test]
  --base REV    check the commits after REV instead of the recorded base (no date: case 3 if
                REV is missing).
  --self-test   classify a built-in list of good and bad messages with the rule above and fail
                if any is misclassified; reads no history.
Exit status 1 with one line per offending commit (short hash, subject length, subject, what is
wrong), 2 when git cannot be run or the base file cannot be read, else 0. Never a traceback.
"""
import argparse
import datetime
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SINCE = pathlib.Path(__file__).resolve().parent / "commit-subjects-since"
MAX_LENGTH = 72
FALLBACK_COUNT = 50
SUBJECT = re.compile(r"[A-Za-z0-9_./+-]+(\([^)]*\))?: \S")


def problems(message):
    """What is wrong with one commit message (subject, optional body): a list, empty when none."""
    lines = message.split("\n")
    subject = lines[0]
    if subject.startswith("Merge "):
        return []
    found = []
    if len(subject) > MAX_LENGTH:
        found.append(f"longer than {MAX_LENGTH} characters")
    if not SUBJECT.match(subject):
        found.append('not "area: what changed"')
    if len(lines) > 1 and lines[1].strip():
        found.append("no blank line between subject and body")
    return found


# (message, whether the rule accepts it)
SELF_TEST = [
    ("omp: hand a task a waiter may not run back to its parent", True),
    ("tests: deep_trees.cpp takes CHECK from check.h", True),
    ("README: the bench workflow's time includes the busy-neighbours matrix", True),
    ("RESULTS.md: waiting on crowded CPUs and deep task trees", True),
    ("omp/gomp: GOMP_taskwait_depend", True),
    ("omp/env.cpp: build the hidden variable's name by append", True),
    ("ci(run): check commit subjects after the recorded base", True),
    ("sleep: park instead of yielding\n\nThe reason, in the body.\nOver several lines.\n", True),
    ("bench: x\n", True),
    ("a: " + "x" * (MAX_LENGTH - 3), True),  # exactly 72
    ("Merge branch 'kmpc': " + "a long merge subject " * 10, True),
    ("Merge main into join", True),
    ("a: " + "x" * (MAX_LENGTH - 2), False),  # 73
    ("omp: " + "a subject that goes on " * 4, False),
    ("Tests that needed a worker to wake within one short call retry", False),
    ("fix the deque", False),
    ("omp:no space after the colon", False),
    ("omp: ", False),
    ("omp:  two spaces", False),
    ("omp : space before the colon", False),
    ("two words: an area is one token", False),
    (": no area", False),
    ("omp, tests: one area only", False),
    ("", False),
    ("\n\nomp: after blank lines", False),
    ("omp: subject\nbody right after it, no blank line", False),
    ("Merged: not git's merge subject", True),  # "Merged" is a plain area word
    ("Merge: " + "x" * MAX_LENGTH, False),  # "Merge:" is an area, not git's merge subject
]


def self_test():
    wrong = 0
    for message, ok in SELF_TEST:
        found = problems(message)
        if (not found) != ok:
            wrong += 1
            verdict = "rejected" if found else "accepted"
            print(f"check_commits --self-test: {message!r} {verdict}, expected the opposite"
                  + (f" ({'; '.join(found)})" if found else ""))
    print(f"check_commits --self-test: {len(SELF_TEST) - wrong} of {len(SELF_TEST)} messages classified as expected")
    return 1 if wrong else 0


class GitError(Exception):
    pass


def git(*args, ok_codes=(0,)):
    """(exit status, stdout) of git in the repository root; GitError if git cannot run."""
    try:
        run = subprocess.run(["git", *args], cwd=ROOT, capture_output=True)
    except OSError as e:
        raise GitError(f"cannot run git: {e}") from e
    if run.returncode not in ok_codes:
        err = run.stderr.decode("utf-8", "replace").strip()
        raise GitError(f"git {' '.join(args)} failed ({run.returncode}): {err}")
    return run.returncode, run.stdout.decode("utf-8", "replace")


def read_base():
    """(hash, committer time or None) from .ci/commit-subjects-since."""
    try:
        text = SINCE.read_text()
    except OSError as e:
        raise GitError(f"cannot read {SINCE.relative_to(ROOT)}: {e}") from e
    for line in text.splitlines():
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        when = None
        if len(fields) > 1:
            try:
                when = int(fields[1])
            except ValueError:
                pass
        return fields[0], when
    raise GitError(f"{SINCE.relative_to(ROOT)} names no commit")


def log(revs):
    """[(hash, parents, committer time, message)] for git log over revs, newest first."""
    _, out = git("log", "-z", "--format=%H%x00%P%x00%ct%x00%B", *revs)
    fields = out.split("\0")
    commits = []
    for i in range(0, len(fields) - 3, 4):
        commits.append((fields[i], fields[i + 1].split(), int(fields[i + 2] or 0), fields[i + 3]))
    return commits


def select(base, base_time, note):
    """The commits to check, following the docstring's cases; note(text) reports the choice."""
    if git("rev-parse", "--verify", "-q", "HEAD^{commit}", ok_codes=(0, 1))[0] != 0:
        note("no HEAD (an empty repository): nothing to check")
        return []
    short = base[:12]
    if git("cat-file", "-e", f"{base}^{{commit}}", ok_codes=(0, 1, 128))[0] == 0:
        if git("merge-base", "--is-ancestor", base, "HEAD", ok_codes=(0, 1, 128))[0] != 0:
            note(f"base {short} is not an ancestor of HEAD: checking the commits reachable from HEAD but not from it")
        commits = log(["HEAD", f"^{base}"])
        note(f"{len(commits)} commit(s) in {short}..HEAD")
        return commits
    shallow = git("rev-parse", "--is-shallow-repository")[1].strip() == "true"
    why = "this shallow clone lacks it" if shallow else "it is not in this repository's history"
    if base_time is not None:
        date = datetime.datetime.fromtimestamp(base_time, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
        commits = [c for c in log(["HEAD"]) if c[2] > base_time]
        note(f"base {short} not found ({why}): checking the {len(commits)} commit(s) from HEAD committed after {date}")
        return commits
    commits = log(["HEAD", f"--max-count={FALLBACK_COUNT}"])
    note(f"base {short} not found ({why}) and no date recorded: checking the last {len(commits)} commit(s)")
    return commits


def main():
    parser = argparse.ArgumentParser(description="Check commit subjects after the recorded base.")
    parser.add_argument("--base", help="check the commits after this revision instead of the recorded base")
    parser.add_argument("--self-test", action="store_true", help="check the rule on built-in good and bad messages")
    args = parser.parse_args()
    if args.self_test:
        return self_test()

    def note(text):
        print(f"check_commits: {text}")

    try:
        if args.base:
            _, out = git("rev-parse", "--verify", "-q", f"{args.base}^{{commit}}", ok_codes=(0, 1))
            base, base_time = out.strip() or args.base, None
        else:
            base, base_time = read_base()
        commits = select(base, base_time, note)
    except GitError as e:
        print(f"check_commits: {e}")
        return 2
    bad = 0
    for sha, _, _, message in commits:
        found = problems(message)
        if found:
            bad += 1
            subject = message.split("\n", 1)[0]
            print(f"check_commits: {sha[:10]} ({len(subject)} chars) {subject}\n    -> {'; '.join(found)}")
    if bad:
        print(f"check_commits: {bad} of {len(commits)} commit(s) break the rule: at most {MAX_LENGTH} characters, "
              f'"area: what changed", the why in the body after a blank line (CONTRIBUTING.md, "Commits"). '
              "Reword them before they reach main (git rebase -i, reword).")
        return 1
    if commits:
        print(f"check_commits: {len(commits)} commit(s) checked, all subjects follow the rule")
    else:
        print("check_commits: no commits after the base, nothing to check")
    return 0


if __name__ == "__main__":
    sys.exit(main())

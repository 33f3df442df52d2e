#!/usr/bin/env python3
"""Fail when a test preset skipped a test that .ci/known-skips does not list for it.

Usage: check_skips.py <preset> <junit.xml>. The JUnit file is the one ctest writes through
the test presets' outputJUnitFile (build/<preset>/junit.xml). A test counts as skipped when
its <testcase> has a <skipped> child or a status other than run/fail.
"""
import os
import pathlib
import sys
import xml.etree.ElementTree as ET

KNOWN = pathlib.Path(__file__).resolve().parent / "known-skips"


def expected(preset):
    allowed = set()
    for line in KNOWN.read_text().splitlines():
        line = line.split("#", 1)[0].split()
        if len(line) != 2:
            continue
        where, name = line
        if where == preset or (where == "nonroot" and os.geteuid() != 0):
            allowed.add(name)
    return allowed


def main():
    preset, junit = sys.argv[1], sys.argv[2]
    cases = ET.parse(junit).getroot().iter("testcase")
    skipped = sorted(c.get("name") for c in cases
                     if c.find("skipped") is not None or c.get("status") not in ("run", "fail"))
    allowed = expected(preset)
    unexpected = [s for s in skipped if s not in allowed]
    print(f"check_skips[{preset}]: {len(skipped)} skipped ({', '.join(skipped) or 'none'}), {len(allowed)} allowed")
    for s in unexpected:
        print(f"check_skips[{preset}]: {s} skipped, and .ci/known-skips does not allow it", file=sys.stderr)
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())

"""provenance.py: what a benchmark driver records about its run beside its figures (its JSON's
"provenance" object), so that bench/results_page.py can name the run under its table: the
date, the commit measured, the machine, the command and the repetitions. The load average is
each driver's own (it samples it around the run)."""

import datetime
import os
import platform
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _git(*args):
    try:
        out = subprocess.run(["git", "-C", ROOT] + list(args), capture_output=True, text=True, timeout=10)
        return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def provenance(reps):
    """The run's provenance: call it when the run starts."""
    commit = _git("rev-parse", "--short", "HEAD") or "not recorded"
    if commit != "not recorded" and _git("status", "--porcelain", "--untracked-files=no"):
        commit += " (with uncommitted changes)"
    script = os.path.relpath(os.path.abspath(sys.argv[0]), ROOT)
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit,
        "machine": "%s, %d CPUs, %s %s" % (_cpu_model(), os.cpu_count() or 0, platform.system(), platform.release()),
        "command": [shlex.join(["python3", script] + sys.argv[1:])],
        "reps": reps,
    }

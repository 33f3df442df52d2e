"""What the suite readers (dejagnu.py, lit.py) make of one test file, for peer.py to run."""
import dataclasses
import pathlib


@dataclasses.dataclass
class Test:
    ident: str                # the path inside its suite, as the expected lists name it
    source: pathlib.Path
    steps: list = dataclasses.field(default_factory=list)  # ("build" | "run", bash command)
    env: dict = dataclasses.field(default_factory=dict)    # for the run steps
    output_pattern: str = ""  # a regular expression the run's output must contain
    should_fail: bool = False  # the program must exit non-zero
    expect_fail: bool = False  # the suite itself expects a failure on this host
    unsupported: str = ""     # why it is not run here
    timeout: float = 0.0      # seconds for the run steps; 0: the harness's default
    timeout_factor: float = 1.0
    program: str = "prog"     # the executable the build makes, in the test's work folder


def host_cpu_flags():
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()

#!/usr/bin/env python3
"""Time a cold `promptc report --no-cache` on the example against the minimal Python pipeline
(pipeline.py), side by side: runs alternate (promptc, Python, promptc, …) so both see the same
machine, and the medians and their ratio are printed (issue 29: the target is ≤ 0.1×).

Usage: compare.py PROMPTC_BIN PYTHON [RUNS]   (run from the repository root; PYTHON has PyYAML,
Jinja2 and tiktoken: target/conformance-venv/bin/python)
"""

import glob
import os
import statistics
import subprocess
import sys
import time


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    promptc, python = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    vocab = glob.glob(os.path.expanduser("~/.cargo/registry/src/*/tiktoken-rs-*/assets/o200k_base.tiktoken"))[0]
    ours = [promptc, "report", "--no-cache", "-C", "profiles"]
    theirs = [python, "benches/baseline/pipeline.py", "profiles", vocab]
    timed(ours), timed(theirs)  # warm the page cache
    a, b = [], []
    for _ in range(runs):
        a.append(timed(ours))
        b.append(timed(theirs))
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"promptc report --no-cache: median {ma * 1000:.1f} ms (min {min(a) * 1000:.1f})")
    print(f"Python pipeline:           median {mb * 1000:.1f} ms (min {min(b) * 1000:.1f})")
    print(f"ratio: {ma / mb:.3f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

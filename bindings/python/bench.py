"""Benchmark: compiling one cell of the example from a loaded project, in process, against
spawning the promptc binary for the same cell. Target: <= 1 ms median in process.

    scripts/python-package.sh bench [--runs N]
"""

import argparse
import os
import pathlib
import statistics
import subprocess
import time

import promptc

REPO = pathlib.Path(__file__).resolve().parents[2]


def median_ms(f, runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        f()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=500)
    args = parser.parse_args()
    project = promptc.Project.load(REPO / "profiles")
    options = {"profile": "standard", "provider": "anthropic", "nonce": "abcd1234", "variables": {"cwd": "/repo"}}
    project.compile(**options)  # warm up
    compile_ms = median_ms(lambda: project.compile(**options), args.runs)
    with_prompt_ms = median_ms(lambda: (lambda c: (c.prompt, c.tools))(project.compile(**options)), args.runs)
    binary = os.environ["PROMPTC_BIN"]
    flags = ["-C", str(REPO / "profiles"), "render", "--profile", "standard", "--provider", "anthropic",
             "--nonce", "abcd1234", "--var", "cwd=/repo"]
    spawn_ms = median_ms(lambda: subprocess.run([binary, *flags], capture_output=True, check=True),
                         max(10, args.runs // 20))
    print(f"python: compile one cell (in process)      median {compile_ms:.3f} ms over {args.runs} runs")
    print(f"python: compile + read prompt and tools   median {with_prompt_ms:.3f} ms")
    print(f"python: spawn `promptc render` ({pathlib.Path(binary).parent.name} binary) median {spawn_ms:.3f} ms")


if __name__ == "__main__":
    main()

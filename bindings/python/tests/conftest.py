"""Shared fixtures: the repository, the example project, and the promptc binary the
package's results are compared with (PROMPTC_BIN, set by scripts/python-package.sh)."""

import os
import pathlib
import subprocess

import pytest

import promptc

REPO = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def repo() -> pathlib.Path:
    return REPO


@pytest.fixture(scope="session")
def example() -> promptc.Project:
    return promptc.Project.load(REPO / "profiles")


@pytest.fixture(scope="session")
def cli():
    """Run the promptc binary from the repository root; returns the CompletedProcess."""
    binary = os.environ.get("PROMPTC_BIN")
    if not binary:
        pytest.fail("PROMPTC_BIN is not set: run the tests with scripts/python-package.sh test")

    def run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
        proc = subprocess.run(
            [binary, "--color", "never", *args],
            cwd=REPO,
            capture_output=True,
            text=True,
            env={**os.environ, "NO_COLOR": "1"},
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"promptc {' '.join(args)} exited {proc.returncode}:\n{proc.stderr}")
        return proc

    return run


def cell_flags(options: dict) -> list[str]:
    """The command-line flags for a cell's compile options (Cell.options)."""
    flags = ["--profile", options["profile"], "--transport", options["transport"], "--nonce", options["nonce"]]
    for name, on in options["switches"].items():
        flags += ["--set", f"{name}={'true' if on else 'false'}"]
    for name, value in options["variables"].items():
        # The example's variables are strings, as --var takes them.
        assert isinstance(value, str), (name, value)
        flags += ["--var", f"{name}={value}"]
    if options["subagent"]:
        flags += ["--subagent", options["subagent"]]
    return flags

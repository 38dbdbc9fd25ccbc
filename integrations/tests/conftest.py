"""Shared fixtures of the integration tests (GitHub Action, pre-commit hooks).

The tests run the promptc binary named by PROMPTC_BIN (default: target/debug/promptc) on
temporary copies of the shipped example: `profiles/` and `snapshots/` side by side, as in
the repository (`profiles/promptc.yaml` says `snapshots: ../snapshots`).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
ROLE = Path("profiles/sections/role.md.j2")
MANIFEST = Path("profiles/promptc.yaml")

# The sentence appended to the role section to make drift: plain prose, no lint finding.
DRIFT_LINE = "Keep every answer short and concrete."
# A sentence naming a tool the lite profile does not have: P001 (deny) in 18 cells.
LINT_LINE = "Call web_search to look things up."


@pytest.fixture(scope="session")
def promptc_bin() -> Path:
    configured = os.environ.get("PROMPTC_BIN")
    path = Path(configured) if configured else REPO / "target" / "debug" / "promptc"
    if not path.is_absolute():
        path = (REPO / path).resolve()
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(
            f"no promptc binary at {path}: build it (cargo build) or set PROMPTC_BIN",
            pytrace=False,
        )
    return path


def copy_example(dest: Path) -> Path:
    """profiles/ + snapshots/ of the repository under dest, with an empty .git folder so
    promptc takes dest as the repository root. Returns dest."""
    dest.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns(".promptc-cache", "__pycache__")
    shutil.copytree(REPO / "profiles", dest / "profiles", ignore=ignore)
    shutil.copytree(REPO / "snapshots", dest / "snapshots", ignore=ignore)
    (dest / ".git").mkdir(exist_ok=True)
    return dest


@pytest.fixture
def example(tmp_path: Path) -> Path:
    return copy_example(tmp_path / "workspace")


def append_line(path: Path, line: str) -> None:
    text = path.read_text(encoding="utf-8")
    if not text.endswith("\n"):
        text += "\n"
    path.write_text(text + line + "\n", encoding="utf-8")


def make_drift(workspace: Path, line: str = DRIFT_LINE) -> None:
    append_line(workspace / ROLE, line)


def make_lint_error(workspace: Path) -> None:
    append_line(workspace / ROLE, LINT_LINE)


def break_yaml(workspace: Path) -> int:
    """Make promptc.yaml invalid YAML (an unclosed flow sequence). Returns its line."""
    manifest = workspace / MANIFEST
    lines = manifest.read_text(encoding="utf-8").splitlines(keepends=True)
    for number, line in enumerate(lines, start=1):
        if line.startswith("contract_version:"):
            lines[number - 1] = "contract_version: [1\n"
            manifest.write_text("".join(lines), encoding="utf-8")
            return number
    raise AssertionError("the example's promptc.yaml has no contract_version line")


def hermetic_env(**extra: str) -> dict:
    """The environment for child processes: no proxies (the fake API is on 127.0.0.1),
    no colour, no user git configuration."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key.lower() not in ("http_proxy", "https_proxy", "all_proxy", "no_proxy")
        and not key.startswith(("GITHUB_", "RUNNER_", "PROMPTC_", "INPUT_", "PRE_COMMIT"))
    }
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    env["NO_COLOR"] = "1"
    env.update(extra)
    return env

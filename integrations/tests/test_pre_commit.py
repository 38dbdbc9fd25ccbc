"""The pre-commit hooks (.pre-commit-hooks.yaml), run with `pre-commit try-repo`.

try-repo clones the hooks repository at HEAD, so the hooks file, the root pyproject.toml, its
in-tree build backend and Cargo.toml (the version) are committed into a temporary hooks
repository first (the working copy's files may not be committed yet). The project is a
temporary git repository holding a copy of the example.

The hooks install themselves (`language: python`): pre-commit runs `pip install .` in the hooks
repository, which pulls the promptc-cli wheel. Its index here is the folder of wheels this
checkout built (scripts/python-package.sh or scripts/dist.sh), with no other index: the tests
are skipped when there is no promptc-cli wheel of this version.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from conftest import DRIFT_LINE, REPO, ROLE, copy_example, hermetic_env, make_drift, make_lint_error

HOOKS_FILE = REPO / ".pre-commit-hooks.yaml"

pytest.importorskip("pre_commit", reason="pre-commit is not installed (scripts/integrations-test.sh installs it)")


def git_env(tmp: Path) -> dict:
    gitconfig = tmp / "gitconfig"
    gitconfig.write_text("[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n")
    return hermetic_env(
        GIT_CONFIG_GLOBAL=str(gitconfig),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="Test",
        GIT_AUTHOR_EMAIL="test@example.com",
        GIT_COMMITTER_NAME="Test",
        GIT_COMMITTER_EMAIL="test@example.com",
        GIT_AUTHOR_DATE="2025-01-01T00:00:00Z",
        GIT_COMMITTER_DATE="2025-01-01T00:00:00Z",
    )


def git(cwd: Path, env: dict, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


VERSION = tomllib.loads((REPO / "Cargo.toml").read_text(encoding="utf-8"))["workspace"]["package"]["version"]
# What `pip install .` in the hooks repository needs: the hooks, the metadata package's backend.
HOOKS_REPO_FILES = [".pre-commit-hooks.yaml", "pyproject.toml", "Cargo.toml",
                    "integrations/pre-commit/promptc_hooks_backend.py"]


def wheel_folder() -> Path | None:
    """A folder holding this version's promptc-cli wheel: the release build's, else the test build's."""
    for folder in (REPO / "dist", REPO / "target" / "wheels"):
        if list(folder.glob(f"promptc_cli-{VERSION}-*.whl")):
            return folder
    return None


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> dict:
    wheels = wheel_folder()
    if wheels is None:
        pytest.skip(f"no promptc_cli-{VERSION} wheel (scripts/python-package.sh build makes one)")
    tmp = tmp_path_factory.mktemp("pre-commit-env")
    environment = git_env(tmp)
    # The hooks' own environment is the only promptc: none on PATH.
    environment["PIP_NO_INDEX"] = "1"
    environment["PIP_FIND_LINKS"] = str(wheels)
    environment["PRE_COMMIT_HOME"] = str(tmp / "pre-commit-home")
    environment["PRE_COMMIT_COLOR"] = "never"
    environment["HOME"] = str(tmp)
    return environment


@pytest.fixture(scope="module")
def hooks_repo(tmp_path_factory, env) -> Path:
    repo = tmp_path_factory.mktemp("hooks-repo")
    git(repo, env, "init", "--quiet")
    for name in HOOKS_REPO_FILES:
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, repo / name)
    git(repo, env, "add", "-A")
    git(repo, env, "commit", "--quiet", "-m", "promptc hooks")
    return repo


@pytest.fixture
def project(tmp_path, env) -> Path:
    repo = tmp_path / "project"
    copy_example(repo)
    (repo / ".git").rmdir()  # a real repository this time
    git(repo, env, "init", "--quiet")
    git(repo, env, "add", "-A")
    git(repo, env, "commit", "--quiet", "-m", "the example")
    return repo


def try_repo(project: Path, hooks_repo: Path, env: dict, hook: str, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hooks_repo), hook, "--verbose", *extra],
        cwd=project, env=env, capture_output=True, text=True, timeout=300,
    )


def hook_status(output: str, name: str) -> str:
    """Passed / Failed / (no files to check)Skipped, from pre-commit's result line."""
    for line in output.splitlines():
        if line.startswith(name + "."):
            return line.rsplit(".", 1)[-1].strip()
    raise AssertionError(f"no result line for {name!r} in:\n{output}")


def test_hooks_file_declares_both_hooks():
    all_hooks = {hook["id"]: hook for hook in yaml.safe_load(HOOKS_FILE.read_text(encoding="utf-8"))}
    # The wheel-based hooks, and the same two with a promptc on PATH and built from source.
    variants = {"": "python", "-system": "system", "-rust": "rust"}
    assert set(all_hooks) == {f"promptc-{cmd}{suffix}" for cmd in ("check", "diff") for suffix in variants}
    for suffix, language in variants.items():
        for cmd in ("check", "diff"):
            hook, plain = all_hooks[f"promptc-{cmd}{suffix}"], all_hooks[f"promptc-{cmd}"]
            assert hook["language"] == language
            assert (hook["entry"], hook["files"], hook["name"]) == (plain["entry"], plain["files"], plain["name"])
    hooks = {k: v for k, v in all_hooks.items() if k in ("promptc-check", "promptc-diff")}
    assert hooks["promptc-check"]["entry"] == "promptc check"
    assert hooks["promptc-diff"]["entry"] == "promptc diff"
    for hook in all_hooks.values():
        assert hook["pass_filenames"] is False
        assert hook["name"] and hook["description"]
    for name in ("profiles/promptc.yaml", "profiles/tools/files.yaml", "tools.yml",
                 "profiles/sections/role.md.j2", "profiles/layout.md.j2", "snapshots/lite.native.prompt.md"):
        assert re.search(hooks["promptc-check"]["files"], name), name
        assert re.search(hooks["promptc-diff"]["files"], name), name
    assert re.search(hooks["promptc-diff"]["files"], "snapshots/summary.json")
    for name in ("src/main.rs", "README.txt", "profiles/image.png"):
        assert not re.search(hooks["promptc-check"]["files"], name), name


@pytest.mark.parametrize("hook, name", [("promptc-check", "promptc check"), ("promptc-diff", "promptc diff")])
def test_clean_copy_passes(project, hooks_repo, env, hook, name):
    done = try_repo(project, hooks_repo, env, hook, "--all-files")
    assert done.returncode == 0, done.stdout + done.stderr
    assert hook_status(done.stdout, name) == "Passed"


def test_drift_fails_promptc_diff(project, hooks_repo, env):
    make_drift(project)
    done = try_repo(project, hooks_repo, env, "promptc-diff", "--all-files")
    assert done.returncode == 1, done.stdout + done.stderr
    assert hook_status(done.stdout, "promptc diff") == "Failed"
    assert DRIFT_LINE in done.stdout  # the unified diff is shown
    # Plain prose: the lint hook still passes.
    check = try_repo(project, hooks_repo, env, "promptc-check", "--all-files")
    assert check.returncode == 0, check.stdout + check.stderr


def test_staged_edit_fails_at_commit_time(project, hooks_repo, env):
    # Without --all-files pre-commit looks at the staged files, as in `git commit`.
    make_drift(project)
    git(project, env, "add", str(ROLE))
    done = try_repo(project, hooks_repo, env, "promptc-diff")
    assert done.returncode == 1, done.stdout + done.stderr
    assert hook_status(done.stdout, "promptc diff") == "Failed"


def test_unrelated_change_skips_the_hooks(project, hooks_repo, env):
    (project / "notes.txt").write_text("not a prompt input\n")
    git(project, env, "add", "notes.txt")
    done = try_repo(project, hooks_repo, env, "promptc-diff")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Skipped" in hook_status(done.stdout, "promptc diff")


def test_lint_error_fails_promptc_check(project, hooks_repo, env):
    make_lint_error(project)
    done = try_repo(project, hooks_repo, env, "promptc-check", "--all-files")
    assert done.returncode == 1, done.stdout + done.stderr
    assert hook_status(done.stdout, "promptc check") == "Failed"
    assert "web_search" in done.stdout and "P001" in done.stdout


def test_hooks_run_the_promptc_they_installed(project, hooks_repo, env):
    """With no promptc on PATH the hooks still run: theirs is the wheel's, in the environment
    pre-commit made for the hooks repository (try-repo keeps it in a temporary store)."""
    path = "/usr/bin:/bin"
    assert shutil.which("promptc", path=path) is None
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hooks_repo), "promptc-check", "--verbose", "--all-files"],
        cwd=project, env=dict(env, PATH=path), capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert hook_status(done.stdout, "promptc check") == "Passed"


def test_accepted_drift_passes_again(project, hooks_repo, env, promptc_bin):
    make_drift(project)
    update = subprocess.run([str(promptc_bin), "diff", "--update"], cwd=project, env=env, capture_output=True, text=True)
    assert update.returncode == 0, update.stderr
    done = try_repo(project, hooks_repo, env, "promptc-diff", "--all-files")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def system_env(tmp_path_factory, promptc_bin) -> dict:
    """No wheel, no network: the `language: system` hooks run the promptc on PATH (this build's)."""
    tmp = tmp_path_factory.mktemp("pre-commit-system")
    environment = git_env(tmp)
    environment["PRE_COMMIT_HOME"] = str(tmp / "pre-commit-home")
    environment["PRE_COMMIT_COLOR"] = "never"
    environment["HOME"] = str(tmp)
    environment["PIP_NO_INDEX"] = "1"
    environment["PATH"] = f"{promptc_bin.parent}:/usr/bin:/bin"
    return environment


@pytest.fixture(scope="module")
def system_hooks_repo(tmp_path_factory, system_env) -> Path:
    repo = tmp_path_factory.mktemp("hooks-repo-system")
    git(repo, system_env, "init", "--quiet")
    shutil.copy2(HOOKS_FILE, repo / HOOKS_FILE.name)
    git(repo, system_env, "add", "-A")
    git(repo, system_env, "commit", "--quiet", "-m", "promptc hooks")
    return repo


@pytest.fixture
def system_project(tmp_path, system_env) -> Path:
    repo = tmp_path / "project"
    copy_example(repo)
    (repo / ".git").rmdir()
    git(repo, system_env, "init", "--quiet")
    git(repo, system_env, "add", "-A")
    git(repo, system_env, "commit", "--quiet", "-m", "the example")
    return repo


@pytest.mark.parametrize("hook, name", [("promptc-check-system", "promptc check"),
                                        ("promptc-diff-system", "promptc diff")])
def test_system_hooks_pass_a_clean_copy_with_the_promptc_on_path(system_project, system_hooks_repo, system_env,
                                                                  hook, name):
    done = try_repo(system_project, system_hooks_repo, system_env, hook, "--all-files")
    assert done.returncode == 0, done.stdout + done.stderr
    assert hook_status(done.stdout, name) == "Passed"


def test_system_hooks_fail_on_drift_and_lint_errors(system_project, system_hooks_repo, system_env):
    make_drift(system_project)
    make_lint_error(system_project)
    diff = try_repo(system_project, system_hooks_repo, system_env, "promptc-diff-system", "--all-files")
    assert diff.returncode == 1 and DRIFT_LINE in diff.stdout, diff.stdout + diff.stderr
    check = try_repo(system_project, system_hooks_repo, system_env, "promptc-check-system", "--all-files")
    assert check.returncode == 1 and "P001" in check.stdout, check.stdout + check.stderr


@pytest.mark.skipif(os.environ.get("PROMPTC_TEST_RUST_HOOKS") != "1",
                    reason="builds promptc from source (minutes): set PROMPTC_TEST_RUST_HOOKS=1")
def test_rust_hook_builds_promptc_from_the_pinned_source(tmp_path, system_env):
    """`language: rust`: pre-commit runs `cargo install --path .` in the hooks repository, here a
    commit of this checkout's tracked files, offline (crates from the local cargo cache)."""
    env = dict(system_env, PATH=os.environ["PATH"], CARGO_NET_OFFLINE="true")
    hooks = tmp_path / "hooks"
    subprocess.run(["git", "clone", "--quiet", "--no-local", str(REPO), str(hooks)], env=env, check=True)
    shutil.copy2(HOOKS_FILE, hooks / HOOKS_FILE.name)
    git(hooks, env, "add", "-A")
    git(hooks, env, "commit", "--quiet", "--allow-empty", "-m", "hooks under test")
    project = tmp_path / "project"
    copy_example(project)
    (project / ".git").rmdir()
    git(project, env, "init", "--quiet")
    git(project, env, "add", "-A")
    git(project, env, "commit", "--quiet", "-m", "the example")
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hooks), "promptc-check-rust", "--verbose", "--all-files"],
        cwd=project, env=env, capture_output=True, text=True, timeout=3600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert hook_status(done.stdout, "promptc check") == "Passed"

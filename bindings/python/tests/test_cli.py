"""The wheel's `promptc` command is the binary's command line."""

import os
import pathlib
import shutil
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[3]


def run(args, **kw):
    script = shutil.which("promptc", path=os.path.dirname(sys.executable))
    assert script, "the wheel installs a promptc command beside the interpreter"
    return subprocess.run([script, *args], cwd=REPO, capture_output=True, text=True, **kw)


def test_the_command_renders_like_the_binary(cli):
    for args in (["render", "--nonce", "abcd1234"], ["render", "--tools", "--provider", "gemini"], ["check"],
                 ["report", "--no-cache", "--format", "json"]):
        ours = run(["--color", "never", *args])
        theirs = cli(*args, check=False)
        assert (ours.returncode, ours.stdout) == (theirs.returncode, theirs.stdout), args


def test_version_help_and_exit_codes(cli):
    assert run(["--version"]).stdout == cli("--version").stdout
    assert run(["--help"]).returncode == 0
    bad = run(["render", "--transport", "nativ"])
    assert bad.returncode == 2 and "invalid value 'nativ' for '--transport" in bad.stderr and "native" in bad.stderr
    broken = run(["-C", "fixtures/bad/malformed-yaml", "render"])
    assert broken.returncode == 2 and "promptc.yaml" in broken.stderr


def test_python_dash_m(cli):
    proc = subprocess.run([sys.executable, "-m", "promptc", "--version"], capture_output=True, text=True)
    assert proc.stdout == cli("--version").stdout

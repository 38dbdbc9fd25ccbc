"""Errors raise PromptcError with the diagnostics the command line prints: same files,
lines, columns, messages and help."""

import pathlib
import re

import pytest

import promptc

REPO = pathlib.Path(__file__).resolve().parents[3]
BAD = sorted(p for p in (REPO / "fixtures" / "bad").iterdir() if p.is_dir())


def binding_error(path: str) -> promptc.PromptcError:
    try:
        project = promptc.Project.load(path)
        project.compile()
    except promptc.PromptcError as e:
        return e
    pytest.fail(f"{path}: no error")


@pytest.mark.parametrize("fixture", BAD, ids=lambda p: p.name)
def test_bad_fixture_errors_match_the_cli(fixture, cli, monkeypatch):
    monkeypatch.chdir(REPO)
    rel = str(fixture.relative_to(REPO))
    proc = cli("-C", rel, "render", check=False)
    if proc.returncode == 0:
        pytest.skip("renders (the fixture fails `check`, not `render`)")
    assert proc.returncode == 2, proc.stderr
    err = binding_error(rel)
    # The CLI prints load warnings first, then the error's diagnostics: the same ones, but the
    # help, where the library says what is needed in its own words and the CLI names its flag.
    def no_help(text: str) -> str:
        lines = text.rstrip("\n").split("\n")
        return "\n".join(line for line in lines if not line.startswith("  = help:"))

    assert no_help(proc.stderr).endswith(no_help(str(err))), f"CLI:\n{proc.stderr}\nbinding:\n{err}"
    for line in str(err).split("\n"):
        if line.startswith("  = help:"):
            assert line in proc.stderr or re.search(r"= help: .*--[a-z]", proc.stderr), line
    assert err.diagnostics, rel
    for d in err.diagnostics:
        if d.file is not None and d.line is not None:
            assert f"{d.file}:{d.line}:{d.column}" in proc.stderr
        assert d.message in proc.stderr
        if d.help:
            first = d.help.splitlines()[0]
            assert first in proc.stderr or re.search(r"= help: .*--[a-z]", proc.stderr), first
    assert err.kind in {"project", "template", "usage", "io"}


def test_load_error_is_located(monkeypatch):
    monkeypatch.chdir(REPO)
    err = binding_error("fixtures/bad/malformed-yaml")
    assert err.kind == "project"
    d = err.diagnostics[0]
    assert d.severity == "error"
    assert d.file and d.file.endswith("promptc.yaml")
    assert d.line and d.column
    assert repr(d).startswith("<Diagnostic error at ")


def test_missing_project_is_an_error():
    with pytest.raises(promptc.PromptcError) as info:
        promptc.Project.load("/nonexistent/promptc")
    assert info.value.kind in {"io", "usage", "project"}
    assert "nonexistent" in str(info.value)


def test_bad_switch_and_variable_values(example):
    # A string goes to the switch as a value: an on/off switch says it takes true or false.
    with pytest.raises(promptc.PromptcError, match="invalid value `yes` for switch `browser`") as info:
        example.compile(switches={"browser": "yes"})
    assert "on/off switch: true or false" in str(info.value)
    with pytest.raises(promptc.PromptcError, match="must be True or False"):
        example.compile(switches={"browser": 1})
    with pytest.raises(promptc.PromptcError) as info:
        example.compile(switches={"no_such_switch": True})
    assert "no_such_switch" in str(info.value)
    with pytest.raises(promptc.PromptcError, match="variables take"):
        example.compile(variables={"cwd": object()})
    with pytest.raises(promptc.PromptcError, match="not a finite number"):
        example.compile(variables={"cwd": float("nan")})


def test_bad_nonce_and_unknown_names(example):
    with pytest.raises(promptc.PromptcError, match="invalid nonce"):
        example.compile(nonce="x")
    with pytest.raises(promptc.PromptcError, match="unknown profile"):
        example.compile(profile="no-such-profile")
    with pytest.raises(promptc.PromptcError, match="unknown sub-agent"):
        example.compile(subagent="nobody")
    with pytest.raises(promptc.PromptcError, match="no effect with the xml transport"):
        example.compile(transport="xml", provider="openai")


def test_context_windows_read_as_on_the_command_line(example):
    # Fractions round down, suffixes scale; the same profile as the CLI would pick.
    for window in (32000.7, "32k", "3.2e4", 32000):
        assert example.compile(context_window=window).profile == "lite", window
    for bad in (0, -1, float("nan"), "lots", True):
        with pytest.raises(promptc.PromptcError) as info:
            example.compile(context_window=bad)
        assert info.value.kind == "usage", bad


def test_a_template_that_doubles_a_value_raises_instead_of_aborting(tmp_path):
    # Doubling through a namespace slips the static growth guard; the engine's value size
    # limit stops it with an exception (it used to abort the interpreter at 3+ GB).
    (tmp_path / "promptc.yaml").write_text(
        "promptc: 1\nname: grow\ncontract_version: 1\ntransports: [xml]\n"
        "sections:\n  role:\n    template: role.md.j2\ntools: []\n"
        "profiles:\n  p:\n    sections: [role]\n"
    )
    (tmp_path / "role.md.j2").write_text(
        '{% set ns = namespace(s="ab") %}{% for i in range(64) %}'
        "{% set t = ns.s %}{% set ns.s = t ~ t %}{% endfor %}{{ ns.s }}"
    )
    with pytest.raises(promptc.PromptcError) as info:
        promptc.Project.load(str(tmp_path)).compile()
    assert info.value.kind == "template"
    assert "the template builds a value larger than" in str(info.value)
    assert "role.md.j2:1:" in str(info.value)

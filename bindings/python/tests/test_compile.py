"""The package compiles what the command line renders, byte for byte, for every cell."""

import json

import pytest

import promptc
from conftest import cell_flags


def test_every_cell_prompt_and_tools_equal_the_cli(example, cli):
    cells = example.cells()
    assert len(cells) >= 12
    compared = 0
    for cell in cells:
        options = cell.options
        compiled = example.compile(**options)
        flags = cell_flags(options)
        assert compiled.prompt == cli("render", *flags).stdout, cell.name
        compared += 1
        for provider in cell.providers:
            compiled = example.compile(**options, provider=provider)
            expected = cli("render", "--tools", *flags, "--provider", provider).stdout
            assert compiled.tools_json == expected, f"{cell.name}.{provider}"
            assert compiled.tools == json.loads(expected)
            compared += 1
    assert compared >= 40


def test_every_cell_equals_its_snapshot_files(example, repo):
    for cell in example.cells():
        compiled = example.compile(**cell.options)
        assert compiled.prompt == (repo / "snapshots" / f"{cell.name}.prompt.md").read_text("utf-8")
        for provider in cell.providers:
            tools = example.compile(**cell.options, provider=provider).tools_json
            assert tools == (repo / "snapshots" / f"{cell.name}.{provider}.tools.json").read_text("utf-8")


def test_render_json_document_equals_the_cli(example, cli):
    compiled = example.compile(profile="lite", provider="anthropic", nonce="abcd1234")
    expected = cli("render", "--format", "json", "--profile", "lite", "--provider", "anthropic",
                   "--nonce", "abcd1234").stdout
    assert compiled.to_json() == expected
    doc = json.loads(expected)
    assert compiled.metadata == doc["metadata"]
    assert compiled.sections == doc["sections"]
    assert compiled.cache == doc["cache"]
    assert compiled.anthropic_request() == doc["anthropic_request"]


def test_cell_accessors(example):
    compiled = example.compile(profile="standard", transport="xml", nonce="abcd1234")
    assert compiled.profile == "standard"
    assert compiled.transport == "xml"
    assert compiled.provider is None
    assert compiled.tools is None and compiled.tools_json is None
    assert compiled.nonce == "abcd1234"
    assert compiled.tool_names and all(isinstance(n, str) for n in compiled.tool_names)
    assert compiled.anthropic_request() is None
    assert [s["id"] for s in compiled.sections]


def test_runtime_values_change_the_prompt(example):
    base = example.compile(profile="standard", nonce="abcd1234")
    moved = example.compile(profile="standard", nonce="abcd1234", variables={"cwd": "/srv/app"})
    assert "/srv/app" in moved.prompt and "/srv/app" not in base.prompt
    switches = dict(example.cells()[0].options["switches"])
    flipped = {name: not on for name, on in switches.items() if not name.startswith("subagent")}
    other = example.compile(profile="standard", nonce="abcd1234", switches=flipped)
    assert other.prompt != base.prompt or other.tool_names != base.tool_names


def test_selection_policy_follows_the_model(example, cli):
    for model, window in [("openai/o1-mini", None), ("anthropic/claude-sonnet-4", 200000), ("small", 8000)]:
        kwargs = {"model": model, "nonce": "abcd1234"}
        flags = ["--model", model, "--nonce", "abcd1234"]
        if window:
            kwargs["context_window"] = window
            flags += ["--context-window", str(window)]
        assert example.compile(**kwargs).prompt == cli("render", *flags).stdout


def test_report_equals_the_cli(example, cli):
    report = example.report(profile="lite", provider="openai")
    expected = json.loads(cli("report", "--format", "json", "--no-cache", "--profile", "lite",
                              "--provider", "openai").stdout)
    assert report == expected
    assert report["format"] == 1


def test_a_project_is_reusable_across_calls(example):
    first = example.compile(profile="lite", nonce="abcd1234").prompt
    for _ in range(3):
        assert example.compile(profile="lite", nonce="abcd1234").prompt == first


def test_version_matches_the_cli(cli):
    assert cli("--version").stdout.strip() == f"promptc {promptc.__version__}"


@pytest.mark.parametrize("bad", [{"transport": "nativ"}, {"provider": "openia"}])
def test_unknown_names_raise_usage_errors(example, bad):
    with pytest.raises(promptc.PromptcError) as info:
        example.compile(**bad)
    assert info.value.kind == "usage"
    [d] = info.value.diagnostics
    assert d.message.startswith("unknown ")
    assert d.help and "did you mean" in d.help


def test_string_valued_switches_take_strings(repo, cli):
    project = promptc.Project.load(repo / "fixtures/good/switch-values")
    batch = project.compile(switches={"style": "batch", "sandbox": True})
    assert batch.prompt == cli("-C", "fixtures/good/switch-values", "render", "--set", "style=batch").stdout
    assert "Work through the whole queue" in batch.prompt
    with pytest.raises(promptc.PromptcError, match="one of: interactive, batch, terse, verbose"):
        project.compile(switches={"style": "loud"})
    case = next(c for c in project.cells() if c.case == "terse")
    assert case.options["switches"]["style"] == "terse"

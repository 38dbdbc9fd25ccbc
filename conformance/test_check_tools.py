"""Tests for check_tools.py against fixtures/conformance/{good,bad}.

Run with the conformance venv (scripts/conformance-env.sh prints its python):

    target/conformance-venv/bin/python -m unittest discover -s conformance -v

Per-file cases call check_tools.main() in-process (the SDK imports take
0.5-1.5 s per process); the CLI cases run the script as a subprocess.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SCRIPT = HERE / "check_tools.py"
GOOD = REPO / "fixtures" / "conformance" / "good"
BAD = REPO / "fixtures" / "conformance" / "bad"

sys.path.insert(0, str(HERE))
import check_tools  # noqa: E402

# Every bad fixture and a substring its FAIL line must contain.  Keep in sync
# with fixtures/conformance/README.md; test_table_matches_fixtures enforces it.
EXPECTED_FAILURES = {
    # gemini
    "additional-properties.native.gemini.tools.json": "parameters.additionalProperties: 'additionalProperties' is not allowed",
    "type-array.native.gemini.tools.json": "limit.type: type must be a single string, not an array",
    "integer-enum.native.gemini.tools.json": "limit.enum: enum is only allowed on type STRING",
    "ref.native.gemini.tools.json": "filter[\"$ref\"]: '$ref' is not allowed in a Gemini schema",
    "snake-case-key.native.gemini.tools.json": "must be written as its camelCase API name 'functionDeclarations'",
    "array-without-items.native.gemini.tools.json": "tags.items: ARRAY schema needs items",
    "empty-object-parameters.native.gemini.tools.json": "functionDeclarations[1].parameters.properties: OBJECT schema needs non-empty properties",
    "bad-parameter-name.native.gemini.tools.json": "parameter name 'space-id' does not match",
    "required-not-in-properties.native.gemini.tools.json": "required names not in properties: ['space']",
    "unsupported-string-format.native.gemini.tools.json": "format 'email' not allowed on STRING",
    "name-starts-with-digit.native.gemini.tools.json": "tool name '1st_search' does not match",
    "nullable-not-boolean.native.gemini.tools.json": "limit.nullable: google.genai.types.Tool: Input should be a valid boolean",
    # openai (Chat Completions)
    "unknown-key-parameter.native.openai.tools.json": "$[0].function.parameter: unknown key 'parameter'",
    "name-with-space.native.openai.tools.json": "tool name 'search docs' does not match",
    "strict-missing-additional-properties.native.openai.tools.json": "strict: object schema needs additionalProperties: false",
    "strict-unsupported-keyword.native.openai.tools.json": "query.minLength: strict: keyword 'minLength' is not supported",
    "description-too-long.native.openai.tools.json": "description is 1025 chars; OpenAI allows at most 1024",
    "wrong-type-literal.native.openai.tools.json": "$[0].type: ChatCompletionFunctionToolParam: Input should be 'function'",
    "too-many-tools.native.openai.tools.json": "129 tools; at most 128 are allowed",
    # openai-responses
    "missing-strict.native.openai-responses.tools.json": "$[0].strict: missing required key 'strict'",
    "strict-optional-not-required.native.openai-responses.tools.json": "strict: every property must be required; missing ['limit']",
    "chat-shape.native.openai-responses.tools.json": "$[0].function: unknown key 'function'",
    "strict-array-without-items.native.openai-responses.tools.json": "tags.items: strict: array schema needs an `items` schema",
    # anthropic
    "missing-input-schema.native.anthropic.tools.json": "$[0].input_schema: missing required key 'input_schema'",
    "duplicate-names.native.anthropic.tools.json": "duplicate tool name 'search_docs'",
    "root-not-object.native.anthropic.tools.json": "input_schema root must have type \"object\"",
    "uppercase-type.native.anthropic.tools.json": "invalid JSON Schema type 'STRING' (JSON Schema types are lowercase)",
    "bad-cache-control.native.anthropic.tools.json": "$[0].cache_control.type: ToolParam: Input should be 'ephemeral'",
}


def provider_of(path: Path) -> str:
    match = check_tools.FILE_RE.match(path.name)
    assert match, f"fixture name does not route to a provider: {path.name}"
    return match.group("provider")


def run_main(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = check_tools.main(list(argv))
    return code, out.getvalue()


def run_cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *argv],
        capture_output=True, text=True, timeout=120, cwd=REPO,
    )


class FixtureTests(unittest.TestCase):
    def test_good_fixtures_cover_every_provider(self):
        providers = sorted({provider_of(p) for p in GOOD.glob("*.tools.json")})
        self.assertEqual(providers, sorted(check_tools.PROVIDERS))

    def test_good_fixtures_pass(self):
        for path in sorted(GOOD.glob("*.tools.json")):
            with self.subTest(fixture=path.name):
                code, out = run_main("--provider", provider_of(path), str(path))
                self.assertEqual(code, 0, out)
                self.assertRegex(out, rf"^ok {path} \(\d+ tools\)$")

    def test_table_matches_fixtures(self):
        on_disk = {p.name for p in BAD.glob("*.tools.json")}
        self.assertEqual(on_disk, set(EXPECTED_FAILURES))
        self.assertGreaterEqual(len(on_disk), 8)

    def test_bad_fixtures_fail_with_expected_reason(self):
        for name, expected in sorted(EXPECTED_FAILURES.items()):
            path = BAD / name
            with self.subTest(fixture=name):
                code, out = run_main("--provider", provider_of(path), str(path))
                self.assertEqual(code, 1, out)
                self.assertTrue(out.startswith(f"FAIL {path}: "), out)
                self.assertIn(expected, out)

    def test_good_fixture_fails_as_another_provider(self):
        # A valid file checked as the wrong provider must fail: guards against
        # a check that accepts anything.
        for path in sorted(GOOD.glob("*.tools.json")):
            for other in check_tools.PROVIDERS:
                if other == provider_of(path):
                    continue
                with self.subTest(fixture=path.name, provider=other):
                    code, out = run_main("--provider", other, str(path))
                    self.assertEqual(code, 1, out)


class CliTests(unittest.TestCase):
    def test_dir_mode_good(self):
        proc = run_cli("--dir", str(GOOD))
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        lines = proc.stdout.splitlines()
        self.assertEqual(len(lines), len(list(GOOD.glob("*.tools.json"))))
        self.assertTrue(all(line.startswith("ok ") for line in lines), proc.stdout)

    def test_dir_mode_bad_routes_every_file_and_fails(self):
        proc = run_cli("--dir", str(BAD))
        self.assertEqual(proc.returncode, 1, proc.stderr)
        lines = proc.stdout.splitlines()
        self.assertEqual(len(lines), len(EXPECTED_FAILURES))
        for line in lines:
            self.assertTrue(line.startswith("FAIL "), line)
            name = Path(line[len("FAIL "):].split(": ", 1)[0]).name
            self.assertIn(EXPECTED_FAILURES[name], line)

    def test_usage_errors_exit_2(self):
        for argv in ([], ["--provider", "openai"], ["--provider", "mistral", "x.json"],
                     ["--dir", str(GOOD), "--provider", "openai"], ["--dir", str(REPO / "no-such-dir")]):
            with self.subTest(argv=argv):
                self.assertEqual(run_cli(*argv).returncode, 2)

    def test_unreadable_input_exits_2(self):
        with tempfile.TemporaryDirectory() as tmp:
            broken = Path(tmp) / "broken.native.openai.tools.json"
            broken.write_text("{not json")
            proc = run_cli("--provider", "openai", str(broken), str(Path(tmp) / "missing.json"))
            self.assertEqual(proc.returncode, 2, proc.stdout)
            self.assertIn("invalid JSON", proc.stdout)
            self.assertIn("cannot read", proc.stdout)

    def test_dir_without_matching_files_exits_2(self):
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "notes.json").write_text("[]")
            self.assertEqual(run_cli("--dir", tmp).returncode, 2)


class FileNameRoutingTests(unittest.TestCase):
    def test_provider_from_name(self):
        cases = {
            "standard.native.openai.tools.json": "openai",
            "standard.native.openai-responses.tools.json": "openai-responses",
            "a.b.native.anthropic.tools.json": "anthropic",
            "x.native.gemini.tools.json": "gemini",
        }
        for name, provider in cases.items():
            with self.subTest(name=name):
                self.assertEqual(provider_of(Path(name)), provider)
        for name in ("x.native.mistral.tools.json", "x.openai.tools.json", "x.native.openai.json"):
            self.assertIsNone(check_tools.FILE_RE.match(name), name)


if __name__ == "__main__":
    unittest.main()

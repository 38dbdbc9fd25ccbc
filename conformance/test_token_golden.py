"""Tests for scripts/token-golden.py and the committed tests/golden/tokens.json.

Run with the conformance venv (it has the pinned tiktoken):

    PY=$(bash scripts/conformance-env.sh | tail -n1)
    "$PY" -m unittest discover -s conformance -v

The golden file holds Python tiktoken's counts (encode_ordinary) for edge
cases and the example project's prompts/sections/tools; the Rust token counter
is tested against the same file. Regenerate it with
`"$PY" scripts/token-golden.py --write tests/golden/tokens.json`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SCRIPT = REPO / "scripts" / "token-golden.py"
GOLDEN = REPO / "tests" / "golden" / "tokens.json"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


class TokenGoldenTest(unittest.TestCase):
    def test_golden_file_matches_tiktoken(self) -> None:
        proc = run("--check", str(GOLDEN))
        self.assertEqual(proc.returncode, 0, f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
        self.assertRegex(proc.stdout, r"token golden: \d+ cases x 4 encodings, all equal")

    def test_golden_file_is_canonical(self) -> None:
        raw = GOLDEN.read_bytes()
        self.assertTrue(raw.endswith(b"}\n"), "golden file must end with a single LF")
        self.assertNotIn(b"\r", raw, "golden file must use LF line endings (CR in texts is escaped)")
        doc = json.loads(raw)
        self.assertEqual(doc["encodings"], ["o200k_base", "cl100k_base", "p50k_base", "r50k_base"])
        names = [c["name"] for c in doc["cases"]]
        self.assertEqual(names, sorted(names), "cases must be sorted by name")
        self.assertEqual(len(names), len(set(names)), "case names must be unique")
        self.assertLess(len(raw), 300_000, "golden file should stay under ~300 KB")

    def test_altered_count_is_reported(self) -> None:
        doc = json.loads(GOLDEN.read_text(encoding="utf-8"))
        victim = "edge/special/endoftext-in-sentence"
        case = next(c for c in doc["cases"] if c["name"] == victim)
        real = case["counts"]["cl100k_base"]
        case["counts"]["cl100k_base"] = real + 1
        with tempfile.TemporaryDirectory() as tmp:
            altered = Path(tmp) / "tokens.json"
            altered.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            proc = run("--check", str(altered))
        self.assertEqual(proc.returncode, 1, f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
        self.assertIn(f"MISMATCH {victim} [cl100k_base]: golden {real + 1}, actual {real}", proc.stdout)
        self.assertIn("1 mismatch(es)", proc.stdout)

    def test_usage_errors_exit_2(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            missing = run("--check", str(Path(tmp) / "nope.json"))
            bad = Path(tmp) / "bad.json"
            bad.write_text('{"encodings": ["o200k_base"], "cases": [{"name": "x"}]}\n', encoding="utf-8")
            malformed = run("--check", str(bad))
        no_mode = run()
        for proc in (missing, malformed, no_mode):
            self.assertEqual(proc.returncode, 2, f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
        self.assertIn("cannot read", missing.stderr)
        self.assertIn("needs exactly one of `text`", malformed.stderr)

    def test_vocab_hash_mismatch_fails_loudly(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            golden = Path(tmp) / "tokens.json"
            golden.write_text(
                '{"encodings": ["r50k_base"], "cases": [{"name": "x", "text": "hi", "counts": {"r50k_base": 1}}]}\n',
                encoding="utf-8",
            )
            assets = Path(tmp) / "assets"
            assets.mkdir()
            # A well-formed vocab that is not the real one.
            (assets / "r50k_base.tiktoken").write_text("aGk= 0\n", encoding="ascii")
            proc = run("--check", str(golden), "--assets", str(assets))
        self.assertEqual(proc.returncode, 2, f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
        self.assertIn("VOCAB HASH MISMATCH", proc.stderr)
        self.assertIn("306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930", proc.stderr)


if __name__ == "__main__":
    unittest.main()

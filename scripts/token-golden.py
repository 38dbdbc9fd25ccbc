#!/usr/bin/env python3
"""Golden token counts from Python tiktoken, for the Rust token counter's tests.

    PY=$(bash scripts/conformance-env.sh | tail -n1)
    "$PY" scripts/token-golden.py --check tests/golden/tokens.json
    "$PY" scripts/token-golden.py --write tests/golden/tokens.json [--example-json DIR]

--check FILE
    Recount every case in FILE with every encoding FILE lists and compare.
    Prints one line per mismatch (case, encoding, golden, actual).
    Exit 0: all equal; 1: a mismatch; 2: usage, I/O, format or vocab error.

--write FILE [--example-json DIR] [--prune]
    (Re)generate FILE. The cases are the fixed edge cases below plus cases
    taken from `promptc render --format json` outputs: every section text
    (deduplicated by text), every whole prompt, and (native transport, providers
    openai and anthropic) each tool as compact JSON. The outputs are read from
    the *.json files in DIR, or, without --example-json, produced by running
    `cargo run -q -- render --format json` for the profiles standard and lite,
    transports native (providers openai, anthropic) and xml. Cases already in
    FILE are kept (by name), their text replaced when the generator now
    produces a different text for that name; --prune drops the ones no longer
    generated. All counts are recomputed.

Counting is `Encoding.encode_ordinary` (special tokens such as <|endoftext|> are
plain text), which is what tiktoken-rs's `CoreBPE::count_ordinary` does.

Nothing is downloaded. The vocab files are the ones shipped in the tiktoken-rs
crate (`<tiktoken-rs package dir>/assets/<name>.tiktoken`, found with
`cargo metadata --offline`; override with --assets DIR or PROMPTC_TIKTOKEN_ASSETS).
The regex patterns, special tokens and vocab sha256 hashes come from
tiktoken_ext.openai_public of the installed tiktoken: each constructor there is
called with its `load_tiktoken_bpe` redirected to the local file, whose sha256
must equal the `expected_hash` the constructor passes, or the script fails.

Golden file format (JSON, 2-space indent, LF, trailing newline, cases sorted by
name; combining marks, format/control characters and non-ASCII spaces are
\\u-escaped so that no editor can normalise or strip them):

    {"tiktoken": "<version>", "encodings": [...],
     "cases": [{"name": "...", "text": "...", "counts": {"o200k_base": N, ...}},
               {"name": "...", "repeat": {"unit": "...", "times": N}, "counts": {...}}]}

A `repeat` case's text is unit * times (used for large generated inputs).
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import time
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

REPO = Path(__file__).resolve().parent.parent
ENCODINGS = ("o200k_base", "cl100k_base", "p50k_base", "r50k_base")
ASSETS_ENV = "PROMPTC_TIKTOKEN_ASSETS"

# Example renders used when --example-json is not given, and the order in which
# their texts are visited (the first render that produces a text names it).
EXAMPLE_PROFILES = ("standard", "lite")
EXAMPLE_RUNS = (("native", "openai"), ("native", "anthropic"), ("xml", None))
TOOL_PROVIDERS = ("openai", "anthropic")


class UsageError(Exception):
    """Exit status 2: bad arguments, unreadable or malformed files, vocab problems."""


# --------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------


@dataclass
class Case:
    name: str
    text: str | None = None
    unit: str | None = None
    times: int | None = None

    @property
    def full_text(self) -> str:
        if self.text is not None:
            return self.text
        assert self.unit is not None and self.times is not None
        return self.unit * self.times

    def same_input(self, other: Case) -> bool:
        return (self.text, self.unit, self.times) == (other.text, other.unit, other.times)


def t(name: str, text: str) -> Case:
    return Case(name=name, text=text)


def rep(name: str, unit: str, times: int) -> Case:
    return Case(name=name, unit=unit, times=times)


RUST_CODE = """\
use std::collections::HashMap;

/// Counts words, ignoring case.
pub fn word_counts(text: &str) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for word in text.split_whitespace() {
        *counts.entry(word.to_lowercase()).or_insert(0) += 1;
    }
    counts
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts() {
        assert_eq!(super::word_counts("a A b")["a"], 2);
    }
}
"""

PYTHON_CODE = """\
from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Point:
    x: float
    y: float

    def __add__(self, other: "Point") -> "Point":
        return Point(self.x + other.x, self.y + other.y)


def centroid(points: list[Point]) -> Point:
    if not points:
        raise ValueError("no points")
    total = sum(points[1:], start=points[0])
    return Point(total.x / len(points), total.y / len(points))


if __name__ == "__main__":
    print(centroid([Point(0, 0), Point(4, 2)]))  # Point(x=2.0, y=1.0)
"""

JSON_CODE = """\
{
  "name": "read_file",
  "description": "Read a file in the workspace.",
  "parameters": {
    "type": "object",
    "properties": {
      "path": {"type": "string", "description": "Path relative to the workspace root"},
      "start_line": {"type": "integer", "minimum": 1},
      "end_line": {"type": ["integer", "null"]}
    },
    "required": ["path"],
    "additionalProperties": false
  }
}
"""

UNIFIED_DIFF = """\
diff --git a/src/render.rs b/src/render.rs
index 3f2a1b4..9c0d7e2 100644
--- a/src/render.rs
+++ b/src/render.rs
@@ -12,7 +12,9 @@ pub fn render(project: &Project) -> Result<String, Error> {
     let mut out = String::new();
-    for section in &project.sections {
-        out.push_str(&section.text);
+    for (i, section) in project.sections.iter().enumerate() {
+        if i > 0 {
+            out.push_str("\\n\\n");
+        }
+        out.push_str(section.text.trim_end());
     }
     Ok(out)
 }
"""

MARKDOWN_PROMPT = """\
# Role

You are **Forge**, a careful software engineer working inside the user's repository.
Follow the rules below; when they conflict with a user instruction, ask first.

## Rules

1. Read a file before you edit it, and keep edits minimal (`replace_in_file` over `write_to_file`).
2. Never run commands that need interactive input; prefer `--yes`/`-y` flags.
3. When you finish, call `attempt_completion` with a one-paragraph summary — no questions.

> Note: paths are relative to `/home/user/project`; the OS is Linux (bash 5.2).

| Tool | Use it for |
| --- | --- |
| `read_file` | reading source files |
| `search_files` | regex search, e.g. `fn\\s+main\\(` |
"""

EDGE_CASES: list[Case] = [
    # Empty and whitespace-only input.
    t("edge/empty", ""),
    t("edge/whitespace/space-1", " "),
    t("edge/whitespace/spaces-2", "  "),
    t("edge/whitespace/spaces-16", " " * 16),
    t("edge/whitespace/spaces-100", " " * 100),
    rep("edge/whitespace/spaces-1000", " ", 1000),
    t("edge/whitespace/spaces-3-before-word", "   hello"),
    t("edge/whitespace/spaces-16-before-word", " " * 16 + "world"),
    t("edge/whitespace/word-spaces-word", "hello" + " " * 7 + "world"),
    t("edge/whitespace/trailing-spaces", "hello world   "),
    t("edge/whitespace/spaces-and-tabs", " \t \t\t  \t"),
    t("edge/whitespace/indent-tabs-code", "fn main() {\n\tif x {\n\t\treturn;\n\t}\n}\n"),
    t("edge/whitespace/newline", "\n"),
    t("edge/whitespace/newlines-2", "\n\n"),
    rep("edge/whitespace/newlines-500", "\n", 500),
    t("edge/whitespace/spaces-then-newlines", "   \n\n  \n"),
    t("edge/whitespace/mixed-all", " \t\n\r\n\u000b\u000c\u00a0\u2003\u3000 "),
    t("edge/whitespace/nbsp-between-words", "100\u00a0km and 5\u202fkg"),
    # Line endings.
    t("edge/crlf/lines", "line one\r\nline two\r\n\r\n"),
    t("edge/crlf/mixed-endings", "unix\nwindows\r\nold mac\rmixed\r\n\n\r\rend"),
    t("edge/crlf/lone-cr", "\r"),
    t("edge/crlf/crlf-only", "\r\n\r\n\r\n"),
    t("edge/crlf/indented-crlf", "if x:\r\n    y = 1\r\n\r\n    return y\r\n"),
    # Huge single pieces (the BPE merge loop runs on one 200 KB piece).
    rep("edge/huge/word-10-letter-unit-x20000", "abcdefghij", 20000),
    rep("edge/huge/letter-a-x200000", "a", 200000),
    rep("edge/huge/digit-7-x200000", "7", 200000),
    rep("edge/huge/punct-dash-x50000", "-", 50000),
    rep("edge/huge/sentence-x2000", "The quick brown fox jumps over the lazy dog. ", 2000),
    # Special-token strings typed as plain text.
    t("edge/special/endoftext-alone", "<|endoftext|>"),
    t("edge/special/endoftext-in-sentence", "The model stops at <|endoftext|> and then nothing follows."),
    t("edge/special/endoftext-twice-no-space", "<|endoftext|><|endoftext|>"),
    t("edge/special/fim-prefix", "<|fim_prefix|>def add(a, b):<|fim_suffix|>\n<|fim_middle|>"),
    t("edge/special/endofprompt", "Summarise the text above.<|endofprompt|>"),
    t("edge/special/im-start", "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"),
    t("edge/special/near-miss", "<|endoftext|  <endoftext|> <|ENDOFTEXT|> < |endoftext| >"),
    # Emoji.
    t("edge/emoji/simple", "Great job! 🎉👍😀🚀"),
    t("edge/emoji/skin-tones", "👍🏻👍🏼👍🏽👍🏾👍🏿 👋🏽"),
    t("edge/emoji/zwj-family", "👨\u200d👩\u200d👧\u200d👦 and 👩\u200d💻"),
    t("edge/emoji/flags", "🇺🇸🇯🇵🇩🇪🇧🇷 🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"),
    t("edge/emoji/keycaps", "1\ufe0f\u20e3 2\ufe0f\u20e3 #\ufe0f\u20e3 *\ufe0f\u20e3"),
    t("edge/emoji/variation-selectors", "\u2764\ufe0f \u2764\ufe0e \u263a\ufe0f"),
    # Combining marks.
    t("edge/combining/nfd-e-acute", "caf" + "e\u0301" + " cr" + "e\u0300" + "me"),
    t("edge/combining/nfc-e-acute", "caf\u00e9 cr\u00e8me"),
    t("edge/combining/stacked", "a\u0301\u0302\u0303\u0304\u0308 o\u0328\u0304"),
    t(
        "edge/combining/zalgo",
        "Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334\u0319\u0324\u031e\u0349\u035a"
        "a\u0360\u0357\u0310\u0352\u0314\u0346\u0315\u0355\u0353\u032c"
        "l\u0352\u0308\u0301\u0358\u0316\u0325"
        "g\u0300\u0305\u030f\u0361\u0327\u0349\u0347"
        "o\u030a\u0313\u035b\u0334\u0318\u0347",
    ),
    # CJK.
    t("edge/cjk/chinese", "今天天气很好，我们去公园散步吧。编译器把提示词渲染成系统提示。"),
    t("edge/cjk/japanese", "東京でラーメンを食べました。ひらがなとカタカナと漢字が混ざっています。"),
    t("edge/cjk/korean", "안녕하세요, 세계! 한국어 문장은 띄어쓰기를 사용합니다."),
    t("edge/cjk/fullwidth-punct", "「引用」『二重』（括弧）！？：；、。…ＡＢＣ１２３"),
    t("edge/cjk/mixed-with-code", "请调用 `read_file` 读取 src/main.rs 文件（第 1–20 行）。"),
    # Other scripts.
    t("edge/scripts/arabic-rtl", "مرحبا بالعالم، هذا نص عربي من اليمين إلى اليسار."),
    t("edge/scripts/hebrew", "שלום עולם! זהו טקסט בעברית."),
    t("edge/scripts/devanagari", "नमस्ते दुनिया, यह हिन्दी में एक वाक्य है।"),
    t("edge/scripts/thai", "สวัสดีชาวโลก ภาษาไทยไม่มีการเว้นวรรคระหว่างคำ"),
    t("edge/scripts/mixed", "Hello مرحبا שלום नमस्ते สวัสดี Привет Γειά 你好 こんにちは 안녕"),
    t("edge/scripts/bidi-controls", "abc \u202eFED\u202c \u2067rtl\u2069 \u200e\u200f"),
    # Invisible characters.
    t("edge/invisible/zwj-zwnj", "a\u200db\u200cc \u0645\u200c\u06cc \u0915\u094d\u200d\u0937"),
    t("edge/invisible/zero-width-space", "zero\u200bwidth\u200bspace\u2060word"),
    t("edge/invisible/bom-leading", "\ufeffHello, world"),
    t("edge/invisible/bom-inside", "one\ufefftwo\ufeff"),
    t("edge/invisible/soft-hyphen", "hy\u00adphen\u00ada\u00adtion"),
    t("edge/invisible/control-chars", "a\u0000b\u0001c\u001bd\u007fe\u0085f"),
    # Numbers.
    t("edge/numbers/digits-1-to-12", " ".join("123456789012"[:n] for n in range(1, 13))),
    t("edge/numbers/digits-40", "3141592653589793238462643383279502884197"),
    rep("edge/numbers/digits-1000", "0123456789", 100),
    t("edge/numbers/separators", "1,234,567.89 1.234.567,89 1 234 567 1_000_000 1'000'000 ₹12,34,567"),
    t("edge/numbers/mixed", "v1.2.3-rc.4 0x1F 0b1010 1e-9 -42 +7 3.14159 50% $1.5k 2024-06-30T12:34:56Z"),
    t("edge/numbers/non-ascii-digits", "٠١٢٣٤٥٦٧٨٩ ०१२३ １２３ ⅠⅡⅢ ½ ²³"),
    # Code.
    t("edge/code/rust", RUST_CODE),
    t("edge/code/python", PYTHON_CODE),
    t("edge/code/json", JSON_CODE),
    t("edge/code/json-compact", json.dumps(json.loads(JSON_CODE), separators=(",", ":"))),
    t("edge/code/unified-diff", UNIFIED_DIFF),
    t("edge/code/shell", "find . -name '*.rs' -print0 | xargs -0 grep -n \"TODO\" 2>/dev/null || true\n"),
    # URLs and paths.
    t("edge/urls/https", "See https://docs.example.com/api/v2/tokens?model=gpt-4o&limit=100#counting for details."),
    t("edge/urls/mixed", "<https://example.org/a_b-c/%E2%9C%93?q=1> mailto:dev@example.com file:///C:/Users/me/x.txt"),
    t("edge/urls/paths", "/usr/local/bin/promptc C:\\Program Files\\promptc\\promptc.exe ./src/../tests/golden/tokens.json"),
    # Prose.
    t("edge/prose/markdown-prompt", MARKDOWN_PROMPT),
    t("edge/prose/contractions", "I'm sure you'll see they've done what we'd said; it's John's, ISN'T it? O'Neil's"),
    t("edge/prose/smart-quotes", "\u201cQuoted\u201d \u2018single\u2019 \u2014 em dash \u2013 en dash \u2026 ellipsis"),
]


# --------------------------------------------------------------------------
# Encodings from the tiktoken-rs vocab files
# --------------------------------------------------------------------------


def find_assets(explicit: str | None) -> Path:
    """The tiktoken-rs crate's assets/ folder."""
    where = explicit or os.environ.get(ASSETS_ENV)
    if where:
        path = Path(where)
        if not path.is_dir():
            raise UsageError(f"vocab folder {path} does not exist")
        return path
    try:
        proc = subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--offline"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as e:
        proc = None
        why = f"cannot run cargo: {e}"
    else:
        why = f"cargo metadata failed: {proc.stderr.strip()[-500:]}" if proc.returncode else ""
    if proc is not None and proc.returncode == 0:
        meta = json.loads(proc.stdout)
        manifests = [p["manifest_path"] for p in meta.get("packages", []) if p.get("name") == "tiktoken-rs"]
        if len(manifests) > 1:
            raise UsageError(f"several tiktoken-rs packages in cargo metadata: {manifests}")
        if manifests:
            return Path(manifests[0]).parent / "assets"
        why = "tiktoken-rs is not a dependency in Cargo.lock"
    # Not (yet) a dependency: fall back to a copy in cargo's registry cache.
    # Safe because every file's sha256 is verified against tiktoken's own hash.
    cargo_home = Path(os.environ.get("CARGO_HOME") or Path.home() / ".cargo")
    found = glob.glob(str(cargo_home / "registry" / "src" / "*" / "tiktoken-rs-*" / "assets"))

    def version_key(p: str) -> tuple[int, ...]:
        v = Path(p).parent.name.removeprefix("tiktoken-rs-")
        return tuple(int(x) if x.isdigit() else -1 for x in re.split(r"[.+-]", v))

    if found:
        chosen = max(found, key=version_key)
        print(f"token-golden: note: {why}; using {chosen}", file=sys.stderr)
        return Path(chosen)
    raise UsageError(
        f"cannot locate the tiktoken-rs vocab files ({why}); run `cargo fetch` once,"
        f" or pass --assets DIR or set {ASSETS_ENV}"
    )


def load_encodings(names: list[str], assets: Path) -> tuple[dict[str, Any], dict[str, str]]:
    """Build tiktoken Encodings from local vocab files; returns (encodings, {file: sha256})."""
    # Never read or write tiktoken's download cache, and never touch the network.
    os.environ["TIKTOKEN_CACHE_DIR"] = ""
    try:
        import tiktoken
        import tiktoken.load
        from tiktoken_ext import openai_public
    except ImportError as e:
        raise UsageError(
            f"{e}; run with the conformance venv: PY=$(bash scripts/conformance-env.sh | tail -n1)"
        ) from e

    real_read_file = tiktoken.load.read_file

    def local_read_file(blobpath: str) -> bytes:
        if "://" in blobpath:
            raise UsageError(f"refusing to fetch {blobpath}: token-golden.py works offline")
        return real_read_file(blobpath)

    hashes: dict[str, str] = {}

    def local_load_tiktoken_bpe(url: str, expected_hash: str | None = None) -> dict[bytes, int]:
        filename = os.path.basename(urlparse(url).path)
        path = assets / filename
        if not expected_hash:
            raise UsageError(f"tiktoken {tiktoken.__version__} gives no expected sha256 for {url}")
        try:
            data = path.read_bytes()
        except OSError as e:
            raise UsageError(f"cannot read vocab file {path}: {e}") from e
        actual = hashlib.sha256(data).hexdigest()
        if actual != expected_hash:
            raise UsageError(
                f"VOCAB HASH MISMATCH for {path}:\n  sha256   {actual}\n  expected {expected_hash}"
                f" (from tiktoken {tiktoken.__version__} tiktoken_ext.openai_public, for {url})"
            )
        hashes[filename] = actual
        return tiktoken.load.load_tiktoken_bpe(str(path), expected_hash=expected_hash)

    encodings = {}
    saved = openai_public.load_tiktoken_bpe
    openai_public.load_tiktoken_bpe = local_load_tiktoken_bpe
    tiktoken.load.read_file = local_read_file
    try:
        for name in names:
            ctor = openai_public.ENCODING_CONSTRUCTORS.get(name)
            if ctor is None:
                raise UsageError(f"unknown encoding {name!r} (tiktoken {tiktoken.__version__})")
            params = ctor()
            if not hashes:
                raise UsageError(f"{name}: the constructor did not load a vocab through load_tiktoken_bpe")
            encodings[name] = tiktoken.Encoding(**params)
    finally:
        openai_public.load_tiktoken_bpe = saved
        tiktoken.load.read_file = real_read_file
    return encodings, hashes


def count_all(cases: list[Case], encodings: dict[str, Any]) -> dict[str, dict[str, int]]:
    return {
        c.name: {name: len(enc.encode_ordinary(c.full_text)) for name, enc in encodings.items()}
        for c in cases
    }


def tiktoken_version() -> str:
    import tiktoken

    return tiktoken.__version__


# --------------------------------------------------------------------------
# Golden file I/O
# --------------------------------------------------------------------------

_ESCAPE_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Mn", "Mc", "Me", "Zl", "Zp", "Zs"}


def _escape_char(ch: str) -> str:
    cp = ord(ch)
    if cp < 0x10000:
        return f"\\u{cp:04x}"
    cp -= 0x10000
    return f"\\u{0xD800 + (cp >> 10):04x}\\u{0xDC00 + (cp & 0x3FF):04x}"


def _needs_escape(ch: str) -> bool:
    return ch != " " and ord(ch) > 0x7E and unicodedata.category(ch) in _ESCAPE_CATEGORIES


def dump_golden(version: str, encodings: list[str], cases: list[Case], counts: dict[str, dict[str, int]]) -> str:
    out_cases = []
    for c in sorted(cases, key=lambda c: c.name):
        item: dict[str, Any] = {"name": c.name}
        if c.text is not None:
            item["text"] = c.text
        else:
            item["repeat"] = {"unit": c.unit, "times": c.times}
        item["counts"] = {e: counts[c.name][e] for e in encodings}
        out_cases.append(item)
    doc = {"tiktoken": version, "encodings": list(encodings), "cases": out_cases}
    text = json.dumps(doc, indent=2, ensure_ascii=False)
    # Only string contents can hold non-ASCII, so escaping is safe everywhere.
    text = "".join(_escape_char(ch) if _needs_escape(ch) else ch for ch in text)
    return text + "\n"


def load_golden(path: Path) -> tuple[dict[str, Any], list[Case], dict[str, dict[str, int]]]:
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e}") from e
    try:
        doc = json.loads(raw)
    except ValueError as e:
        raise UsageError(f"{path}: invalid JSON: {e}") from e

    def bad(msg: str) -> UsageError:
        return UsageError(f"{path}: {msg}")

    if not isinstance(doc, dict) or not isinstance(doc.get("cases"), list):
        raise bad("expected an object with a `cases` list")
    encs = doc.get("encodings")
    if not isinstance(encs, list) or not encs or not all(isinstance(e, str) for e in encs):
        raise bad("`encodings` must be a non-empty list of names")
    cases: list[Case] = []
    counts: dict[str, dict[str, int]] = {}
    for i, item in enumerate(doc["cases"]):
        where = f"cases[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise bad(f"{where}: needs a string `name`")
        name = item["name"]
        if name in counts:
            raise bad(f"{where}: duplicate case name {name!r}")
        if isinstance(item.get("text"), str) and "repeat" not in item:
            case = Case(name=name, text=item["text"])
        elif isinstance(item.get("repeat"), dict) and "text" not in item:
            r = item["repeat"]
            if not isinstance(r.get("unit"), str) or not isinstance(r.get("times"), int) or r["times"] < 0:
                raise bad(f"{where} ({name}): `repeat` needs a string `unit` and a non-negative integer `times`")
            case = Case(name=name, unit=r["unit"], times=r["times"])
        else:
            raise bad(f"{where} ({name}): needs exactly one of `text` (string) or `repeat`")
        c = item.get("counts")
        if not isinstance(c, dict) or not all(isinstance(v, int) and not isinstance(v, bool) for v in c.values()):
            raise bad(f"{where} ({name}): `counts` must map encoding names to integers")
        cases.append(case)
        counts[name] = c
    return doc, cases, counts


# --------------------------------------------------------------------------
# Example cases from `promptc render --format json`
# --------------------------------------------------------------------------


def run_example_renders() -> list[dict[str, Any]]:
    outputs = []
    for profile in EXAMPLE_PROFILES:
        for transport, provider in EXAMPLE_RUNS:
            cmd = ["cargo", "run", "-q", "--", "render", "--format", "json", "--profile", profile, "--transport", transport]
            if provider:
                cmd += ["--provider", provider]
            proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                raise UsageError(f"`{' '.join(cmd)}` failed ({proc.returncode}):\n{proc.stderr.strip()}")
            outputs.append(json.loads(proc.stdout))
    return outputs


def read_example_dir(folder: Path) -> list[dict[str, Any]]:
    files = sorted(folder.glob("*.json"))
    if not files:
        raise UsageError(f"no *.json files in {folder}")
    outputs = []
    for f in files:
        try:
            outputs.append(json.loads(f.read_text(encoding="utf-8")))
        except (OSError, ValueError) as e:
            raise UsageError(f"cannot read render output {f}: {e}") from e
    return outputs


def example_cases(outputs: list[dict[str, Any]]) -> list[Case]:
    def order(out: dict[str, Any]) -> tuple:
        m = out.get("metadata") or {}
        p, tr, pv = m.get("profile") or "", m.get("transport") or "", m.get("provider") or ""
        rank = lambda seq, v: seq.index(v) if v in seq else len(seq)  # noqa: E731
        return (rank(EXAMPLE_PROFILES, p), p, rank(("native", "xml"), tr), tr, rank(TOOL_PROVIDERS, pv), pv)

    by_name: dict[str, Case] = {}
    seen_texts: set[str] = set()

    def add(names: list[str], text: str) -> None:
        if text in seen_texts:
            return
        for name in names:
            if name not in by_name:
                by_name[name] = Case(name=name, text=text)
                seen_texts.add(text)
                return
        raise UsageError(f"example case name collision for {names[-1]!r} (duplicate render outputs?)")

    for out in sorted(outputs, key=order):
        m = out.get("metadata")
        if not isinstance(m, dict) or not isinstance(out.get("sections"), list) or not isinstance(out.get("prompt"), str):
            raise UsageError("a render output lacks metadata/sections/prompt (not `promptc render --format json`?)")
        profile, transport, provider = m.get("profile"), m.get("transport"), m.get("provider")
        short = f"{profile}.{transport}"
        full = f"{short}.{provider}" if provider else short
        for s in out["sections"]:
            add([f"example/{short}/section/{s['id']}", f"example/{full}/section/{s['id']}"], s["text"])
        add([f"example/{short}/prompt", f"example/{full}/prompt"], out["prompt"])
        if transport == "native" and provider in TOOL_PROVIDERS:
            for tool in out.get("tools") or []:
                tname = tool.get("name") or (tool.get("function") or {}).get("name") or "unnamed"
                add([f"example/{full}/tool/{tname}"], json.dumps(tool, separators=(",", ":"), ensure_ascii=False))
    return list(by_name.values())


# --------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------


def cmd_check(path: Path, assets: str | None, verbose: bool) -> int:
    doc, cases, golden = load_golden(path)
    encs = doc["encodings"]
    t0 = time.perf_counter()
    encodings, hashes = load_encodings(encs, find_assets(assets))
    t1 = time.perf_counter()
    actual = count_all(cases, encodings)
    t2 = time.perf_counter()
    if verbose:
        for f, h in sorted(hashes.items()):
            print(f"vocab {f} sha256 {h}")
        print(f"load {t1 - t0:.2f}s, count {t2 - t1:.2f}s")
    version = tiktoken_version()
    if doc.get("tiktoken") != version:
        print(f"token golden: note: file was written with tiktoken {doc.get('tiktoken')}, this is {version}")
    mismatches = 0
    for c in cases:
        for e in encs:
            want = golden[c.name].get(e)
            got = actual[c.name][e]
            if want != got:
                mismatches += 1
                print(f"MISMATCH {c.name} [{e}]: golden {want}, actual {got}")
    n = f"{len(cases)} cases x {len(encs)} encodings"
    if mismatches:
        print(f"token golden: {n}, {mismatches} mismatch(es)")
        return 1
    print(f"token golden: {n}, all equal")
    return 0


def cmd_write(path: Path, example_dir: str | None, assets: str | None, prune: bool) -> int:
    outputs = read_example_dir(Path(example_dir)) if example_dir else run_example_renders()
    generated = EDGE_CASES + example_cases(outputs)
    names = [c.name for c in generated]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise UsageError(f"duplicate case names: {dupes}")

    existing: list[Case] = []
    if path.exists():
        _, existing, _ = load_golden(path)
    gen_by_name = {c.name: c for c in generated}
    old_by_name = {c.name: c for c in existing}
    added = [n for n in gen_by_name if n not in old_by_name]
    changed = [n for n in gen_by_name if n in old_by_name and not old_by_name[n].same_input(gen_by_name[n])]
    stale = [n for n in old_by_name if n not in gen_by_name]
    merged = dict(gen_by_name)
    if not prune:
        for n in stale:
            merged[n] = old_by_name[n]

    encodings, _ = load_encodings(list(ENCODINGS), find_assets(assets))
    cases = list(merged.values())
    counts = count_all(cases, encodings)
    text = dump_golden(tiktoken_version(), list(ENCODINGS), cases, counts)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    os.replace(tmp, path)
    for n in added:
        print(f"added   {n}")
    for n in changed:
        print(f"changed {n}")
    for n in stale:
        print(f"{'removed' if prune else 'kept   '} {n} (no longer generated)")
    print(f"token golden: wrote {path} ({len(cases)} cases x {len(ENCODINGS)} encodings, {len(text.encode())} bytes)")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", metavar="FILE", help="recount every case and compare with FILE")
    mode.add_argument("--write", metavar="FILE", help="(re)generate FILE")
    ap.add_argument("--example-json", metavar="DIR", help="with --write: folder of `promptc render --format json` outputs")
    ap.add_argument("--prune", action="store_true", help="with --write: drop cases that are no longer generated")
    ap.add_argument("--assets", metavar="DIR", help=f"folder with the *.tiktoken vocab files (default: ${ASSETS_ENV}, else tiktoken-rs's assets/)")
    ap.add_argument("-v", "--verbose", action="store_true", help="with --check: print vocab hashes and timings")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    try:
        if args.check:
            if args.example_json or args.prune:
                raise UsageError("--example-json and --prune go with --write")
            return cmd_check(Path(args.check), args.assets, args.verbose)
        return cmd_write(Path(args.write), args.example_json, args.assets, args.prune)
    except UsageError as e:
        print(f"token-golden: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

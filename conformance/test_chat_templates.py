"""`promptc render --transport chat` gives exactly what transformers' `apply_chat_template` gives,
and `promptc report --transport chat --tokenizer-file` counts what Python `tokenizers` counts.

Every real chat template under fixtures/chat-templates/ (see SOURCES.json there) renders every
cell of the shipped example — each profile, with every capability switch off and on, with no
harness message and with a user turn (a copy of the example with a `messages:` entry) — and of
fixtures/good/minimal (whose tools have no optional parameter, so no nullable type: templates
that fail on those in Python too, as vLLM's hermes template does, render there) through both. The conversation and tools transformers is given are the ones promptc says it gives:
`render --format json` of the same native cell (`prompt` without its final newline as the
system message, then the harness messages; `tools` as projected for OpenAI, or None when the
cell has none). Both must give the same bytes, or both must fail (a template that raises,
as Llama 3.1 does for tools with no user turn, raises in both).

The binary is $PROMPTC_BIN, else target/debug/promptc; the test is skipped when neither exists.
"""

import hashlib
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

import yaml

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import chat_reference  # noqa: E402


REPO = pathlib.Path(__file__).resolve().parent.parent
TEMPLATES = REPO / "fixtures" / "chat-templates"
DATE = "2024-07-26"
NONCE = "c0ffee"


import promptc_binary  # noqa: E402

BIN = promptc_binary.BIN

# Templates whose text differs from the server's by a Jinja2 behaviour minijinja lacks: promptc
# must say so (a located warning naming it) and the texts must really differ.
KNOWN_DIFFERENCES = {
    # `tools | map(attribute='function') | tojson`: a generator, which json.dumps refuses.
    "llama-cpp-deepseek-r1.jinja": "a filtered sequence given to `tojson`",
}

# The cells: each profile with no switch set and with every capability on.
SWITCHES = [[], ["browser", "mcp", "web", "subagents"]]


def templates():
    return sorted(TEMPLATES.glob("*.jinja"))


def with_user_turn(dest):
    """A copy of the example whose profiles end with a user turn."""
    shutil.copytree(REPO / "profiles", dest)
    manifest = dest / "promptc.yaml"
    doc = yaml.safe_load(manifest.read_text())
    (dest / "sections" / "chat_user_turn.md").write_text("Fix the failing test in `src/lib.rs`, then run it.\n")
    doc["sections"]["chat_user_turn"] = {"template": "sections/chat_user_turn.md"}
    for profile in doc["profiles"].values():
        profile["messages"] = [{"role": "user", "sections": ["chat_user_turn"]}]
    doc.pop("snapshots", None)
    manifest.write_text(yaml.safe_dump(doc, sort_keys=False))
    return dest


@unittest.skipIf(BIN is None, "no promptc binary: build it (cargo build) or set PROMPTC_BIN")
class ChatTemplateConformance(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory(prefix="promptc-chat-")
        cls.tmp = pathlib.Path(cls._tmp.name)
        cls.projects = [REPO / "profiles", with_user_turn(cls.tmp / "user-turn"), REPO / "fixtures" / "good" / "minimal"]

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def promptc(self, project, *args):
        argv = [BIN, "-C", str(project), *args, "--nonce", NONCE]
        return subprocess.run(argv, capture_output=True, timeout=120)

    def cells(self, project):
        doc = yaml.safe_load((project / "promptc.yaml").read_text())
        declared = doc.get("switches") or {}
        for profile in doc["profiles"]:
            for switches in SWITCHES:
                yield profile, [a for s in switches if s in declared for a in ("--set", s)]

    def test_enough_real_templates(self):
        sources = json.loads((TEMPLATES / "SOURCES.json").read_text())
        names = {t.name for t in templates()}
        self.assertGreaterEqual(len(names), 10)
        self.assertEqual(names, {s["file"] for s in sources["templates"]}, "every template has its source recorded")
        for s in sources["templates"]:
            digest = hashlib.sha256((TEMPLATES / s["file"]).read_bytes()).hexdigest()
            self.assertEqual(digest, s["sha256"], f"{s['file']} is not the published bytes recorded")

    def test_every_template_renders_every_cell_as_transformers(self):
        same = failed_both = known = 0
        for project in self.projects:
            for profile, sets in self.cells(project):
                native = self.promptc(project, "render", "--profile", profile, *sets, "--provider", "openai", "--format", "json")
                self.assertEqual(native.returncode, 0, native.stderr.decode())
                doc = json.loads(native.stdout)
                messages = [{"role": "system", "content": doc["prompt"].removesuffix("\n")}]
                messages += doc.get("messages") or []
                tools = doc["tools"] or None
                for template in templates():
                    with self.subTest(project=project.name, profile=profile, sets=sets, template=template.name):
                        expected = chat_reference.render_request(
                            {"template": str(template), "messages": messages, "tools": tools, "variables": {}, "date": DATE}
                        )
                        out = self.promptc(
                            project, "render", "--profile", profile, *sets, "--transport", "chat",
                            "--chat-template", str(template), "--chat-template-date", DATE,
                        )
                        if template.name in KNOWN_DIFFERENCES:
                            self.assertIn(KNOWN_DIFFERENCES[template.name], out.stderr.decode())
                            self.assertNotEqual(out.stdout.decode(), expected.get("text"))
                            known += 1
                        elif "error" in expected:
                            self.assertEqual(out.returncode, 2, f"transformers failed ({expected['error']}); promptc did not")
                            raised = expected["error"].removeprefix("TemplateError: ")
                            if expected["error"].startswith("TemplateError: "):
                                self.assertIn(f"the chat template raised an error: {raised}", out.stderr.decode())
                            failed_both += 1
                        else:
                            self.assertEqual(out.returncode, 0, out.stderr.decode())
                            self.assertEqual(out.stdout.decode(), expected["text"])
                            same += 1
        print(
            f"\nchat templates: {same} cells byte-identical, {failed_both} failing in both, "
            f"{known} known differences (warned)",
            file=sys.stderr,
        )
        self.assertGreater(same, failed_both + known, "most cells must render: the comparison may be testing nothing")

    def test_report_renders_where_transformers_renders_with_and_without_tools(self):
        # `report --transport chat` renders each cell a second time with `tools=None`, for the
        # tools' share: a template that checks `tools is iterable` before `tools | length`
        # (Qwen3-Coder, vLLM's hermes and granite-20b-fc) must take None as Jinja2 does.
        checked = 0
        for project in (self.projects[0], self.projects[2]):
            for profile, sets in self.cells(project):
                if sets:
                    continue
                native = self.promptc(project, "render", "--profile", profile, "--provider", "openai", "--format", "json")
                doc = json.loads(native.stdout)
                messages = [{"role": "system", "content": doc["prompt"].removesuffix("\n")}]
                messages += doc.get("messages") or []
                for template in templates():
                    request = {"template": str(template), "messages": messages, "variables": {}, "date": DATE}
                    if template.name in KNOWN_DIFFERENCES or any(
                        "error" in chat_reference.render_request({**request, "tools": tools})
                        for tools in (doc["tools"] or None, None)
                    ):
                        continue
                    with self.subTest(project=project.name, profile=profile, template=template.name):
                        out = self.promptc(
                            project, "report", "--profile", profile, "--transport", "chat", "--chat-template",
                            str(template), "--chat-template-date", DATE, "--no-cache",
                        )
                        self.assertEqual(out.returncode, 0, out.stderr.decode())
                        checked += 1
        self.assertGreaterEqual(checked, 40)


if __name__ == "__main__":
    unittest.main()


# Llama 3's and Qwen 2.5's pre-tokenizer pattern (a look-ahead, case-insensitive groups and
# Unicode classes: what the Rust crate's pure-Rust regex engine must split as Python's does).
SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def train_tokenizer(path, texts, specials):
    """A byte-level BPE tokenizer trained on `texts`, with the chat template's special tokens."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(SPLIT), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=4000, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(texts, trainer=trainer)
    tok.save(str(path))
    return tok


@unittest.skipIf(BIN is None, "no promptc binary: build it (cargo build) or set PROMPTC_BIN")
class ChatTokenCounts(unittest.TestCase):
    def test_counts_equal_python_tokenizers(self):
        with tempfile.TemporaryDirectory(prefix="promptc-chat-tok-") as tmp:
            tmp = pathlib.Path(tmp)
            project = REPO / "profiles"
            template = TEMPLATES / "Qwen-Qwen2.5-7B-Instruct.jinja"
            corpus = [p.read_text() for p in sorted((project / "sections").glob("*"))]
            tok = train_tokenizer(tmp / "tokenizer.json", corpus, ["<|im_start|>", "<|im_end|>", "<|endoftext|>"])
            checked = 0
            for profile in ("standard", "lite"):
                args = ["-C", str(project), "--profile", profile, "--nonce", NONCE]
                chat = ["--transport", "chat", "--chat-template", str(template), "--chat-template-date", DATE]
                text = subprocess.run([BIN, "render", *args, *chat], capture_output=True, check=True).stdout.decode()
                out = subprocess.run(
                    [BIN, "report", *args, *chat, "--tokenizer-file", str(tmp / "tokenizer.json"), "--format", "json",
                     "--no-cache"],
                    capture_output=True,
                )
                self.assertEqual(out.returncode, 0, out.stderr.decode())
                doc = json.loads(out.stdout)
                self.assertTrue(doc["tokenizer"]["model_own"])
                self.assertEqual(doc["total"]["tokens"], len(tok.encode(text, add_special_tokens=False).ids))
                self.assertEqual(doc["total"]["bytes"], len(text.encode()))
                self.assertEqual(sum(r["tokens"] for r in doc["rows"]), doc["total"]["tokens"])
                # Each section's row: the tokens of the whole text that start in its range, as
                # Python's tokenizer places them (its offsets are characters; the rows', bytes).
                encoding = tok.encode(text, add_special_tokens=False)
                raw = text.encode()
                for row in doc["rows"]:
                    if row["kind"] == "section" and "offset" in row:
                        start = len(raw[: row["offset"]].decode())
                        end = len(raw[: row["offset"] + row["bytes"]].decode())
                        self.assertEqual(row["tokens"], sum(1 for s, _ in encoding.offsets if start <= s < end), row)
                        checked += 1
                self.assertIn("tools", [r["kind"] for r in doc["rows"]])
            print(f"\nchat token counts: 2 cells, totals equal, {checked} section counts equal", file=sys.stderr)


@unittest.skipIf(BIN is None, "no promptc binary: build it (cargo build) or set PROMPTC_BIN")
class ProjectChatCells(unittest.TestCase):
    """A project's `chat_templates:` cells in its snapshot folder are transformers' text too."""

    def test_snapshot_chat_files_are_transformers_text(self):
        project = REPO / "fixtures" / "good" / "chat-templates"
        doc = yaml.safe_load((project / "promptc.yaml").read_text())
        summary = json.loads((project / "snapshots" / "summary.json").read_text())
        cases = doc.get("cases", {})
        checked = 0
        for cell in summary["cells"]:
            for name, fp in cell.get("chat", {}).items():
                entry = doc["chat_templates"][name]
                sets = []
                for switch, on in cases.get(cell["case"], {}).get("switches", {}).items() if cell["case"] else []:
                    sets += ["--set", f"{switch}={'true' if on else 'false'}"]
                native = subprocess.run(
                    [BIN, "-C", str(project), "render", "--profile", cell["profile"], *sets, "--provider", "openai",
                     "--format", "json", "--nonce", "0000"],
                    capture_output=True, check=True,
                )
                rendered = json.loads(native.stdout)
                messages = [{"role": "system", "content": rendered["prompt"].removesuffix("\n")}]
                messages += rendered.get("messages") or []
                expected = chat_reference.render_request(
                    {
                        "template": str(project / entry["file"]),
                        "name": entry.get("name"),
                        "messages": messages,
                        "tools": rendered["tools"] or None,
                        "variables": entry.get("variables", {}),
                        "date": entry.get("date", DATE),
                    }
                )
                snap = (project / "snapshots" / fp["name"]).read_text()
                self.assertNotIn("error", expected, expected.get("error"))
                self.assertEqual(snap, expected["text"], fp["name"])
                checked += 1
        self.assertGreaterEqual(checked, 6)

    def test_reports_count_with_the_entrys_tokenizer(self):
        from tokenizers import Tokenizer

        project = REPO / "fixtures" / "good" / "chat-templates"
        tok = Tokenizer.from_file(str(project / "chat" / "tokenizer.json"))
        for profile in ("standard", "bare"):
            out = subprocess.run(
                [BIN, "-C", str(project), "report", "--transport", "chat", "--model", "qwen2.5-7b", "--profile", profile,
                 "--format", "json", "--no-cache"],
                capture_output=True, check=True,
            )
            doc = json.loads(out.stdout)
            self.assertTrue(doc["tokenizer"]["model_own"])
            text = (project / "snapshots" / f"{profile}.native.chat-qwen.txt").read_text()
            self.assertEqual(doc["total"]["tokens"], len(tok.encode(text, add_special_tokens=False).ids))

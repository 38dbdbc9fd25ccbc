"""promptc's Gemini figures are google-genai's own count of the same request.

Every Gemini cell of the example and of the fixtures (`report --matrix --format json`, `snapshot`
for the texts of the same cells): its billed prompt, tools and total equal what google-genai's
`LocalTokenizer.count_tokens` counts for the request — the system instruction the cell's prompt,
the tools its function declarations, the contents its harness messages (each block a part) — and
the report says the count is exact.

Offline: the SDK loads the Gemma 3 model from its cache (`<tempdir>/vertexai_tokenizer_model/`,
the file named by the SHA-1 of its URL, believed when its SHA-256 is the one the SDK expects).
The test places crates/promptc/models/gemma3_cleaned_262144_v2.spiece.model there, in a temporary folder of its
own, and makes any download fail.
"""

from __future__ import annotations

import hashlib
import json
import logging
import pathlib
import subprocess
import tempfile
import unittest
import warnings

from promptc_binary import BIN, REPO

MODEL = REPO / "crates" / "promptc" / "models" / "gemma3_cleaned_262144_v2.spiece.model"


def projects():
    """The example and every fixture project that reports Gemini cells."""
    found = [REPO / "profiles"]
    for group in ("good", "check"):
        found += sorted(p.parent for p in (REPO / "fixtures" / group).glob("*/promptc.yaml"))
    return found


def local_tokenizer(cache_root: pathlib.Path):
    """google-genai's LocalTokenizer for Gemini, its model placed in its cache under `cache_root`."""
    from google.genai import _local_tokenizer_loader as loader
    from google.genai import local_tokenizer

    config = loader._TOKENIZERS["gemma3"]
    data = MODEL.read_bytes()
    assert hashlib.sha256(data).hexdigest() == config.model_hash, "models/ holds the model the SDK expects"
    tempfile.tempdir = str(cache_root)
    cache = cache_root / "vertexai_tokenizer_model"
    cache.mkdir(parents=True, exist_ok=True)
    (cache / hashlib.sha1(config.model_url.encode()).hexdigest()).write_bytes(data)

    def offline(url):
        raise AssertionError(f"the SDK tried to download {url}")

    loader._load_file = offline
    return local_tokenizer.LocalTokenizer(model_name="gemini-2.5-pro")


def contents_of(messages):
    """The harness messages as Gemini contents: a message of one text is one part, of blocks a
    part per block (as promptc's Gemini projection sends them)."""
    from google.genai import types

    out = []
    for m in messages:
        content = m["content"]
        texts = [content] if isinstance(content, str) else [b["text"] for b in content]
        role = "model" if m["role"] == "assistant" else "user"
        out.append(types.Content(role=role, parts=[types.Part(text=t) for t in texts]))
    return out


@unittest.skipIf(BIN is None, "no promptc binary: build it (cargo build) or set PROMPTC_BIN")
class GeminiCountsAreGoogleGenaisCounts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory(prefix="promptc-gemini-")
        cls.tmp = pathlib.Path(cls._tmp.name)
        cls._saved_tempdir = tempfile.tempdir
        logging.getLogger("google_genai.local_tokenizer").setLevel(logging.ERROR)
        cls.tokenizer = local_tokenizer(cls.tmp / "cache")

    @classmethod
    def tearDownClass(cls):
        tempfile.tempdir = cls._saved_tempdir
        cls._tmp.cleanup()

    def count(self, contents, **config):
        """LocalTokenizer's count; the SDK wants some contents, so none is one empty part (no token)."""
        from google.genai import types

        contents = contents or [types.Content(role="user", parts=[types.Part(text="")])]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.tokenizer.count_tokens(contents, config=config or None).total_tokens

    def cells(self, project: pathlib.Path):
        """(account, folder of its snapshot files) of every Gemini cell of `project`."""
        out = self.tmp / "snapshots" / project.name
        argv = [BIN, "-C", str(project), "snapshot", "--dir", str(out)]
        done = subprocess.run(argv, capture_output=True, timeout=600)
        self.assertEqual(done.returncode, 0, done.stderr.decode())
        report = subprocess.run(
            [BIN, "-C", str(project), "report", "--matrix", "--format", "json", "--no-cache"],
            capture_output=True,
            timeout=600,
        )
        self.assertIn(report.returncode, (0, 1), report.stderr.decode())
        accounts = json.loads(report.stdout)["accounts"]
        return [(a, out) for a in accounts if a["provider"] == "gemini"]

    def imported_github_mcp_server(self) -> pathlib.Path:
        """Real tools nobody on the team wrote: the GitHub MCP server's 117 tool schemas from the
        import corpus (fixtures/import/corpus/SOURCES.json: repository, commit, licence), imported
        as a project whose cells go to Gemini."""
        corpus = REPO / "fixtures" / "import" / "corpus" / "github-mcp-server"
        tools = [json.loads(f.read_text(encoding="utf-8")) for f in sorted(corpus.glob("*.snap"))]
        listing = self.tmp / "github-mcp-server.json"
        listing.write_text(json.dumps({"tools": tools}), encoding="utf-8")
        project = self.tmp / "github-mcp-server"
        argv = [BIN, "import", "tools", str(listing), "--from", "mcp", "--providers", "gemini", "--skip-invalid"]
        done = subprocess.run(argv + ["--out", str(project)], capture_output=True, timeout=600)
        self.assertEqual(done.returncode, 0, done.stderr.decode())
        return project

    def test_every_gemini_cell_counts_as_google_genais_local_tokenizer(self):
        checked = []
        for project in projects() + [self.imported_github_mcp_server()]:
            for account, folder in self.cells(project):
                with self.subTest(project=project.name, cell=account["name"]):
                    checked.append(self.check(account, folder))
        print(f"\ngemini: {len(checked)} cells, prompt/tools/messages/total all equal google-genai's count")
        self.assertGreaterEqual(len(checked), 20, "the example's and the fixtures' Gemini cells")
        names = {c for c in checked}
        self.assertIn("profiles:standard.native.gemini", names)
        self.assertIn("message-blocks:standard.native.gemini", names)
        self.assertIn("native-faithful:standard.native.gemini", names)
        self.assertTrue(any(n.startswith("github-mcp-server:") for n in names), names)

    def check(self, account, folder: pathlib.Path) -> str:
        cell = account["cell"]
        prompt = (folder / f"{cell}.prompt.md").read_text(encoding="utf-8")
        tools = json.loads((folder / f"{cell}.gemini.tools.json").read_text(encoding="utf-8"))
        messages_file = folder / f"{cell}.messages.json"
        messages = json.loads(messages_file.read_text(encoding="utf-8")) if messages_file.exists() else []
        contents = contents_of(messages)
        billed = account["billed"]
        self.assertTrue(account["tokenizer"]["exact"], account["tokenizer"])
        self.assertEqual(account["tokenizer"]["name"], "gemma3")
        self.assertEqual(billed["prompt"], self.count([], system_instruction=prompt), "the system instruction")
        self.assertEqual(billed["tools"], self.count([], tools=tools), "the function declarations")
        messages_sent = sum(m["sent"]["tokens"] for m in account.get("messages", []))
        self.assertEqual(messages_sent, self.count(contents), "the harness messages")
        whole = self.count(contents, system_instruction=prompt, tools=tools)
        self.assertEqual(billed["total"], whole, "the whole request")
        self.assertEqual(account["prompt"]["tokens"], billed["prompt"], "the prompt as sent is the instruction")
        return f"{folder.name}:{account['name']}"


class GemmaGoldenIsSentencePieces(unittest.TestCase):
    def test_the_golden_counts_are_what_sentencepiece_gives_now(self):
        """tests/golden/gemma3.json (the Rust tokenizer's unit test reads it) is SentencePiece's."""
        import sys

        script = REPO / "scripts" / "gemma3-golden.py"
        done = subprocess.run(
            [sys.executable, str(script), "--check", str(REPO / "tests" / "golden" / "gemma3.json")],
            capture_output=True,
            timeout=300,
        )
        self.assertEqual(done.returncode, 0, done.stderr.decode())


if __name__ == "__main__":
    unittest.main()

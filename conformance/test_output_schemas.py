"""The JSON Schemas of promptc's output documents (schema/{render,report,diff,check,verify,error}
.schema.json) accept what the binary really prints: render for every transport × provider of the
example, reports of single cells and the matrix (the example and every good fixture), diff clean
and with drift, check over the example and every fixture folder, verify fresh and stale, and the
error document of every project or record that fails; and they reject documents that are off
(no `format`, an unknown top-level key, a bad enum value).

The binary is $PROMPTC_BIN, else target/debug/promptc; the test is skipped when neither exists.
Everything written goes to a temporary folder; reports run with --no-cache."""

import concurrent.futures
import copy
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

import jsonschema
import yaml

REPO = pathlib.Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "profiles"
FIXTURES = REPO / "fixtures"
KINDS = ("render", "report", "diff", "check", "verify", "error", "render-chat", "report-chat")
PROVIDERS = ("openai", "openai-responses", "anthropic", "gemini")
TRANSPORTS = ("native", "xml", "json")


def find_binary():
    candidates = [os.environ.get("PROMPTC_BIN"), str(REPO / "target" / "debug" / "promptc")]
    for c in candidates:
        if c and pathlib.Path(c).is_file() and os.access(c, os.X_OK):
            return str(pathlib.Path(c).resolve())
    return None


BIN = find_binary()


def load_schema(kind):
    return json.loads((REPO / "schema" / f"{kind}.schema.json").read_text())


def folders(parent):
    return sorted(p for p in parent.iterdir() if p.is_dir())


def copy_example(dest):
    """A copy of the example project and its snapshots, in a folder that looks like a repository
    root (so paths resolve as they do in the checkout)."""
    dest.mkdir(parents=True)
    (dest / ".git").mkdir()
    shutil.copytree(EXAMPLE, dest / "profiles", ignore=shutil.ignore_patterns(".promptc-cache"))
    shutil.copytree(REPO / "snapshots", dest / "snapshots")
    return dest / "profiles"


def refs(node):
    """Every `$ref` in a schema."""
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"]
        for v in node.values():
            yield from refs(v)
    elif isinstance(node, list):
        for v in node:
            yield from refs(v)


def edit_yaml(path, change):
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))


@unittest.skipIf(BIN is None, "no promptc binary: build it (cargo build) or set PROMPTC_BIN")
class OutputSchemaTest(unittest.TestCase):
    validated = {k: 0 for k in KINDS}
    started = 0.0

    @classmethod
    def setUpClass(cls):
        cls.started = time.monotonic()
        cls.schemas = {k: load_schema(k) for k in KINDS}
        cls.validators = {k: jsonschema.Draft202012Validator(s) for k, s in cls.schemas.items()}
        cls._tmp = tempfile.TemporaryDirectory(prefix="promptc-output-schemas-")
        cls.tmp = pathlib.Path(cls._tmp.name)
        cls.env = dict(os.environ, NO_COLOR="1")

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()
        total = sum(cls.validated.values())
        detail = ", ".join(f"{k} {n}" for k, n in cls.validated.items())
        print(
            f"\noutput schemas: {total} documents validated ({detail}) in {time.monotonic() - cls.started:.1f} s",
            file=sys.stderr,
        )

    # -- helpers ------------------------------------------------------------------------------

    @classmethod
    def invoke(cls, args, project=None):
        argv = [BIN] + (["-C", str(project)] if project else []) + [str(a) for a in args]
        return argv, subprocess.run(argv, cwd=REPO, env=cls.env, capture_output=True, timeout=60)

    def run_promptc(self, *args, project=None, codes=(0,), ran=None):
        """Run promptc (or take `ran`, what `invoke` returned), check its exit code is one of
        `codes`, and return (document, code)."""
        argv, out = ran or self.invoke(args, project)
        shown = " ".join(argv[1:])
        self.assertIn(
            out.returncode, codes, f"promptc {shown}: exit {out.returncode}\n{out.stderr.decode(errors='replace')}"
        )
        text = out.stdout.decode()
        try:
            doc = json.loads(text, object_pairs_hook=dict)
        except json.JSONDecodeError as e:
            self.fail(f"promptc {shown}: stdout is not JSON ({e}): {text[:300]!r}")
        self.assertIsInstance(doc, dict, shown)
        self.assertEqual(next(iter(doc), None), "format", f"promptc {shown}: `format` is not the first key")
        return doc, out.returncode

    def validate(self, kind, doc, what=""):
        errors = sorted(self.validators[kind].iter_errors(doc), key=lambda e: list(e.absolute_path))
        if errors:
            lines = [f"/{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}" for e in errors[:8]]
            self.fail(f"{what}: {len(errors)} violation(s) of {kind}.schema.json:\n  " + "\n  ".join(lines))
        type(self).validated[kind] += 1
        return doc

    def expect(self, kind, *args, project=None, codes=(0,)):
        """Run `promptc KIND ARGS…` (for `error`, `promptc ARGS…`) and validate its output
        against `kind`'s schema."""
        if kind != "error":
            args = (kind, *args)
        doc, code = self.run_promptc(*args, project=project, codes=codes)
        self.validate(kind, doc, " ".join(map(str, args)) + (f" (-C {project})" if project else ""))
        return doc, code

    def expect_error(self, *args, project=None, kinds=None):
        doc, _ = self.expect("error", *args, project=project, codes=(2,))
        if kinds:
            self.assertIn(doc["error"]["kind"], kinds, args)
        return doc

    def write(self, *args, project=None):
        """Run a command that writes files (freeze, render --out); it must succeed."""
        argv, out = self.invoke(args, project)
        self.assertEqual(out.returncode, 0, f"{' '.join(map(str, argv[1:]))}: {out.stderr.decode(errors='replace')}")

    def rejected(self, kind, doc):
        return not self.validators[kind].is_valid(doc)

    # -- the schemas themselves ---------------------------------------------------------------

    def test_schemas_are_valid_and_self_contained(self):
        for kind, schema in self.schemas.items():
            with self.subTest(kind=kind):
                jsonschema.Draft202012Validator.check_schema(schema)
                self.assertEqual(schema["$schema"], "https://json-schema.org/draft/2020-12/schema")
                self.assertEqual(schema["$id"], f"https://promptc.dev/schema/{kind}.schema.json")
                self.assertTrue(schema["title"] and schema["description"])
                self.assertEqual(schema["properties"]["format"], {**schema["properties"]["format"], "const": 1})
                self.assertIn("format", schema["required"])
                self.assertIs(schema["additionalProperties"], False)
                # Self-contained: every $ref points into the file's own $defs and resolves.
                for ref in refs(schema):
                    self.assertTrue(ref.startswith("#/$defs/"), ref)
                    self.assertIn(ref.removeprefix("#/$defs/"), schema["$defs"], ref)

    # -- render -------------------------------------------------------------------------------

    def test_render_every_transport_and_provider(self):
        enabled = yaml.safe_load((EXAMPLE / "promptc.yaml").read_text())["transports"]
        seen = set()
        for transport in TRANSPORTS:
            for provider in PROVIDERS + (None,):
                args = ["--format", "json", "--transport", transport]
                args += ["--provider", provider] if provider else []
                with self.subTest(transport=transport, provider=provider):
                    if transport not in enabled or (transport != "native" and provider):
                        # Not a cell of the example: a usage error, in JSON.
                        self.expect_error("render", *args, kinds={"usage"})
                        continue
                    doc, _ = self.expect("render", *args)
                    meta = doc["metadata"]
                    self.assertEqual(meta["transport"], transport)
                    if transport == "native":
                        self.assertEqual(meta["provider"], provider or meta["provider"])
                    seen.add((transport, meta["provider"]))
        self.assertEqual(len(seen), len(PROVIDERS) + len([t for t in enabled if t != "native"]))

        # The json transport, which the example does not enable: a copy that does.
        project = copy_example(self.tmp / "render-json")
        edit_yaml(project / "promptc.yaml", lambda d: d.update(transports=list(TRANSPORTS)))
        for profile in ("standard", "lite"):
            args = ["--format", "json", "--transport", "json", "--profile", profile]
            doc, _ = self.expect("render", *args, project=project)
            self.assertIsNone(doc["tools"])

        # Other requests: a profile, a sub-agent, switches, variables, a context file, a nonce.
        context = self.tmp / "context.yaml"
        context.write_text(
            "switches:\n  browser: true\nvariables:\n  cwd: /srv/app\nmodel: openai/gpt-4o\ncontext_window: 32000\n"
        )
        for extra in (
            ["--profile", "lite"],
            ["--profile", "lite", "--subagent", "researcher"],
            ["--profile", "lite", "--transport", "xml", "--subagent", "researcher"],
            ["--set", "browser", "--set", "mcp=true", "--var", "cwd=/tmp/x", "--provider", "anthropic"],
            ["--context", context, "--provider", "gemini"],
            ["--model", "openai/o1-mini", "--nonce", "abcd1234"],
        ):
            with self.subTest(extra=extra):
                doc, _ = self.expect("render", "--format", "json", *extra)
        self.assertIsNotNone(doc["metadata"]["cache"])

    def test_chat_cells(self):
        template = str(REPO / "fixtures" / "chat-templates" / "Qwen-Qwen2.5-7B-Instruct.jinja")
        chat_project = FIXTURES / "good" / "chat-templates"
        for command, kind in (("render", "render-chat"), ("report", "report-chat")):
            for args, project in (
                (["--chat-template", template, "--profile", "lite"], None),
                (["--transport", "chat", "--model", "llama-3.1-8b"], chat_project),
                (["--transport", "chat", "--profile", "bare"], chat_project),
            ):
                with self.subTest(command=command, args=args):
                    doc, _ = self.run_promptc(command, "--format", "json", *args, project=project, codes=(0,))
                    self.validate(kind, doc, f"{command} {' '.join(args)}")
                    self.assertEqual(doc["transport"], "chat")
        # A missing template is an error document.
        self.expect_error("render", "--transport", "chat", "--chat-template", "missing.jinja", "--format", "json")

    def test_render_good_fixtures(self):
        for project in folders(FIXTURES / "good"):
            manifest = yaml.safe_load((project / "promptc.yaml").read_text())
            for transport in manifest.get("transports", ["native", "xml"]):
                with self.subTest(project=project.name, transport=transport):
                    self.expect("render", "--format", "json", "--transport", transport, project=project)

    # -- report -------------------------------------------------------------------------------

    def test_report_cells_and_matrix(self):
        for extra in (
            [],
            *(["--provider", p] for p in PROVIDERS),
            ["--transport", "xml"],
            ["--profile", "lite", "--set", "browser"],
            ["--profile", "lite", "--subagent", "researcher"],
            ["--tokenizer", "cl100k_base", "--params", "--sort", "tokens", "--top", "3"],
            ["--tokenizer", "claude"],
        ):
            with self.subTest(extra=extra):
                doc, _ = self.expect("report", "--format", "json", "--no-cache", *extra, codes=(0, 1))
                self.assertEqual(len(doc["accounts"]), 1)
        doc, _ = self.expect("report", "--format", "json", "--no-cache", "--matrix", codes=(0, 1))
        accounts = doc["accounts"]
        self.assertGreater(len(accounts), 10)
        self.assertTrue(any(a["case"] for a in accounts) and any(a["subagent"] for a in accounts))
        self.assertEqual({a["transport"] for a in accounts}, {"native", "xml"})

    def test_report_good_fixtures(self):
        for project in folders(FIXTURES / "good"):
            for extra in ([], ["--matrix"]):
                with self.subTest(project=project.name, extra=extra):
                    self.expect("report", "--format", "json", "--no-cache", *extra, project=project, codes=(0, 1))

    # -- diff ---------------------------------------------------------------------------------

    def test_diff_clean_and_with_drift(self):
        doc, _ = self.expect("diff", "--format", "json", codes=(0,))
        self.assertFalse(doc["drift"])

        # Drift of every kind in a copy: an edited section (modified), a case dropped from the
        # matrix (its files removed), a snapshot file deleted (added back).
        project = copy_example(self.tmp / "drift")
        role = project / "sections" / "role.md.j2"
        role.write_text("An edited first line.\n" + role.read_text())
        doc, _ = self.expect("diff", "--format", "json", project=project, codes=(1,))
        self.assertTrue(doc["drift"])
        self.assertEqual({f["status"] for f in doc["files"]}, {"modified"})
        self.assertTrue(doc["deltas"])

        edit_yaml(project / "promptc.yaml", lambda d: d["cases"].pop(next(iter(d["cases"]))))
        snapshots = project.parent / "snapshots"
        victim = sorted(snapshots.glob("standard.native.*.tools.json"))[0]
        victim.unlink()
        doc, _ = self.expect("diff", "--format", "json", project=project, codes=(1,))
        self.assertEqual({f["status"] for f in doc["files"]}, {"modified", "added", "removed"})
        self.assertTrue(any(d["before"] is None or d["after"] is None for d in doc["deltas"]))

        # Two folders: artifact folders of `render --out` (byte-only deltas), and two snapshot
        # folders.
        a, b = self.tmp / "artifact-a", self.tmp / "artifact-b"
        self.write("render", "--out", a)
        self.write("render", "--profile", "lite", "--out", b)
        doc, _ = self.expect("diff", a, b, "--format", "json", codes=(1,))
        self.assertTrue(any(d["after"] and d["after"]["tokens"] is None for d in doc["deltas"]))
        self.expect("diff", a, a, "--format", "json", codes=(0,))
        self.expect("diff", REPO / "snapshots", snapshots, "--format", "json", codes=(1,))
        # No snapshot folder yet: drift, every file added.
        doc, _ = self.expect("diff", "--format", "json", "--dir", self.tmp / "no-snapshots", codes=(1,))
        self.assertEqual({f["status"] for f in doc["files"]}, {"added"})

    # -- check --------------------------------------------------------------------------------

    def test_check_example_and_fixtures(self):
        doc, _ = self.expect("check", "--format", "json", codes=(0,))
        self.assertTrue(doc["cache_prefixes"])
        loaded = failed = 0
        projects = folders(FIXTURES / "good") + folders(FIXTURES / "bad") + folders(FIXTURES / "check")
        # Two at a time: a few fixtures (template fuel, tokenizer set-up) take a while each.
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            runs = list(pool.map(lambda p: self.invoke(["check", "--format", "json"], p), projects))
        for project, ran in zip(projects, runs):
            with self.subTest(project=str(project.relative_to(REPO))):
                doc, code = self.run_promptc(codes=(0, 1, 2), ran=ran)
                if code == 2:
                    failed += 1
                    self.validate("error", doc, f"check -C {project}")
                else:
                    loaded += 1
                    self.validate("check", doc, f"check -C {project}")
                    self.assertEqual(doc["errors"], sum(d["severity"] == "error" for d in doc["diagnostics"]))
                    self.assertEqual(doc["warnings"], sum(d["severity"] == "warning" for d in doc["diagnostics"]))
                    self.assertEqual(code == 1, doc["errors"] > 0)
        self.assertGreater(loaded, 20)
        self.assertGreater(failed, 50)
        # Levels from the command line.
        levels = ["-D", "P007", "-W", "P008", "-A", "P006"]
        self.expect("check", "--format", "json", *levels, project=FIXTURES / "good" / "coding-agent", codes=(0, 1))

    # -- verify -------------------------------------------------------------------------------

    def test_verify_fresh_and_stale(self):
        record = self.tmp / "fresh.json"
        self.write("freeze", "--profile", "lite", "--out", record)
        doc, _ = self.expect("verify", record, "--format", "json", codes=(0,))
        self.assertEqual((doc["fresh"], doc["reasons"]), (True, []))

        # Fresh with a note: the record says another promptc wrote it.
        noted = self.tmp / "noted.json"
        rec = json.loads(record.read_text())
        rec["metadata"]["promptc_version"] = "0.0.0"
        noted.write_text(json.dumps(rec))
        doc, _ = self.expect("verify", noted, "--format", "json", codes=(0,))
        self.assertEqual([n["kind"] for n in doc["notes"]], ["promptc_version"])

        # Stale: frozen from a copy, then the copy changes its contract version, a switch
        # default, a section and the tools.
        project = copy_example(self.tmp / "stale")
        stale = self.tmp / "stale.json"
        self.write("freeze", "--profile", "lite", "--out", stale, project=project)
        self.expect("verify", stale, "--format", "json", project=project, codes=(0,))

        def bump(d):
            d["contract_version"] += 1
            first = next(iter(d["switches"].values()))
            first["default"] = not first.get("default", False)

        edit_yaml(project / "promptc.yaml", bump)
        role = project / "sections" / "role.md.j2"
        role.write_text("An edited first line.\n" + role.read_text())

        def describe_again(tools):
            for t in tools:
                t["description"] = t["description"] + " Edited."
                for o in (t.get("overrides") or {}).values():
                    if "description" in o:
                        o["description"] += " Edited."

        for tools_file in (project / "tools").glob("*.yaml"):
            edit_yaml(tools_file, describe_again)
        doc, _ = self.expect("verify", stale, "--format", "json", project=project, codes=(1,))
        self.assertFalse(doc["fresh"])
        kinds = {r["kind"] for r in doc["reasons"]}
        self.assertTrue({"contract_version", "input_file", "switch", "section", "tool"} <= kinds, kinds)
        self.assertIn({"kind": "tool", "name": "read_file", "change": "changed"}, doc["reasons"])

    # -- errors -------------------------------------------------------------------------------

    def test_error_documents(self):
        malformed = FIXTURES / "bad" / "malformed-yaml"
        for args in (
            ["render", "--format", "json"],
            ["report", "--format", "json", "--no-cache"],
            ["diff", "--format", "json"],
            ["check", "--format", "json"],
            ["verify", FIXTURES / "bad" / "frozen-not-json.json", "--format", "json"],
        ):
            with self.subTest(args=args):
                self.expect_error(*args, project=malformed, kinds={"project"})
        for record in sorted((FIXTURES / "bad").glob("frozen-*.json")) + [self.tmp / "no-such-record.json"]:
            with self.subTest(record=record.name):
                self.expect_error("verify", record, "--format", "json", kinds={"record", "io"})
        for context in sorted((FIXTURES / "bad").glob("context-*.yaml")):
            with self.subTest(context=context.name):
                self.expect_error("render", "--format", "json", "--context", context)
        for args in (
            ["render", "--format", "json", "--profile", "no-such-profile"],
            ["report", "--format", "json", "--no-cache", "--tokenizer", "o200k"],
            ["render", "--format", "json", "--set", "no_such_switch"],
        ):
            with self.subTest(args=args):
                self.expect_error(*args)

    # -- what the schemas reject --------------------------------------------------------------

    def test_bad_documents_are_rejected(self):
        lint_failing, malformed = FIXTURES / "check" / "p001-fail", FIXTURES / "bad" / "malformed-yaml"
        samples = {
            "render": self.run_promptc("render", "--format", "json", "--provider", "anthropic")[0],
            "report": self.run_promptc("report", "--format", "json", "--no-cache")[0],
            "diff": self.run_promptc("diff", "--format", "json")[0],
            "check": self.run_promptc("check", "--format", "json", project=lint_failing, codes=(1,))[0],
            "error": self.run_promptc("check", "--format", "json", project=malformed, codes=(2,))[0],
        }
        record = self.tmp / "reject.json"
        self.write("freeze", "--profile", "lite", "--out", record)
        samples["verify"] = self.run_promptc("verify", record, "--format", "json")[0]

        for kind, doc in samples.items():
            with self.subTest(kind=kind):
                self.validate(kind, doc, kind)
                no_format = copy.deepcopy(doc)
                del no_format["format"]
                self.assertTrue(self.rejected(kind, no_format), f"{kind} without format")
                self.assertTrue(self.rejected(kind, {**doc, "format": 2}), f"{kind} with format 2")
                self.assertTrue(self.rejected(kind, {**doc, "extra": True}), f"{kind} with an unknown key")
                # Each document's own schema only: a render document is no report.
                for other in KINDS:
                    if other != kind:
                        self.assertTrue(self.rejected(other, doc), f"{kind} document accepted as {other}")

        def mutated(kind, change):
            doc = copy.deepcopy(samples[kind])
            change(doc)
            return self.rejected(kind, doc)

        changed = {"file": "x", "status": "modified", "diff": "", "added_lines": 0, "removed_lines": 0}
        bad = {
            "render transport `smoke`": ("render", lambda d: d["metadata"].update(transport="smoke")),
            "render provider `openai-chat`": ("render", lambda d: d["metadata"].update(provider="openai-chat")),
            "render native without provider": ("render", lambda d: d["metadata"].update(provider=None)),
            "render unknown metadata key": ("render", lambda d: d["metadata"].update(colour="red")),
            "render section without text": ("render", lambda d: d["sections"][0].pop("text")),
            "render bad sha256": ("render", lambda d: d["metadata"].update(prompt_sha256="abc")),
            "report transport `smoke`": ("report", lambda d: d["accounts"][0].update(transport="smoke")),
            "report tokens as string": ("report", lambda d: d["accounts"][0]["prompt"].update(tokens="12")),
            "report budget scope `all`": ("report", lambda d: d["accounts"][0]["budgets"][0].update(scope="all")),
            "diff drift without files": ("diff", lambda d: d.update(drift=True)),
            "diff status `changed`": ("diff", lambda d: d.update(drift=True, files=[{**changed, "status": "changed"}])),
            "diff modified without a diff": ("diff", lambda d: d.update(drift=True, files=[changed])),
            "check severity `fatal`": ("check", lambda d: d["diagnostics"][0].update(severity="fatal")),
            "check line without column": ("check", lambda d: d["diagnostics"][0].update(column=None)),
            "check diagnostic without help": ("check", lambda d: d["diagnostics"][0].pop("help")),
            "error kind `fatal`": ("error", lambda d: d["error"].update(kind="fatal")),
            "error without diagnostics": ("error", lambda d: d["error"].update(diagnostics=[])),
            "verify fresh with reasons": ("verify", lambda d: d["reasons"].append({"kind": "tools"})),
            "verify unknown finding": ("verify", lambda d: d.update(fresh=False, reasons=[{"kind": "mood"}])),
        }
        for what, (kind, change) in bad.items():
            with self.subTest(what=what):
                self.assertTrue(mutated(kind, change), what)


if __name__ == "__main__":
    unittest.main()

"""`templates: {compat: jinja2}` renders templates exactly as Python's Jinja2 does.

Every `NAME.j2` at the top of fixtures/jinja2-corpus/ (includes, imports, macros, loops,
whitespace control, filters, Python-style methods; the shared files are under parts/) is
rendered twice with its context `NAME.json`:

- by Jinja2 3.1.6 with its default Environment (trim_blocks, lstrip_blocks and
  keep_trailing_newline all off, its default lenient Undefined, no autoescape) and the
  loopcontrols extension (`{% break %}`, `{% continue %}`, which minijinja always has);
- by the promptc binary, through a real project holding one section and one profile per
  template, with `templates: {compat: jinja2}`, `assembly: {trim: false, final_newline: false}`
  and the context passed as a context file.

In compat mode the two are compared byte for byte with no normalisation at all: every blank
line, indentation, leading and final newline is compared as rendered. (Jinja2 renders with its
default, lenient `Undefined`; a snippet that reads a name the project does not declare proves
it prints as nothing.)

The default-mode project keeps promptc's documented assembly (CRLF to LF, leading and trailing
blank lines dropped, one final newline), so there Jinja2's text is put through the same
function first.

The test has teeth: rendered with promptc's default whitespace (trim_blocks and lstrip_blocks
on), several templates must differ from Jinja2.

The binary is $PROMPTC_BIN, else target/debug/promptc; the test is skipped when neither exists.
"""

import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

import jinja2

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import promptc_binary  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parent.parent
CORPUS = REPO / "fixtures" / "jinja2-corpus"
DIFFERS = CORPUS / "differs"


BIN = promptc_binary.BIN


def normalize(text):
    """promptc's `render::normalize` plus the prompt's final newline."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").rstrip()
    first = next((i for i, c in enumerate(text) if c not in "\n \t"), len(text))
    start = text.rfind("\n", 0, first) + 1
    text = text[start:]
    return text + "\n" if text else ""


def cases():
    return sorted(p.stem for p in CORPUS.glob("*.j2"))


# The snippets written before compat mode had Jinja2's semantics (01–26): promptc's default mode
# (strict undefined, minijinja's printing) renders them as Jinja2 with trim_blocks and lstrip_blocks.
STRICT_SAFE = [n for n in cases() if n[:2].isdigit() and int(n[:2]) <= 26]


def context(name):
    return json.loads((CORPUS / f"{name}.json").read_text())


def ident(name):
    return "t" + "".join(c if c.isalnum() else "_" for c in name).lower()


def differs():
    return json.loads((DIFFERS / "index.json").read_text())


def jinja2_render(name, strict=False, **settings):
    undefined = jinja2.StrictUndefined if strict else jinja2.Undefined
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(CORPUS)),
        undefined=undefined,
        autoescape=False,
        extensions=["jinja2.ext.loopcontrols"],
        **settings,
    )
    return env.get_template(f"{name}.j2").render(**context(name))


def jinja2_render_differing(name):
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(CORPUS)), autoescape=False)
    ctx = json.loads((DIFFERS / f"{name}.json").read_text())
    return env.get_template(f"differs/{name}.j2").render(**ctx)


def write_single(dest, name):
    """A compat project of one section: the differing snippet `name`, its values as defaults."""
    shutil.copytree(CORPUS / "parts", dest / "parts")
    shutil.copy(DIFFERS / f"{name}.j2", dest / "t.j2")
    ctx = json.loads((DIFFERS / f"{name}.json").read_text())
    manifest = {
        "promptc": 1,
        "name": "differs",
        "contract_version": 1,
        "templates": {"compat": "jinja2"},
        "assembly": {"trim": False, "final_newline": False},
        "variables": {k: {"description": "corpus value", "default": v} for k, v in ctx.items()},
        "sections": {"t": {"template": "t.j2"}},
        "tools": [],
        "profiles": {"p": {"sections": ["t"]}},
    }
    (dest / "promptc.yaml").write_text(json.dumps(manifest, indent=1))


def write_project(dest, compat):
    shutil.copytree(CORPUS, dest)
    names = cases() if compat else STRICT_SAFE
    variables = {}
    for n in names:
        for k in context(n):
            variables.setdefault(k, {"description": "corpus value", "default": ""})
    manifest = {
        "promptc": 1,
        "name": "jinja2-corpus",
        "contract_version": 1,
        "variables": variables,
        "sections": {ident(n): {"template": f"{n}.j2"} for n in names},
        "tools": [],
        "profiles": {ident(n).replace("_", "-"): {"sections": [ident(n)]} for n in names},
    }
    if compat:
        manifest["templates"] = {"compat": "jinja2"}
        manifest["assembly"] = {"trim": False, "final_newline": False}
    # JSON is YAML.
    (dest / "promptc.yaml").write_text(json.dumps(manifest, indent=1))


@unittest.skipIf(BIN is None, "no promptc binary: build it (cargo build) or set PROMPTC_BIN")
class Jinja2CorpusTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory(prefix="promptc-jinja2-corpus-")
        cls.tmp = pathlib.Path(cls._tmp.name)
        write_project(cls.tmp / "compat", compat=True)
        write_project(cls.tmp / "default", compat=False)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def promptc(self, project, name):
        ctx = self.tmp / f"{name}.context.json"
        ctx.write_text(json.dumps({"variables": context(name)}))
        argv = [BIN, "render", "-C", str(project), "--profile", ident(name).replace("_", "-"), "--context", str(ctx)]
        out = subprocess.run(argv, capture_output=True, timeout=60)
        self.assertEqual(out.returncode, 0, f"{' '.join(argv)}\n{out.stderr.decode(errors='replace')}")
        return out.stdout.decode()

    def test_corpus_is_large_enough(self):
        self.assertGreaterEqual(len(cases()), 120)

    def test_compat_mode_renders_as_jinja2_byte_for_byte(self):
        for name in cases():
            with self.subTest(template=name):
                expected = jinja2_render(name)
                self.assertTrue(expected.strip(), f"{name} renders empty: it tests nothing")
                self.assertEqual(self.promptc(self.tmp / "compat", name), expected)

    def test_what_differs_by_design_is_an_error_or_documented(self):
        index = differs()
        self.assertEqual(sorted(index), sorted(p.stem for p in DIFFERS.glob("*.j2")))
        doc = (REPO / "docs" / "project-format.md").read_text()
        for name, entry in index.items():
            with self.subTest(snippet=name):
                self.assertTrue(f"`{name}`" in doc, f"{name}: every difference by design is listed in docs/project-format.md")
                dest = self.tmp / "differs" / name
                write_single(dest, name)
                out = subprocess.run([BIN, "render", "-C", str(dest)], capture_output=True, timeout=60)
                stderr = out.stderr.decode(errors="replace")
                if entry["promptc"] == "error":
                    self.assertEqual(out.returncode, 2, stderr)
                    self.assertIn(" --> ", stderr, "the error is located")
                    self.assertIn("t.j2:", stderr)
                    self.assertNotIn("panicked", stderr)
                else:
                    self.assertEqual(out.returncode, 0, stderr)
                    self.assertNotEqual(out.stdout.decode(), jinja2_render_differing(name))

    def test_the_comparison_sees_the_edges(self):
        # Jinja2's text ends without a newline where promptc's default assembly adds one: were the
        # comparison normalising, these would agree.
        edges = [n for n in cases() if jinja2_render(n) != normalize(jinja2_render(n))]
        self.assertGreaterEqual(len(edges), 100, edges)

    def test_default_mode_differs_where_whitespace_matters(self):
        default = {n: self.promptc(self.tmp / "default", n) for n in STRICT_SAFE}
        differ = [n for n, text in default.items() if text != normalize(jinja2_render(n, strict=True))]
        self.assertGreaterEqual(len(differ), 10, f"only {differ} differ: the comparison may not see whitespace")
        # promptc's default is Jinja2 with trim_blocks and lstrip_blocks: the same corpus agrees with that.
        for name, text in default.items():
            with self.subTest(template=name):
                expected = normalize(jinja2_render(name, strict=True, trim_blocks=True, lstrip_blocks=True))
                self.assertEqual(text, expected)


SEARCH_PATH = REPO / "fixtures" / "good" / "jinja2-search-path"


@unittest.skipIf(BIN is None, "no promptc binary: build it (cargo build) or set PROMPTC_BIN")
class SearchPathTest(unittest.TestCase):
    """An upstream `prompts/` folder used unchanged through `templates: {path: [prompts]}` renders
    byte for byte as Jinja2's `FileSystemLoader("prompts")` renders it (includes, a list include,
    `ignore missing`, `from … import … with context`, `extends` with `super()`), with no
    normalisation; expected/ holds Jinja2's output for the Rust tests, and must not go stale."""

    def test_the_vendored_folder_renders_as_jinja2(self):
        import yaml

        manifest = yaml.safe_load((SEARCH_PATH / "promptc.yaml").read_text())
        ctx = {k: v["default"] for k, v in manifest["variables"].items()}
        env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(SEARCH_PATH / "prompts")))
        for profile, name in (("short", "system_prompt.j2"), ("long", "system_prompt_long.j2")):
            with self.subTest(profile=profile):
                expected = env.get_template(name).render(**ctx)
                self.assertEqual((SEARCH_PATH / "expected" / f"{profile}.txt").read_text(), expected)
                out = subprocess.run(
                    [BIN, "render", "-C", str(SEARCH_PATH), "--profile", profile], capture_output=True, timeout=60
                )
                self.assertEqual(out.returncode, 0, out.stderr.decode(errors="replace"))
                self.assertEqual(out.stdout.decode(), expected)


if __name__ == "__main__":
    unittest.main()

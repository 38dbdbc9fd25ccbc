"""`templates: {compat: jinja2}` renders templates exactly as Python's Jinja2 does.

Every `NAME.j2` at the top of fixtures/jinja2-corpus/ (includes, imports, macros, loops,
whitespace control, filters, Python-style methods; the shared files are under parts/) is
rendered twice with its context `NAME.json`:

- by Jinja2 3.1.6 with its default Environment (trim_blocks, lstrip_blocks and
  keep_trailing_newline all off), StrictUndefined, no autoescape;
- by the promptc binary, through a real project holding one section and one profile per
  template, with `templates: {compat: jinja2}` and the context passed as a context file.

promptc assembles a prompt from a section's rendered text by the documented normalisation (CRLF
to LF, leading and trailing blank lines dropped, one final newline), so Jinja2's text is put
through the same function before the byte comparison; every blank line, indentation and line
break inside the text is compared as rendered.

The test has teeth: rendered with promptc's default whitespace (trim_blocks and lstrip_blocks
on), several templates must differ from Jinja2.

The binary is $PROMPTC_BIN, else target/debug/promptc; the test is skipped when neither exists.
"""

import json
import os
import pathlib
import shutil
import subprocess
import tempfile
import unittest

import jinja2

REPO = pathlib.Path(__file__).resolve().parent.parent
CORPUS = REPO / "fixtures" / "jinja2-corpus"


def find_binary():
    for c in (os.environ.get("PROMPTC_BIN"), str(REPO / "target" / "debug" / "promptc")):
        if c and pathlib.Path(c).is_file() and os.access(c, os.X_OK):
            return str(pathlib.Path(c).resolve())
    return None


BIN = find_binary()


def normalize(text):
    """promptc's `render::normalize` plus the prompt's final newline."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").rstrip()
    first = next((i for i, c in enumerate(text) if c not in "\n \t"), len(text))
    start = text.rfind("\n", 0, first) + 1
    text = text[start:]
    return text + "\n" if text else ""


def cases():
    return sorted(p.stem for p in CORPUS.glob("*.j2"))


def context(name):
    return json.loads((CORPUS / f"{name}.json").read_text())


def ident(name):
    return "t" + "".join(c if c.isalnum() else "_" for c in name).lower()


def jinja2_render(name, **settings):
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(CORPUS)), undefined=jinja2.StrictUndefined, autoescape=False, **settings
    )
    return env.get_template(f"{name}.j2").render(**context(name))


def write_project(dest, compat):
    shutil.copytree(CORPUS, dest)
    names = cases()
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
        self.assertGreaterEqual(len(cases()), 25)

    def test_compat_mode_renders_as_jinja2(self):
        for name in cases():
            with self.subTest(template=name):
                expected = normalize(jinja2_render(name))
                self.assertTrue(expected.strip(), f"{name} renders empty: it tests nothing")
                self.assertEqual(self.promptc(self.tmp / "compat", name), expected)

    def test_default_mode_differs_where_whitespace_matters(self):
        differ = [n for n in cases() if self.promptc(self.tmp / "default", n) != normalize(jinja2_render(n))]
        self.assertGreaterEqual(len(differ), 10, f"only {differ} differ: the comparison may not see whitespace")
        # promptc's default is Jinja2 with trim_blocks and lstrip_blocks: the same corpus agrees with that.
        for name in cases():
            with self.subTest(template=name):
                expected = normalize(jinja2_render(name, trim_blocks=True, lstrip_blocks=True))
                self.assertEqual(self.promptc(self.tmp / "default", name), expected)


if __name__ == "__main__":
    unittest.main()

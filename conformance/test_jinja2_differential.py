"""Random expressions and statements, rendered by Python's Jinja2 3.1 and by promptc with
`compat: jinja2`.

The corpus (`test_jinja2_corpus.py`) holds what someone thought of; this generates what nobody
did: expressions over strings, numbers, lists and dicts combining operators, slices, filters
(with arguments), tests and string methods, from a fixed seed (so a failure reproduces). For
each expression Jinja2 renders, promptc must render the same bytes or fail with a located error
(exit 2): never a different text. The differences documented in docs/project-format.md are left
out by construction: `and`/`or` never join two literals
(`d_literal_and_or`), a power's base is never a negative literal (`d_negative_power_base`),
and Python's own object forms (`range(…)`, `<generator …>`) are not
compared.

The statements (`BlockGen`) nest text, output, `if`/`for`/`else`, comments, `set`, `raw`,
macros and `with`, with every whitespace-control marker on each side of each tag: the bytes
must be Jinja2's exactly, with no normalisation.

A run of this generator with 15,000 expressions found the differences fixed in PATCHES.md items
18–22 (slices with a negative step, booleans ordered as numbers, powers, generators, `%` and
`//` with a negative operand) and `str.find` counting bytes.
"""

import copy
import itertools
import json
import pathlib
import random
import subprocess
import sys
import tempfile
import unittest

import jinja2

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import promptc_binary  # noqa: E402

BIN = promptc_binary.BIN
SEED = 20261204
COUNT = 600
BLOCKS = 300

CONTEXT = {
    "xs": [3, 1, 2, 5, 4],
    "s": "Hello, World",
    "u": "héllo wörld ß",
    "d": {"b": 2, "a": 1, "c": 3},
    "n": 7,
    "neg": -3,
    "f": 2.5,
    "e": [],
    "words": ["b", "a", "C", "a"],
    "people": [{"name": "x", "age": 3}, {"name": "y", "age": 1}],
    "t": True,
    "z": 0,
    "es": "",
}

# Values by type. Literals and variables are kept apart where it matters (`and`/`or`).
STR = ["s", "u", "es", "'ab'", "''", "'a,b,,c'", "'  pad '", "'ÄÖü'", "'Title case words'", "'%s-%d'"]
INT = ["n", "neg", "z", "0", "1", "-2", "3", "10"]
NUM = INT + ["f", "2.5", "-0.5", "1e3"]
# No ranges: a slice of one is a range in Python, printed `range(…)` (not compared).
SEQ = ["xs", "words", "e", "people", "[1, 2, 3]", "[]", "[[1, 2], [3]]"]
MAP = ["d", "{'k': 1}"]
VARS = ["xs", "s", "u", "d", "n", "neg", "f", "e", "words", "t", "z", "es"]
STR_FILTERS = ["capitalize", "lower", "upper", "title", "trim", "length", "count", "first", "last", "reverse",
               "list", "wordcount", "center(20)", "indent(2)", "indent(2, true)", "striptags", "escape",
               "replace('l', 'L')", "replace('o', '0', 1)", "truncate(5)", "truncate(8, true, '..', 0)",
               "wordwrap(5)", "urlencode", "tojson", "default('x')", "int", "float", "string", "unique | list",
               "sort | join", "format(1, 2)"]
SEQ_FILTERS = ["first", "last", "length", "list", "reverse | list", "sort", "sort(reverse=true)", "unique | list",
               "join(',')", "batch(2) | list", "slice(2) | list", "select('odd') | list", "reject('even') | list",
               "map('string') | join('-')", "max", "min", "sum", "tojson", "sort | first", "default('x')",
               "selectattr('age') | map(attribute='name') | list", "groupby('age') | list", "count"]
NUM_FILTERS = ["abs", "round", "round(1)", "round(1, 'floor')", "round(0, 'ceil')", "int", "float", "string",
               "filesizeformat", "filesizeformat(true)", "tojson", "default(2)"]
MAP_FILTERS = ["items | list", "dictsort", "dictsort(reverse=true)", "length", "list", "tojson", "xmlattr",
               "urlencode", "first", "sort"]
TESTS = ["defined", "undefined", "none", "number", "string", "sequence", "mapping", "iterable", "odd", "even",
         "divisibleby(3)", "lower", "upper", "true", "false", "integer", "float", "boolean", "in([1, 2])",
         "eq(1)", "gt(1)", "callable"]
METHODS = [".upper()", ".lower()", ".split()", ".split(',')", ".strip()", ".title()", ".startswith('H')",
           ".replace('l', '')", ".count('l')", ".find('o')", ".rfind('l')", ".capitalize()", ".lstrip('H')",
           ".rstrip('d')", ".isdigit()", ".isalpha()", ".isspace()", ".isupper()", ".islower()",
           ".endswith('d')", ".splitlines()", ".format(1)"]
COMPARE = ["==", "!=", "<", ">", "<=", ">="]
STR_TO_STR = ["capitalize", "lower", "upper", "title", "trim", "reverse", "center(9)", "replace('l', 'L')",
              "truncate(5)", "string"]
# Filters that make text of any value (Python's `str` of a list or dict, as `~` does).
TEXT_OF_ANY = ["upper", "lower", "trim", "string", "replace(',', ';')", "center(30)", "capitalize"]
STR_METHODS_TO_STR = [".upper()", ".lower()", ".strip()", ".title()", ".capitalize()", ".replace('l', '')"]
SLICED_STR = ["s", "u", "es", "'abcdef'"]
SEQ_TO_SEQ = ["sort", "unique | list", "reverse | list", "list", "select('odd') | list", "map('string') | list"]
METHOD_SUBJECTS = ["s", "u", "es", "words[0]", "'a1'", "'k=1'"]


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)

    def pick(self, xs):
        return self.rng.choice(xs)

    def num(self, depth):
        r = self.rng.random()
        if depth > 2 or r < 0.4:
            return self.pick(NUM)
        if r < 0.6:
            return f"({self.num(depth + 1)} {self.pick(['+', '-', '*', '/', '//'])} {self.pick(INT)})"
        if r < 0.65:
            # A negative literal base is `d_negative_power_base`.
            return f"({self.pick(['n', 'f', 'z', '2', '3', '0.5'])} ** {self.pick(INT)})"
        if r < 0.7:
            return f"({self.pick(NUM)} {self.pick(['%', '//'])} {self.pick(['3', '-4', 'n', 'neg', '2.5', '-0.5'])})"
        if r < 0.85:
            return f"({self.num(depth + 1)} | {self.pick(NUM_FILTERS[:8])})"
        return f"({self.seq(depth + 1)} | {self.pick(['length', 'sum', 'count'])})"

    def str(self, depth):
        r = self.rng.random()
        if depth > 2 or r < 0.35:
            return self.pick(STR)
        if r < 0.5:
            other = self.pick([self.str, self.num, self.seq, lambda d: self.pick(MAP)])(depth + 1)
            return f"({self.str(depth + 1)} ~ {other})"
        if r < 0.7:
            return f"({self.str(depth + 1)} | {self.pick(STR_TO_STR)})"
        if r < 0.85:
            return f"{self.pick(['s', 'u', 'es'])}{self.pick(STR_METHODS_TO_STR)}"
        return f"{self.pick(SLICED_STR)}[{self.bound()}:{self.bound()}{self.step()}]"

    def seq(self, depth):
        r = self.rng.random()
        if depth > 2 or r < 0.45:
            return self.pick(SEQ)
        if r < 0.65:
            return f"{self.pick(['xs', 'words', 'e', '[1, 2, 3, 4]'])}[{self.bound()}:{self.bound()}{self.step()}]"
        if r < 0.85:
            return f"({self.seq(depth + 1)} | {self.pick(SEQ_TO_SEQ)})"
        return f"({self.seq(depth + 1)} + {self.pick(SEQ[:6])})"

    def bound(self):
        return self.pick(["", "", *INT])

    def step(self):
        return ":" + self.pick(["1", "2", "-1", "-2", "n", "neg"]) if self.rng.random() < 0.6 else ""

    def any(self, depth=0):
        kind = self.pick(["str", "num", "seq", "seq", "map", "method", "test", "compare", "logic", "cond", "text"])
        if kind == "text":
            return f"({self.pick([self.seq, lambda d: self.pick(MAP)])(depth)} | {self.pick(TEXT_OF_ANY)})"
        if kind == "str":
            return f"({self.str(depth)} | {self.pick(STR_FILTERS)})"
        if kind == "num":
            return f"({self.num(depth)} | {self.pick(NUM_FILTERS)})"
        if kind == "seq":
            return f"({self.seq(depth)} | {self.pick(SEQ_FILTERS)})"
        if kind == "map":
            return f"({self.pick(MAP)} | {self.pick(MAP_FILTERS)})"
        if kind == "method":
            return f"{self.pick(METHOD_SUBJECTS)}{self.pick(METHODS)}"
        if kind == "test":
            operand = self.pick([self.str, self.num, self.seq])(depth + 1)
            return f"({operand} is {self.pick(['', 'not '])}{self.pick(TESTS)})"
        if kind == "compare":
            a, b = self.pick([(self.num, self.num), (self.str, self.str), (self.num, lambda d: self.pick(["t", "true", "false"]))])
            return f"({a(depth + 1)} {self.pick(COMPARE)} {b(depth + 1)})"
        if kind == "logic":
            # A variable on one side: two literals are folded when the template compiles.
            return f"({self.pick(VARS)} {self.pick(['and', 'or'])} {self.pick([self.str, self.num, self.seq])(depth + 1)})"
        return f"({self.str(depth + 1)} if {self.pick(VARS)} else {self.num(depth + 1)})"


TEXTS = ["a", " ", "\n", "  \n", "x\n  ", "\t", "\n\n", " y ", "z\n"]


class BlockGen:
    """Templates of text, output and statements with every whitespace-control marker: `-`, `+`
    and none on each side of `{% %}`, `{{ }}` and `{# #}` (what trim and strip exactly)."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def open(self):
        return self.rng.choice(["{%", "{%-", "{%+"])

    def close(self):
        return self.rng.choice(["%}", "-%}", "+%}"])

    def tag(self, body):
        return f"{self.open()} {body} {self.close()}"

    def output(self):
        expr = self.rng.choice(["name", "x", "loop.index", "i", "xs | length", "d.a"])
        return f"{self.rng.choice(['{{', '{{-'])} {expr} {self.rng.choice(['}}', '-}}'])}"

    def block(self, depth=0):
        out = ""
        for _ in range(self.rng.randint(1, 4)):
            r = self.rng.random()
            if r < 0.35 or depth > 2:
                out += self.rng.choice(TEXTS)
            elif r < 0.5:
                out += self.output()
            elif r < 0.62:
                other = self.tag("else") + self.block(depth + 1) if self.rng.random() < 0.4 else ""
                cond = self.rng.choice(["t", "f", "xs", "e"])
                out += self.tag(f"if {cond}") + self.block(depth + 1) + other + self.tag("endif")
            elif r < 0.74:
                other = self.tag("else") + self.block(depth + 1) if self.rng.random() < 0.3 else ""
                seq = self.rng.choice(["xs", "e", "d"])
                out += self.tag(f"for x in {seq}") + self.block(depth + 1) + other + self.tag("endfor")
            elif r < 0.8:
                out += self.rng.choice(["{#", "{#-"]) + " note " + self.rng.choice(["#}", "-#}"])
            elif r < 0.86:
                out += self.tag(f"set i = {self.rng.randint(0, 9)}")
            elif r < 0.9:
                out += self.tag("raw") + "{{ x }} " + self.rng.choice(TEXTS) + self.tag("endraw")
            elif r < 0.95:
                out += self.tag("macro m(a)") + self.block(depth + 1) + "{{ a }}" + self.tag("endmacro") + "{{ m(1) }}"
            else:
                out += self.tag("with i = 5") + self.block(depth + 1) + self.tag("endwith")
        return out


def jinja2_render(env, src, context):
    try:
        return env.from_string(src).render(**copy.deepcopy(context))
    except Exception:  # noqa: BLE001 - any failure in Jinja2 means there is nothing to compare
        return None


@unittest.skipIf(BIN is None, "no promptc binary: build it (cargo build) or set PROMPTC_BIN")
class Jinja2DifferentialTest(unittest.TestCase):
    def compare(self, sources, context, count):
        """Render `count` of `sources` (those Jinja2 renders to a non-empty text that is not an
        object's address) with both; return how many were the same and the ones promptc
        refused, after asserting none differed."""
        env = jinja2.Environment(autoescape=False)
        with tempfile.TemporaryDirectory(prefix="promptc-jinja2-diff-") as tmp:
            project = pathlib.Path(tmp)
            (project / "promptc.yaml").write_text(json.dumps({
                "promptc": 1, "name": "differential", "contract_version": 1,
                "templates": {"compat": "jinja2"},
                "assembly": {"trim": False, "final_newline": False},
                "variables": {k: {"description": "a value", "default": v} for k, v in context.items()},
                "sections": {"t": {"template": "t.j2"}},
                "tools": [],
                "profiles": {"p": {"sections": ["t"]}},
            }))
            same, refused, differ, tried = 0, [], [], 0
            for src in sources:
                if tried == count:
                    break
                want = jinja2_render(env, src, context)
                if want is None or not want or any(m in want for m in ("range(", "<generator", " object at ")):
                    continue
                tried += 1
                (project / "t.j2").write_text(src)
                out = subprocess.run([BIN, "render", "-C", str(project)], capture_output=True, timeout=60)
                stderr = out.stderr.decode(errors="replace")
                if out.returncode == 0:
                    got = out.stdout.decode()
                    if got == want:
                        same += 1
                    else:
                        differ.append(f"{src!r}\n    Jinja2:  {want!r}\n    promptc: {got!r}")
                else:
                    self.assertEqual(out.returncode, 2, f"{src}: {stderr}")
                    self.assertIn(" --> ", stderr, f"{src}: the error is located")
                    self.assertNotIn("panicked", stderr, src)
                    refused.append(src)
            self.assertEqual(tried, count)
            self.assertEqual(differ, [], "rendered differently from Jinja2:\n" + "\n".join(differ))
            return same, refused

    def test_random_expressions_render_as_jinja2_or_fail_located(self):
        gen = Gen(SEED)
        same, refused = self.compare(("{{ " + gen.any() + " }}" for _ in itertools.count()), CONTEXT, COUNT)
        # Teeth: most expressions are compared, not refused.
        self.assertGreaterEqual(same, COUNT * 3 // 4, f"only {same} of {COUNT} compared; refused: {refused[:20]}")
        print(f"jinja2 differential: {same} of {COUNT} expressions the same, {len(refused)} refused (located)",
              file=sys.stderr)

    def test_random_statements_keep_jinja2_whitespace_byte_for_byte(self):
        gen = BlockGen(SEED)
        context = {"xs": [1, 2, 3], "t": True, "f": False, "name": "Ann", "e": [], "d": {"a": 1, "b": 2}}
        same, refused = self.compare((gen.block() for _ in itertools.count()), context, BLOCKS)
        self.assertEqual(refused, [], "every statement here is one promptc renders")
        print(f"jinja2 differential: {same} of {BLOCKS} templates the same", file=sys.stderr)

if __name__ == "__main__":
    unittest.main()

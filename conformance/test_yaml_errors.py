"""YAML indentation mistakes (fixtures/bad/yaml-indent-*): promptc's error points at the line
that is off, and its message says how, where PyYAML (the parser most users know) names the
grammar it expected. For each case this test records PyYAML's verdict and checks that promptc
reports the mis-indented line itself (PyYAML reports the same line where it notices the mistake
at all; it accepts the empty-key case, which only the schema rejects, and marks the mapping's
start for the misplaced key).

The binary is $PROMPTC_BIN, else target/debug/promptc; the test is skipped when neither exists."""

import pathlib
import re
import subprocess
import sys
import unittest

import yaml

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

REPO = pathlib.Path(__file__).resolve().parent.parent

# case → (the line that is off, what PyYAML says about it: its problem line or None if it parses)
CASES = {
    "yaml-indent-dedented-key": (38, 38),
    "yaml-indent-tab": (36, 36),
    "yaml-indent-list-item": (32, 32),
    "yaml-indent-under-value": (5, 5),
    "yaml-indent-misplaced-key": (41, 42),
    "yaml-indent-empty-key": (25, None),
}


import promptc_binary  # noqa: E402

BIN = promptc_binary.BIN


def pyyaml_line(path):
    try:
        yaml.safe_load(path.read_text())
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        return mark.line + 1 if mark else -1
    return None


@unittest.skipUnless(BIN, "no promptc binary (set PROMPTC_BIN or cargo build)")
class IndentationErrors(unittest.TestCase):
    def test_each_case_points_at_the_line_that_is_off(self):
        for case, (off, pyyaml) in CASES.items():
            with self.subTest(case=case):
                project = REPO / "fixtures" / "bad" / case
                self.assertEqual(pyyaml_line(project / "promptc.yaml"), pyyaml, "PyYAML's verdict changed")
                out = subprocess.run([BIN, "-C", str(project), "render"], capture_output=True, text=True)
                self.assertEqual(out.returncode, 2)
                where = re.search(r"promptc\.yaml:(\d+):\d+", out.stderr)
                self.assertIsNotNone(where, out.stderr)
                self.assertEqual(int(where.group(1)), off, out.stderr)
                self.assertNotIn("block mapping", out.stderr, "the message names the mistake, not the grammar")


if __name__ == "__main__":
    unittest.main()

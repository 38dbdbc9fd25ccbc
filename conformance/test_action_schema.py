"""The JSON action schema promptc writes into a json-transport prompt, checked with a real JSON
Schema validator (jsonschema, Draft 2020-12) against actions a model might answer with: every
tool's own parameters (a parameter two tools declare differently keeps each tool's schema),
each action's required parameters, nested required fields, and `@action` limited to the
active tools (`disallow_exit` removes `finish`).

The project is fixtures/design/003-react-loop; the binary is $PROMPTC_BIN, else
target/debug/promptc; the test is skipped when neither exists."""

import json
import pathlib
import re
import subprocess
import sys
import unittest

import jsonschema

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

REPO = pathlib.Path(__file__).resolve().parent.parent
LOOP = REPO / "fixtures" / "design" / "003-react-loop"


import promptc_binary  # noqa: E402

BIN = promptc_binary.BIN


def action_schema(*args):
    out = subprocess.run(
        [BIN, "-C", str(LOOP), "render", "--transport", "json", "--format", "json", *args],
        check=True, capture_output=True, text=True,
    )
    prompt = json.loads(out.stdout)["prompt"]
    block = re.search(r"```json\n(.*?)```", prompt, re.S)
    return json.loads(block.group(1))


def valid(schema, action):
    return jsonschema.Draft202012Validator(schema).is_valid(action)


@unittest.skipUnless(BIN, "no promptc binary (set PROMPTC_BIN or cargo build)")
class ActionSchema(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.schema = action_schema()
        cls.no_exit = action_schema("--set", "disallow_exit=true")

    def test_the_schema_is_a_valid_json_schema(self):
        jsonschema.Draft202012Validator.check_schema(self.schema)

    def test_actions_each_tool_accepts(self):
        for action in (
            {"@action": "search", "identifier": "look", "query": "test_parse_header", "mode": "semantic"},
            {"@action": "search", "identifier": "look", "query": "x"},
            {"@action": "sort", "identifier": "order", "mode": "newest"},
            {"@action": "read_page", "identifier": "read", "ref": {"id": "r1", "section": "intro"}},
            {"@action": "finish", "identifier": "done", "answer": "Three tests fail."},
        ):
            self.assertTrue(valid(self.schema, action), action)

    def test_a_shared_name_keeps_each_tools_own_values(self):
        # search's mode is keyword|semantic, sort's is newest|relevance: never merged.
        self.assertFalse(valid(self.schema, {"@action": "search", "identifier": "s", "query": "q", "mode": "newest"}))
        self.assertFalse(valid(self.schema, {"@action": "sort", "identifier": "s", "mode": "semantic"}))

    def test_each_actions_required_parameters_are_enforced(self):
        self.assertFalse(valid(self.schema, {"@action": "search", "identifier": "s"}))
        self.assertFalse(valid(self.schema, {"@action": "sort", "identifier": "s"}))
        self.assertFalse(valid(self.schema, {"@action": "finish", "identifier": "done"}))
        self.assertFalse(valid(self.schema, {"@action": "read_page", "identifier": "r", "ref": {"section": "x"}}))
        self.assertFalse(valid(self.schema, {"@action": "search", "query": "no identifier"}))

    def test_only_active_tools_are_actions(self):
        done = {"@action": "finish", "identifier": "done", "answer": "x"}
        self.assertTrue(valid(self.schema, done))
        self.assertFalse(valid(self.no_exit, done), "disallow_exit removes finish")
        self.assertFalse(valid(self.schema, {"@action": "delete_everything", "identifier": "x"}))


if __name__ == "__main__":
    unittest.main()

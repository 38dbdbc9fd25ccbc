"""The JSON Schemas in schema/ (printed by `promptc schema`) accept the shipped example, the
good fixtures and the design-note fixtures, and reject a manifest with an unknown key: editors using them through
yaml-language-server see the same rules promptc enforces."""

import json
import pathlib
import unittest

import jsonschema
import yaml

REPO = pathlib.Path(__file__).resolve().parent.parent


def load(name):
    return json.loads((REPO / "schema" / name).read_text())


class ProjectSchemaTest(unittest.TestCase):
    manifest = load("promptc.schema.json")
    tools = load("tools.schema.json")

    def validate(self, schema, path):
        data = yaml.safe_load(path.read_text())
        jsonschema.Draft202012Validator(schema).validate(data)
        return data

    def projects(self):
        yield REPO / "profiles"
        for kind in ("good", "design"):
            for p in sorted((REPO / "fixtures" / kind).iterdir()):
                if (p / "promptc.yaml").is_file():
                    yield p

    def test_example_and_good_fixtures_validate(self):
        checked = 0
        for project in self.projects():
            with self.subTest(project=str(project)):
                data = self.validate(self.manifest, project / "promptc.yaml")
                for tools_file in data.get("tools", []):
                    self.validate(self.tools, project / tools_file)
                    checked += 1
        self.assertGreater(checked, 9)

    def test_example_files_reference_the_schemas(self):
        head = (REPO / "profiles" / "promptc.yaml").read_text().splitlines()[0]
        self.assertEqual(head, "# yaml-language-server: $schema=../schema/promptc.schema.json")
        for tools_file in sorted((REPO / "profiles" / "tools").glob("*.yaml")):
            first = tools_file.read_text().splitlines()[0]
            self.assertEqual(first, "# yaml-language-server: $schema=../../schema/tools.schema.json", tools_file)

    def test_unknown_keys_and_bad_values_are_rejected(self):
        data = yaml.safe_load((REPO / "profiles" / "promptc.yaml").read_text())
        for mutate in (
            lambda d: d.update({"strict_tool": True}),
            lambda d: d["profiles"]["lite"].update({"section": []}),
            lambda d: d.update({"transports": ["native", "smoke"]}),
            lambda d: d["profiles"]["standard"]["budget"].update({"total": -1}),
        ):
            bad = json.loads(json.dumps(data))
            mutate(bad)
            with self.assertRaises(jsonschema.ValidationError):
                jsonschema.Draft202012Validator(self.manifest).validate(bad)


if __name__ == "__main__":
    unittest.main()

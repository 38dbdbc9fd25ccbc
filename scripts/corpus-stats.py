#!/usr/bin/env python3
"""Per-source statistics for the real-tool corpus (issue 22).

Reads fixtures/import/corpus/SOURCES.json, parses every listed file, pulls
out the tool definitions according to the file's `form` (and optional
`container` / `json_pointer`), and prints per source:

  * the number of tools found (and whether it matches the manifest),
  * how often JSON Schema keywords occur anywhere in the tools' schemas,
  * how often tool-level MCP fields occur (annotations, title, ...).

Standard library only.  Usage:

    python3 scripts/corpus-stats.py [--manifest PATH] [--json] [--all-keywords]

Manifest file entries (see fixtures/import/corpus/README.md):

  form          mcp-tool | mcp | openai | openai-responses | anthropic |
                gemini | bare
  container     json (default) | jsonl | sse | vitest-snapshot
                  jsonl: one JSON document per non-empty line; json_pointer
                  applies to each line
                  sse: the JSON text follows `data:` on an event-stream line
                  vitest-snapshot: a Vitest .snap file; every exports[...]
                  template literal holds one tool object printed by
                  pretty-format (trailing commas, escaped backticks)
  json_pointer  RFC 6901 pointer to the tool array (or, for mcp-tool, the
                tool object) inside the parsed document.  Defaults:
                mcp -> /tools, everything else -> "" (the whole document).
  tools         the count recorded in the manifest (checked here).
"""

import argparse
import collections
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MANIFEST = os.path.join(HERE, "..", "fixtures", "import", "corpus", "SOURCES.json")

# Keywords whose value is a map of name -> schema.
MAP_OF_SCHEMAS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
# Keywords whose value is a single schema (or, for some, a boolean).
ONE_SCHEMA = ("additionalProperties", "items", "not", "if", "then", "else", "contains",
              "propertyNames", "additionalItems", "unevaluatedProperties", "unevaluatedItems")
# Keywords whose value is a list of schemas.
LIST_OF_SCHEMAS = ("anyOf", "oneOf", "allOf", "prefixItems")

# Reported in this order; "type[list]" and "additionalProperties{schema}" are derived.
HIGHLIGHT = ("anyOf", "oneOf", "allOf", "not", "$ref", "$defs", "definitions", "$schema", "$id",
             "const", "enum", "exclusiveMinimum", "exclusiveMaximum", "minimum", "maximum",
             "additionalProperties", "additionalProperties{schema}", "additionalProperties{bool}",
             "title", "examples", "example", "default", "format", "pattern", "minLength", "maxLength",
             "minItems", "maxItems", "uniqueItems", "prefixItems", "nullable", "type[list]",
             "type[UPPER]", "type[non-json-schema]", "required", "description", "items")
TOOL_FIELDS = ("annotations", "title", "outputSchema", "_meta", "icons", "execution",
               "strict", "cache_control", "type", "inputSchema.$schema")
JSON_TYPES = {"object", "array", "string", "number", "integer", "boolean", "null"}


class CorpusError(Exception):
    pass


def pointer_get(doc, pointer):
    if pointer in ("", None):
        return doc
    if not pointer.startswith("/"):
        raise CorpusError("bad json_pointer %r" % pointer)
    cur = doc
    for raw in pointer[1:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(cur, list):
            cur = cur[int(part)]
        elif isinstance(cur, dict):
            if part not in cur:
                raise CorpusError("json_pointer %r: no key %r" % (pointer, part))
            cur = cur[part]
        else:
            raise CorpusError("json_pointer %r runs into a scalar" % pointer)
    return cur


class _PrettyFormatParser:
    """Reader for pretty-format output as stored in Vitest snapshots.

    pretty-format prints one key or item per line, a trailing comma after
    every item, and strings between double quotes *without* escaping, so a
    string ends at the first `",` + newline.  Good enough for printed JSON data.
    """

    def __init__(self, text):
        self.s = text
        self.i = 0

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] in " \t\r\n":
            self.i += 1

    def value(self):
        self.ws()
        c = self.s[self.i]
        if c == "{":
            return self.container("}", True)
        if c == "[":
            return self.container("]", False)
        if c == '"':
            end = self.s.find('",\n', self.i + 1)
            if end < 0:
                raise CorpusError("unterminated string at %d" % self.i)
            val = self.s[self.i + 1:end]
            self.i = end + 1
            return val
        end = self.s.find(",\n", self.i)
        tok = self.s[self.i:end].strip()
        self.i = end
        if tok in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[tok]
        try:
            return json.loads(tok)
        except ValueError:
            raise CorpusError("unsupported pretty-format token %r" % tok)

    def container(self, close, is_obj):
        self.i += 1
        out = {} if is_obj else []
        while True:
            self.ws()
            if self.s[self.i] == close:
                self.i += 1
                return out
            if is_obj:
                if self.s[self.i] != '"':
                    raise CorpusError("expected key at %d" % self.i)
                end = self.s.index('": ', self.i + 1)
                key = self.s[self.i + 1:end]
                self.i = end + 3
                out[key] = self.value()
            else:
                out.append(self.value())
            self.ws()
            if self.s[self.i] != ",":
                raise CorpusError("expected ',' at %d" % self.i)
            self.i += 1


def parse_vitest_snapshot(text):
    """Return the objects printed in a Vitest snapshot file, in file order."""
    out = []
    for m in re.finditer(r"^exports\[`(.*?)`\] = `\n(.*?)\n`;\s*$", text, re.S | re.M):
        body = re.sub(r"\\([\\`$])", r"\1", m.group(2))
        parser = _PrettyFormatParser(body)
        obj = parser.value()
        parser.ws()
        if parser.i != len(body):
            raise CorpusError("trailing text in snapshot %r" % m.group(1))
        out.append(obj)
    return out


def load_documents(path, container):
    with open(path, "rb") as fh:
        raw = fh.read()
    text = raw.decode("utf-8")
    if container in (None, "json"):
        return [json.loads(text)]
    if container == "jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    if container == "sse":
        docs = []
        for line in text.splitlines():
            if line.startswith("data:"):
                docs.append(json.loads(line[5:].strip()))
        if not docs:
            raise CorpusError("no data: lines")
        return docs
    if container == "vitest-snapshot":
        return parse_vitest_snapshot(text)
    raise CorpusError("unknown container %r" % container)


def as_list(x):
    return x if isinstance(x, list) else [x]


def extract_tools(entry, corpus_dir):
    """Return a list of (tool_object, [(role, schema), ...]) for one manifest file entry."""
    form = entry["form"]
    container = entry.get("container", "json")
    pointer = entry.get("json_pointer", "/tools" if form == "mcp" else "")
    docs = load_documents(os.path.join(corpus_dir, entry["path"]), container)
    tools = []
    for doc in docs:
        node = pointer_get(doc, pointer) if container != "vitest-snapshot" else doc
        for item in as_list(node):
            if not isinstance(item, dict):
                raise CorpusError("tool entry is %s, not an object" % type(item).__name__)
            if form in ("mcp-tool", "mcp"):
                tools.append((item, [("input", item.get("inputSchema")), ("output", item.get("outputSchema"))]))
            elif form == "openai":
                fn = item.get("function", {}) if item.get("type", "function") == "function" else {}
                tools.append((item, [("input", fn.get("parameters"))]))
            elif form == "openai-responses":
                tools.append((item, [("input", item.get("parameters"))]))
            elif form == "anthropic":
                tools.append((item, [("input", item.get("input_schema"))]))
            elif form == "bare":
                tools.append((item, [("input", item.get("parameters")), ("output", item.get("response"))]))
            elif form == "gemini":
                decls = item.get("functionDeclarations", item.get("function_declarations"))
                for d in (decls if isinstance(decls, list) else [item]):
                    tools.append((d, [("input", d.get("parametersJsonSchema", d.get("parameters"))),
                                      ("output", d.get("responseJsonSchema", d.get("response")))]))
            else:
                raise CorpusError("unknown form %r" % form)
    return tools


def walk_schema(schema, counts, path_keys=None):
    """Count keywords in every schema node reachable from `schema`."""
    if isinstance(schema, bool) or not isinstance(schema, dict):
        return
    for key, val in schema.items():
        counts[key] += 1
        if key == "type":
            if isinstance(val, list):
                counts["type[list]"] += 1
            elif isinstance(val, str):
                if val != val.lower() and val.lower() in JSON_TYPES:
                    counts["type[UPPER]"] += 1
                elif val not in JSON_TYPES:
                    counts["type[non-json-schema]"] += 1
        if key == "additionalProperties":
            counts["additionalProperties{schema}" if isinstance(val, dict) else "additionalProperties{bool}"] += 1
        if key in MAP_OF_SCHEMAS and isinstance(val, dict):
            for sub in val.values():
                walk_schema(sub, counts)
        elif key in ONE_SCHEMA:
            if isinstance(val, list):  # old-style tuple items
                for sub in val:
                    walk_schema(sub, counts)
            else:
                walk_schema(val, counts)
        elif key in LIST_OF_SCHEMAS and isinstance(val, list):
            for sub in val:
                walk_schema(sub, counts)


def source_stats(src, corpus_dir):
    kw = collections.Counter()
    out_kw = collections.Counter()
    fields = collections.Counter()
    n = 0
    problems = []
    for entry in src.get("files", []):
        try:
            tools = extract_tools(entry, corpus_dir)
        except (OSError, ValueError, CorpusError, KeyError, IndexError) as exc:
            problems.append("%s: %s" % (entry["path"], exc))
            continue
        if entry.get("tools") is not None and entry["tools"] != len(tools):
            problems.append("%s: manifest says %s tools, found %d" % (entry["path"], entry["tools"], len(tools)))
        n += len(tools)
        for tool, schemas in tools:
            for f in TOOL_FIELDS:
                if f == "inputSchema.$schema":
                    if isinstance(tool.get("inputSchema"), dict) and "$schema" in tool["inputSchema"]:
                        fields[f] += 1
                elif f in tool:
                    fields[f] += 1
            for role, schema in schemas:
                if schema is None:
                    continue
                walk_schema(schema, kw if role == "input" else out_kw)
    return n, kw, out_kw, fields, problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--manifest", default=DEFAULT_MANIFEST)
    ap.add_argument("--json", action="store_true", help="print machine-readable JSON")
    ap.add_argument("--all-keywords", action="store_true", help="also list non-highlighted keywords")
    args = ap.parse_args(argv)

    with open(args.manifest, encoding="utf-8") as fh:
        manifest = json.load(fh)
    corpus_dir = os.path.dirname(os.path.abspath(args.manifest))
    sources = manifest["sources"] if isinstance(manifest, dict) else manifest

    report = []
    total = 0
    total_kw = collections.Counter()
    total_fields = collections.Counter()
    bad = 0
    for src in sources:
        if src.get("referenced_only"):
            report.append({"id": src["id"], "referenced_only": True, "tools": src.get("tools_upstream")})
            continue
        n, kw, out_kw, fields, problems = source_stats(src, corpus_dir)
        total += n
        total_kw.update(kw)
        total_fields.update(fields)
        bad += len(problems)
        report.append({"id": src["id"], "forms": sorted({f["form"] for f in src["files"]}),
                       "held_out": bool(src.get("held_out")), "files": len(src["files"]), "tools": n,
                       "input_keywords": dict(kw), "output_keywords": dict(out_kw),
                       "tool_fields": dict(fields), "problems": problems})

    if args.json:
        json.dump({"sources": report, "total_tools": total}, sys.stdout, indent=2, sort_keys=True)
        print()
        return 1 if bad else 0

    def fmt(counter, keys):
        parts = ["%s=%d" % (k, counter[k]) for k in keys if counter.get(k)]
        return ", ".join(parts) if parts else "-"

    for r in report:
        if r.get("referenced_only"):
            print("== %s: referenced only (not committed), upstream tools: %s" % (r["id"], r["tools"]))
            continue
        flag = " [held out]" if r["held_out"] else ""
        print("== %s%s: %d tools in %d files, form %s" % (r["id"], flag, r["tools"], r["files"], "/".join(r["forms"])))
        print("   input schema keywords : " + fmt(r["input_keywords"], HIGHLIGHT))
        if r["output_keywords"]:
            print("   output schema keywords: " + fmt(r["output_keywords"], HIGHLIGHT))
        print("   tool-level fields     : " + fmt(r["tool_fields"], TOOL_FIELDS))
        if args.all_keywords:
            rest = sorted(k for k in r["input_keywords"] if k not in HIGHLIGHT)
            print("   other input keywords  : " + fmt(r["input_keywords"], rest))
        for p in r["problems"]:
            print("   PROBLEM: " + p)
    print("== TOTAL: %d tools in %d committed sources" % (total, sum(1 for r in report if not r.get("referenced_only"))))
    print("   input schema keywords : " + fmt(total_kw, HIGHLIGHT))
    print("   tool-level fields     : " + fmt(total_fields, TOOL_FIELDS))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

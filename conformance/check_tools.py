#!/usr/bin/env python3
"""Conformance checker for the `tools` JSON that promptc emits per provider.

Each input file holds exactly the value of a request body's `tools` field for
one provider.  Every tool is checked three ways:

1. Declared keys: the provider SDK's own request types (TypedDicts for
   openai/anthropic, pydantic models for google-genai) are walked
   recursively; any key the SDK does not declare, and any required key that is
   missing, is an error.  For gemini the keys must also be the camelCase
   aliases the REST API uses (the SDK accepts snake_case too).
2. SDK validation: pydantic validation of the same types with extra keys
   forbidden (and, for gemini, aliases only).
3. Provider rules (see /work/shared/reference/provider-rules.json and the SDK
   docstrings): tool-name patterns, duplicate names, description length, tool
   count, and schema rules (OpenAI strict mode subset, Gemini's OpenAPI-subset
   Schema, Anthropic's JSON Schema input_schema).

Usage:
    check_tools.py --provider {openai,openai-responses,anthropic,gemini} FILE...
    check_tools.py --dir DIR      # finds *.native.<provider>.tools.json

Prints `ok FILE (N tools)` or `FAIL FILE: <json path>: <reason>[ | ...]` per
file.  Exit status: 0 all ok, 1 some file failed, 2 usage error or unreadable
input.
"""

from __future__ import annotations

import argparse
import collections.abc
import functools
import json
import re
import sys
import types as pytypes
import typing
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import pydantic
import typing_extensions as te

PROVIDERS = ("openai", "openai-responses", "anthropic", "gemini")

# The provider group is anchored between `.native.` and `.tools.json`, so
# `x.native.openai-responses.tools.json` can never be taken for `openai`.
FILE_RE = re.compile(
    r"^(?P<stem>.+)\.native\.(?P<provider>openai-responses|openai|anthropic|gemini)\.tools\.json$"
)

# --- Rules (provider-rules.json; SDK docstrings where noted) -----------------

OPENAI_NAME_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
ANTHROPIC_NAME_RE = OPENAI_NAME_RE
# google-genai 3.6.1 FunctionDeclaration.name allows 128 chars; provider-rules
# keeps the conservative 64 that older Gemini/Vertex endpoints enforce.
GEMINI_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$")
GEMINI_PARAM_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
OPENAI_DESCRIPTION_MAX = 1024
MAX_TOOLS = 128

JSON_SCHEMA_TYPES = {"string", "number", "integer", "boolean", "array", "object", "null"}

OPENAI_STRICT_UNSUPPORTED = (
    "allOf", "not", "oneOf", "if", "then", "else", "dependentRequired",
    "dependentSchemas", "default", "minLength", "maxLength", "patternProperties",
    "unevaluatedProperties", "propertyNames", "minProperties", "maxProperties",
    "unevaluatedItems", "contains", "minContains", "maxContains", "uniqueItems",
)
OPENAI_STRICT_FORMATS = {
    "date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid",
}

GEMINI_TYPES = {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}
# JSON-Schema-only keywords the Gemini Developer API rejects inside `parameters`.
# `additionalProperties`, `ref` and `defs` are real fields of the SDK's Schema
# model (Vertex AI accepts them), so pydantic alone would not flag them.
GEMINI_FORBIDDEN_KEYWORDS = {
    "additionalProperties": "not supported by the Gemini API (Vertex-only)",
    "ref": "not supported by the Gemini API (Vertex-only)",
    "defs": "not supported by the Gemini API (Vertex-only)",
    "$ref": "JSON Schema reference; Gemini Schema has no $ref",
    "$defs": "JSON Schema keyword; Gemini Schema has no $defs",
    "definitions": "JSON Schema keyword; Gemini Schema has no definitions",
    "$schema": "JSON Schema keyword; not a Gemini Schema field",
    "$id": "JSON Schema keyword; not a Gemini Schema field",
    "const": "not a Gemini Schema field; use a single-value STRING enum",
    "oneOf": "not a Gemini Schema field; use anyOf",
    "allOf": "not a Gemini Schema field",
    "not": "not a Gemini Schema field",
    "if": "not a Gemini Schema field",
    "then": "not a Gemini Schema field",
    "else": "not a Gemini Schema field",
    "exclusiveMinimum": "not a Gemini Schema field",
    "exclusiveMaximum": "not a Gemini Schema field",
    "multipleOf": "not a Gemini Schema field",
    "patternProperties": "not a Gemini Schema field",
    "propertyNames": "not a Gemini Schema field",
    "prefixItems": "not a Gemini Schema field",
    "uniqueItems": "not a Gemini Schema field",
    "examples": "not a Gemini Schema field (the singular `example` is)",
    "dependentRequired": "not a Gemini Schema field",
}
# STRING formats per provider-rules (Gemini API); numeric formats per the SDK's
# Schema.format docstring.
GEMINI_FORMATS = {
    "STRING": {"enum", "date-time"},
    "INTEGER": {"int32", "int64"},
    "NUMBER": {"float", "double"},
}


# --- Issues and JSON paths ----------------------------------------------------

JsonPath = tuple  # str keys and int indices from the document root

_IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def json_path(path: JsonPath) -> str:
    out = "$"
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _IDENT_RE.match(part):
            out += f".{part}"
        else:
            out += f"[{json.dumps(part)}]"
    return out


@dataclass(frozen=True)
class Issue:
    path: JsonPath
    message: str

    def __str__(self) -> str:
        return f"{json_path(self.path)}: {self.message}"


class Issues:
    """Ordered issue list.

    Provider rules run first (most specific wording), then the declared-key
    walk, then SDK validation, which mostly re-reports the same spots: issues
    added with dedupe=True are dropped when an already reported path equals
    or contains them (e.g. SDK `enum[0]` under a rule issue at `enum`).
    File-level issues (empty path, e.g. the tool count) hide nothing.
    """

    def __init__(self) -> None:
        self.items: list[Issue] = []
        self._paths: set[JsonPath] = set()

    def add(self, path: JsonPath, message: str, *, dedupe: bool = False) -> None:
        if dedupe and any(p and tuple(path)[: len(p)] == p for p in self._paths):
            return
        self.items.append(Issue(tuple(path), message))
        self._paths.add(tuple(path))

    def under(self, prefix: JsonPath) -> bool:
        n = len(prefix)
        return any(p[:n] == tuple(prefix) for p in self._paths)


# --- Declared-key walk over SDK types ----------------------------------------

_WRAPPERS = {te.Required, te.NotRequired, te.ReadOnly, typing.Required, typing.NotRequired}
_SEQUENCE_ORIGINS = {
    list, tuple, set, frozenset,
    collections.abc.Sequence, collections.abc.MutableSequence,
    collections.abc.Iterable, collections.abc.Collection,
}
_MAPPING_ORIGINS = {dict, collections.abc.Mapping, collections.abc.MutableMapping}


def _unwrap(tp: Any) -> tuple[Any, str | None]:
    """Strip Annotated/Required/NotRequired/ReadOnly; report Required-ness."""
    requiredness = None
    while True:
        origin = te.get_origin(tp)
        if origin is te.Annotated:
            tp = te.get_args(tp)[0]
        elif origin in _WRAPPERS:
            if origin in (te.Required, typing.Required):
                requiredness = "required"
            elif origin in (te.NotRequired, typing.NotRequired):
                requiredness = "optional"
            tp = te.get_args(tp)[0]
        else:
            return tp, requiredness


def _union_members(tp: Any) -> tuple[Any, ...] | None:
    origin = te.get_origin(tp)
    if origin is typing.Union or origin is pytypes.UnionType:
        return te.get_args(tp)
    return None


def typeddict_keys(td: Any) -> tuple[dict[str, Any], set[str]]:
    """Return (declared key -> type, required keys) of a TypedDict.

    `__required_keys__` cannot be trusted for the SDKs: their modules use
    `from __future__ import annotations`, so at class creation the
    `Required[...]` wrappers are still strings and typing_extensions marks every
    key of a total=False class optional (e.g. openai 3.57
    FunctionToolParam.__required_keys__ == frozenset()).  The resolved hints do
    carry `Required[...]`, so required-ness is taken from them first.
    """
    hints = te.get_type_hints(td, include_extras=True)
    declared: dict[str, Any] = {}
    required: set[str] = set()
    for key, hint in hints.items():
        inner, requiredness = _unwrap(hint)
        declared[key] = inner
        if requiredness == "required" or (
            requiredness is None and key in getattr(td, "__required_keys__", ())
        ):
            required.add(key)
    return declared, required


def _allows_extra(td: Any) -> bool:
    # anthropic marks InputSchemaTyped with set_pydantic_config(extra="allow").
    config = getattr(td, "__pydantic_config__", None) or {}
    return config.get("extra") == "allow"


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, pydantic.BaseModel)


def declared_key_issues(value: Any, tp: Any, path: JsonPath) -> list[Issue]:
    """Unknown / missing keys of `value` against SDK type `tp`, recursively.

    Only key structure is judged; wrong scalar types are left to pydantic.
    """
    tp, _ = _unwrap(tp)
    if tp is Any or tp is object:
        return []
    if te.is_typeddict(tp):
        return _typeddict_issues(value, tp, path)
    if _is_model(tp):
        return _model_issues(value, tp, path)
    members = _union_members(tp)
    if members is not None:
        if value is None and type(None) in members:
            return []
        best: list[Issue] | None = None
        for member in members:
            if member is type(None) or not _shape_matches(value, member):
                continue
            found = declared_key_issues(value, member, path)
            if not found:
                return []
            if best is None or len(found) < len(best):
                best = found
        return best or []
    origin = te.get_origin(tp)
    args = te.get_args(tp)
    if origin in _SEQUENCE_ORIGINS and isinstance(value, list):
        item_tp = args[0] if args else Any
        return [i for n, item in enumerate(value) for i in declared_key_issues(item, item_tp, path + (n,))]
    if origin in _MAPPING_ORIGINS and isinstance(value, dict):
        value_tp = args[1] if len(args) == 2 else Any
        return [i for k, v in value.items() for i in declared_key_issues(v, value_tp, path + (k,))]
    return []


def _shape_matches(value: Any, tp: Any) -> bool:
    """Whether a union member could describe `value` (used to pick a branch)."""
    tp, _ = _unwrap(tp)
    if tp is Any or tp is object:
        return True
    if te.is_typeddict(tp) or _is_model(tp):
        return isinstance(value, dict)
    origin = te.get_origin(tp) or tp
    if origin in _MAPPING_ORIGINS:
        return isinstance(value, dict)
    if origin in _SEQUENCE_ORIGINS:
        return isinstance(value, list)
    if origin is te.Literal or origin is typing.Literal:
        return value in te.get_args(tp)
    if isinstance(origin, type):
        return isinstance(value, origin)
    return True


def _typeddict_issues(value: Any, td: Any, path: JsonPath) -> list[Issue]:
    if not isinstance(value, dict):
        return []
    declared, required = typeddict_keys(td)
    out: list[Issue] = []
    for key, item in value.items():
        if key in declared:
            out.extend(declared_key_issues(item, declared[key], path + (key,)))
        elif not _allows_extra(td):
            out.append(Issue(path + (key,), f"unknown key {key!r} (not declared in {td.__qualname__})"))
    for key in sorted(required - value.keys()):
        out.append(Issue(path + (key,), f"missing required key {key!r} ({td.__qualname__})"))
    return out


def _model_issues(value: Any, model: type[pydantic.BaseModel], path: JsonPath) -> list[Issue]:
    if not isinstance(value, dict):
        return []
    by_alias = {(f.alias or name): (name, f) for name, f in model.model_fields.items()}
    out: list[Issue] = []
    for key, item in value.items():
        if key in by_alias:
            out.extend(declared_key_issues(item, by_alias[key][1].annotation, path + (key,)))
        elif key in model.model_fields:
            alias = model.model_fields[key].alias
            out.append(Issue(path + (key,), f"key {key!r} must be written as its camelCase API name {alias!r} ({model.__name__})"))
        else:
            out.append(Issue(path + (key,), f"unknown key {key!r} (not a field of {model.__name__})"))
    # Required fields (none in google-genai: every field is Optional there).
    for name, f in model.model_fields.items():
        alias = f.alias or name
        if f.is_required() and alias not in value and name not in value:
            out.append(Issue(path + (alias,), f"missing required key {alias!r} ({model.__name__})"))
    return out


def pydantic_issues(exc: pydantic.ValidationError, data: Any, base: JsonPath, label: str) -> list[Issue]:
    """Translate a ValidationError into issues with real JSON paths.

    pydantic's `loc` interleaves union-branch tags (e.g. 'InputSchemaTyped')
    with data keys; tags that are not keys of the data at that point are
    dropped, except a trailing missing key.
    """
    out = []
    for err in exc.errors():
        path: list[Any] = []
        cur = data
        loc = err.get("loc", ())
        for n, part in enumerate(loc):
            if isinstance(cur, dict) and part in cur:
                path.append(part)
                cur = cur[part]
            elif isinstance(cur, list) and isinstance(part, int) and 0 <= part < len(cur):
                path.append(part)
                cur = cur[part]
            elif n == len(loc) - 1 and err.get("type") == "missing":
                path.append(part)
        out.append(Issue(base + tuple(path), f"{label}: {err.get('msg')} [{err.get('type')}]"))
    return out


# --- Schema traversal ----------------------------------------------------------

def json_subschemas(node: dict, path: JsonPath) -> Iterator[tuple[Any, JsonPath]]:
    """Immediate subschemas of a JSON Schema node (2020-12 and draft-7 forms)."""
    for kw in ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas"):
        sub = node.get(kw)
        if isinstance(sub, dict):
            for k, v in sub.items():
                yield v, path + (kw, k)
    for kw in ("items", "additionalProperties", "not", "if", "then", "else", "contains",
               "propertyNames", "unevaluatedProperties", "unevaluatedItems"):
        sub = node.get(kw)
        if isinstance(sub, dict):
            yield sub, path + (kw,)
    for kw in ("anyOf", "oneOf", "allOf", "prefixItems", "items"):
        sub = node.get(kw)
        if isinstance(sub, list):
            for n, v in enumerate(sub):
                yield v, path + (kw, n)


def _types_of(node: dict) -> set[str]:
    t = node.get("type")
    if isinstance(t, str):
        return {t}
    if isinstance(t, list):
        return {x for x in t if isinstance(x, str)}
    return set()


def check_json_schema(node: Any, path: JsonPath, issues: Issues) -> None:
    """Light JSON Schema sanity (OpenAI and Anthropic): well-formed keywords."""
    if isinstance(node, bool):
        return
    if not isinstance(node, dict):
        issues.add(path, f"schema must be an object or boolean, got {type(node).__name__}")
        return
    if "type" in node:
        t = node["type"]
        names = t if isinstance(t, list) else [t]
        if isinstance(t, list) and (not t or len(set(map(str, t))) != len(t)):
            issues.add(path + ("type",), "type array must be non-empty without duplicates")
        for name in names:
            if not isinstance(name, str) or name not in JSON_SCHEMA_TYPES:
                hint = " (JSON Schema types are lowercase)" if isinstance(name, str) and name.lower() in JSON_SCHEMA_TYPES else ""
                issues.add(path + ("type",), f"invalid JSON Schema type {name!r}{hint}")
    if "properties" in node and not isinstance(node["properties"], dict):
        issues.add(path + ("properties",), "properties must be an object")
    if "required" in node:
        req = node["required"]
        if not isinstance(req, list) or not all(isinstance(r, str) for r in req):
            issues.add(path + ("required",), "required must be an array of strings")
        elif len(set(req)) != len(req):
            issues.add(path + ("required",), "required has duplicate names")
    if "enum" in node and (not isinstance(node["enum"], list) or not node["enum"]):
        issues.add(path + ("enum",), "enum must be a non-empty array")
    if "description" in node and not isinstance(node["description"], str):
        issues.add(path + ("description",), "description must be a string")
    for sub, sub_path in json_subschemas(node, path):
        check_json_schema(sub, sub_path, issues)


def check_openai_strict(node: Any, path: JsonPath, issues: Issues, *, root: bool = False) -> None:
    """OpenAI Structured Outputs subset, required when `strict: true`."""
    if not isinstance(node, dict):
        return
    if root and "anyOf" in node:
        issues.add(path + ("anyOf",), "strict: root schema must be a plain object, not anyOf")
    for kw in OPENAI_STRICT_UNSUPPORTED:
        if kw in node:
            issues.add(path + (kw,), f"strict: keyword {kw!r} is not supported in strict mode")
    if "$ref" in node and len(node) > 1:
        siblings = sorted(k for k in node if k != "$ref")
        issues.add(path + ("$ref",), f"strict: $ref cannot have sibling keywords {siblings} (wrap in anyOf)")
    types_ = _types_of(node)
    if "object" in types_ or "properties" in node:
        if node.get("additionalProperties") is not False:
            issues.add(path + ("additionalProperties",), "strict: object schema needs additionalProperties: false")
        props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        req = node.get("required") if isinstance(node.get("required"), list) else []
        missing = [p for p in props if p not in req]
        extra = [r for r in req if r not in props]
        if missing:
            issues.add(path + ("required",), f"strict: every property must be required; missing {missing} (make optional ones nullable instead)")
        if extra:
            issues.add(path + ("required",), f"strict: required names not in properties: {extra}")
    if "array" in types_:
        items = node.get("items")
        if not isinstance(items, dict):
            issues.add(path + ("items",), "strict: array schema needs an `items` schema")
        elif not any(k in items for k in ("type", "$ref", "anyOf", "enum", "const")):
            issues.add(path + ("items",), "strict: array `items` must be typed")
    fmt = node.get("format")
    if isinstance(fmt, str) and "string" in types_ and fmt not in OPENAI_STRICT_FORMATS:
        issues.add(path + ("format",), f"strict: string format {fmt!r} not supported (allowed: {sorted(OPENAI_STRICT_FORMATS)})")
    for sub, sub_path in json_subschemas(node, path):
        check_openai_strict(sub, sub_path, issues)


def check_anthropic_strict(node: Any, path: JsonPath, issues: Issues) -> None:
    """Anthropic strict tools: every object closes additionalProperties."""
    if not isinstance(node, dict):
        return
    if ("object" in _types_of(node) or "properties" in node) and node.get("additionalProperties") is not False:
        issues.add(path + ("additionalProperties",), "strict: object schema needs additionalProperties: false")
    for sub, sub_path in json_subschemas(node, path):
        check_anthropic_strict(sub, sub_path, issues)


def check_gemini_schema(node: Any, path: JsonPath, issues: Issues) -> None:
    """Gemini `Schema` (OpenAPI 3.0 subset) rules, recursively."""
    if not isinstance(node, dict):
        issues.add(path, f"schema must be an object, got {type(node).__name__}")
        return
    for kw, why in GEMINI_FORBIDDEN_KEYWORDS.items():
        if kw in node:
            issues.add(path + (kw,), f"{kw!r} is not allowed in a Gemini schema: {why}")

    t = node.get("type")
    if "type" not in node:
        # The API rejects typeless nodes unless they are an anyOf union (a
        # typeless $ref node is already reported as a forbidden keyword).
        if not any(k in node for k in ("anyOf", "$ref", "ref")):
            issues.add(path + ("type",), "missing type (required unless anyOf is used)")
    elif isinstance(t, list):
        issues.add(path + ("type",), f"type must be a single string, not an array {t!r} (use nullable: true for null)")
        t = None
    elif not isinstance(t, str) or t.upper() not in GEMINI_TYPES:
        issues.add(path + ("type",), f"invalid Gemini type {t!r}; expected one of {sorted(GEMINI_TYPES)}")
        t = None
    else:
        # Upper case is canonical, but the SDK's Type is a CaseInSensitiveEnum and the REST API
        # takes lower case too (its own REST examples use it: provider-rules.json, gemini
        # type_casing): a declaration written in lower case is sent as written.
        t = t.upper()

    if "enum" in node:
        enum = node["enum"]
        if t != "STRING":
            issues.add(path + ("enum",), f"enum is only allowed on type STRING (type is {t!r})")
        elif not isinstance(enum, list) or not enum or not all(isinstance(v, str) for v in enum):
            issues.add(path + ("enum",), "enum must be a non-empty array of strings")

    fmt = node.get("format")
    if fmt is not None and t is not None:
        allowed = GEMINI_FORMATS.get(t, set())
        if fmt not in allowed:
            issues.add(path + ("format",), f"format {fmt!r} not allowed on {t} (allowed: {sorted(allowed) or 'none'})")

    props = node.get("properties")
    if "properties" in node:
        if t is not None and t != "OBJECT":
            issues.add(path + ("properties",), f"properties only allowed on type OBJECT (type is {t})")
        if not isinstance(props, dict):
            issues.add(path + ("properties",), "properties must be an object")
            props = None
        else:
            for name in props:
                if not GEMINI_PARAM_NAME_RE.match(name):
                    issues.add(path + ("properties", name), f"parameter name {name!r} does not match {GEMINI_PARAM_NAME_RE.pattern}")
    if t == "OBJECT" and not props:
        # API: "parameters.properties: should be non-empty for OBJECT type".
        issues.add(path + ("properties",), "OBJECT schema needs non-empty properties (omit `parameters` for a tool without parameters)")

    if "required" in node:
        req = node["required"]
        if not isinstance(req, list) or not all(isinstance(r, str) for r in req):
            issues.add(path + ("required",), "required must be an array of strings")
        else:
            unknown = [r for r in req if not isinstance(props, dict) or r not in props]
            if unknown:
                issues.add(path + ("required",), f"required names not in properties: {unknown}")
            if len(set(req)) != len(req):
                issues.add(path + ("required",), "required has duplicate names")

    ordering = node.get("propertyOrdering")
    if isinstance(ordering, list) and isinstance(props, dict):
        unknown = [p for p in ordering if p not in props]
        if unknown:
            issues.add(path + ("propertyOrdering",), f"propertyOrdering names not in properties: {unknown}")

    if "items" in node and t is not None and t != "ARRAY":
        # API: "items: field predicate failed: $type == Type.ARRAY".
        issues.add(path + ("items",), f"items only allowed on type ARRAY (type is {t})")
    if t == "ARRAY" and "items" not in node:
        # API: "...items: missing field."
        issues.add(path + ("items",), "ARRAY schema needs items")

    if isinstance(props, dict):
        for name, sub in props.items():
            check_gemini_schema(sub, path + ("properties", name), issues)
    if "items" in node:
        check_gemini_schema(node["items"], path + ("items",), issues)
    any_of = node.get("anyOf")
    if any_of is not None:
        if not isinstance(any_of, list) or not any_of:
            issues.add(path + ("anyOf",), "anyOf must be a non-empty array")
        else:
            for n, sub in enumerate(any_of):
                check_gemini_schema(sub, path + ("anyOf", n), issues)


# --- Provider checks -------------------------------------------------------------

def _openai_chat_function_tool_type() -> Any:
    """The function variant of the Chat Completions tool param TypedDict.

    openai 3.x: ChatCompletionToolParam is an alias of
    ChatCompletionFunctionToolParam (function: Required[FunctionDefinition]);
    ChatCompletionToolUnionParam adds the custom-tool variant.  Older or newer
    releases may turn the name into a union, so pick the member with `function`.
    """
    from openai.types import chat

    for name in ("ChatCompletionFunctionToolParam", "ChatCompletionToolParam", "ChatCompletionToolUnionParam"):
        tp = getattr(chat, name, None)
        if tp is None:
            continue
        for member in _union_members(tp) or (tp,):
            if te.is_typeddict(member) and "function" in typeddict_keys(member)[0]:
                return member
    raise RuntimeError("openai SDK has no function-tool TypedDict in openai.types.chat")


def _sdk_validate(adapter: pydantic.TypeAdapter, tool: Any, path: JsonPath, label: str, issues: Issues) -> None:
    # Strict JSON-mode validation: the input is JSON on the wire, and lax mode
    # would coerce e.g. "yes" into True.
    try:
        adapter.validate_json(json.dumps(tool), strict=True, extra="forbid")
    except pydantic.ValidationError as exc:
        for issue in pydantic_issues(exc, tool, path, label):
            issues.add(issue.path, issue.message, dedupe=True)


def _is_tool_object(tool: Any, path: JsonPath, issues: Issues) -> bool:
    if not isinstance(tool, dict):
        issues.add(path, f"tool must be an object, got {type(tool).__name__}")
        return False
    return True


def _check_name(name: Any, regex: re.Pattern, path: JsonPath, seen: dict[str, JsonPath], issues: Issues) -> None:
    if not isinstance(name, str):
        return  # missing / non-string name is reported by the SDK type checks
    if not regex.match(name):
        issues.add(path, f"tool name {name!r} does not match {regex.pattern}")
    if name in seen:
        issues.add(path, f"duplicate tool name {name!r} (first at {json_path(seen[name])})")
    else:
        seen[name] = path


def _check_openai_description(desc: Any, path: JsonPath, issues: Issues) -> None:
    if isinstance(desc, str) and len(desc) > OPENAI_DESCRIPTION_MAX:
        issues.add(path, f"description is {len(desc)} chars; OpenAI allows at most {OPENAI_DESCRIPTION_MAX}")


def _check_root_object(schema: Any, path: JsonPath, issues: Issues, what: str) -> bool:
    if not isinstance(schema, dict):
        issues.add(path, f"{what} must be a JSON Schema object, got {type(schema).__name__}")
        return False
    if schema.get("type") != "object":
        issues.add(path + ("type",), f"{what} root must have type \"object\" (got {schema.get('type')!r})")
    return True


class Checker:
    """Checks one parsed file; SDK types are imported on first use.

    Importing is lazy because the SDK packages are slow to import (anthropic
    alone takes ~1.5 s) and one run usually needs only one provider.
    """

    @functools.cached_property
    def chat_tool_td(self) -> Any:
        return _openai_chat_function_tool_type()

    @functools.cached_property
    def responses_tool_td(self) -> Any:
        from openai.types.responses import FunctionToolParam

        return FunctionToolParam

    @functools.cached_property
    def anthropic_tool_td(self) -> Any:
        from anthropic.types import ToolParam

        return ToolParam

    @functools.cached_property
    def gemini_tool_model(self) -> type[pydantic.BaseModel]:
        from google.genai import types as gtypes

        return gtypes.Tool

    def adapter(self, td: Any) -> pydantic.TypeAdapter:
        # Building a TypeAdapter compiles a validator; do it once per type.
        cache = self.__dict__.setdefault("_adapters", {})
        if td not in cache:
            cache[td] = pydantic.TypeAdapter(td)
        return cache[td]

    def check(self, provider: str, data: Any) -> tuple[int, list[Issue]]:
        issues = Issues()
        if not isinstance(data, list):
            issues.add((), f"tools must be a JSON array, got {type(data).__name__}")
            return 0, issues.items
        check: Callable[[Any, Issues], int] = {
            "openai": self._check_openai,
            "openai-responses": self._check_responses,
            "anthropic": self._check_anthropic,
            "gemini": self._check_gemini,
        }[provider]
        count = check(data, issues)
        if count > MAX_TOOLS:
            issues.add((), f"{count} tools; at most {MAX_TOOLS} are allowed")
        return count, issues.items

    # openai Chat Completions ------------------------------------------------
    def _check_openai(self, tools: list, issues: Issues) -> int:
        seen: dict[str, JsonPath] = {}
        for n, tool in enumerate(tools):
            path = (n,)
            if not _is_tool_object(tool, path, issues):
                continue
            fn = tool.get("function")
            if isinstance(fn, dict):
                fpath = path + ("function",)
                _check_name(fn.get("name"), OPENAI_NAME_RE, fpath + ("name",), seen, issues)
                _check_openai_description(fn.get("description"), fpath + ("description",), issues)
                if "parameters" in fn:
                    self._check_openai_parameters(fn["parameters"], fpath + ("parameters",), fn.get("strict") is True, issues)
            for issue in declared_key_issues(tool, self.chat_tool_td, path):
                issues.add(issue.path, issue.message, dedupe=True)
            _sdk_validate(self.adapter(self.chat_tool_td), tool, path, self.chat_tool_td.__name__, issues)
        return len(tools)

    @staticmethod
    def _check_openai_parameters(params: Any, path: JsonPath, strict: bool, issues: Issues) -> None:
        if not _check_root_object(params, path, issues, "parameters"):
            return
        check_json_schema(params, path, issues)
        if strict:
            check_openai_strict(params, path, issues, root=True)

    # openai Responses -------------------------------------------------------
    def _check_responses(self, tools: list, issues: Issues) -> int:
        seen: dict[str, JsonPath] = {}
        for n, tool in enumerate(tools):
            path = (n,)
            if not _is_tool_object(tool, path, issues):
                continue
            _check_name(tool.get("name"), OPENAI_NAME_RE, path + ("name",), seen, issues)
            _check_openai_description(tool.get("description"), path + ("description",), issues)
            # FunctionToolParam: parameters is Required[Optional[...]]; null is
            # accepted by the SDK, anything else must be an object schema.
            if tool.get("parameters") is not None:
                # `strict: null` leaves the server default, which is true.
                strict = tool.get("strict", True) in (True, None)
                self._check_openai_parameters(tool["parameters"], path + ("parameters",), strict, issues)
            for issue in declared_key_issues(tool, self.responses_tool_td, path):
                issues.add(issue.path, issue.message, dedupe=True)
            _sdk_validate(self.adapter(self.responses_tool_td), tool, path, self.responses_tool_td.__name__, issues)
        return len(tools)

    # anthropic --------------------------------------------------------------
    def _check_anthropic(self, tools: list, issues: Issues) -> int:
        seen: dict[str, JsonPath] = {}
        for n, tool in enumerate(tools):
            path = (n,)
            if not _is_tool_object(tool, path, issues):
                continue
            _check_name(tool.get("name"), ANTHROPIC_NAME_RE, path + ("name",), seen, issues)
            if "input_schema" in tool:
                schema = tool["input_schema"]
                spath = path + ("input_schema",)
                if _check_root_object(schema, spath, issues, "input_schema"):
                    check_json_schema(schema, spath, issues)
                    if tool.get("strict") is True:
                        check_anthropic_strict(schema, spath, issues)
            for issue in declared_key_issues(tool, self.anthropic_tool_td, path):
                issues.add(issue.path, issue.message, dedupe=True)
            _sdk_validate(self.adapter(self.anthropic_tool_td), tool, path, self.anthropic_tool_td.__name__, issues)
        return len(tools)

    # gemini -----------------------------------------------------------------
    def _check_gemini(self, tools: list, issues: Issues) -> int:
        if not tools:
            return 0
        # promptc emits a single Tool holding every function declaration.
        if len(tools) != 1:
            issues.add((), f"expected exactly one Tool element holding all functionDeclarations, got {len(tools)}")
        seen: dict[str, JsonPath] = {}
        count = 0
        for n, tool in enumerate(tools):
            path = (n,)
            if not _is_tool_object(tool, path, issues):
                continue
            # A snake_case key is reported by the declared-key walk; still
            # check its declarations so the other rules are applied too.
            key = "function_declarations" if "function_declarations" in tool else "functionDeclarations"
            decls = tool.get(key)
            if not isinstance(decls, list) or not decls:
                issues.add(path + (key,), "expected a non-empty functionDeclarations array")
                decls = []
            count += len(decls)
            for d, decl in enumerate(decls):
                self._check_gemini_declaration(decl, path + (key, d), seen, issues)
            for issue in declared_key_issues(tool, self.gemini_tool_model, path):
                issues.add(issue.path, issue.message, dedupe=True)
            self._gemini_sdk_validate(tool, path, issues)
        return count

    @staticmethod
    def _check_gemini_declaration(decl: Any, path: JsonPath, seen: dict[str, JsonPath], issues: Issues) -> None:
        if not isinstance(decl, dict):
            issues.add(path, f"function declaration must be an object, got {type(decl).__name__}")
            return
        if "name" not in decl:
            # The SDK types every field Optional, but the API requires a name.
            issues.add(path + ("name",), "missing required key 'name'")
        _check_name(decl.get("name"), GEMINI_NAME_RE, path + ("name",), seen, issues)
        for a, b in (("parameters", "parametersJsonSchema"), ("response", "responseJsonSchema")):
            if a in decl and b in decl:
                issues.add(path + (b,), f"{a!r} and {b!r} are mutually exclusive")
        if "parameters" in decl:
            params = decl["parameters"]
            ppath = path + ("parameters",)
            if isinstance(params, dict) and str(params.get("type")).upper() != "OBJECT":
                issues.add(ppath + ("type",), f"parameters root must have type \"OBJECT\" (got {params.get('type')!r})")
            check_gemini_schema(params, ppath, issues)

    def _gemini_sdk_validate(self, tool: dict, path: JsonPath, issues: Issues) -> None:
        # Strict JSON mode as in _sdk_validate (JSON mode still accepts enum
        # values such as "STRING").  google-genai's BaseModel already sets
        # extra="forbid", but also populate_by_name=True; by_name=False makes
        # snake_case keys count as unknown, so only the API's camelCase aliases
        # pass.  extra="forbid" is passed anyway (it applies to every nested
        # model) so this holds even if a release relaxes the model config.
        label = f"google.genai.types.{self.gemini_tool_model.__name__}"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                self.gemini_tool_model.model_validate_json(
                    json.dumps(tool), strict=True, extra="forbid", by_alias=True, by_name=False
                )
            except pydantic.ValidationError as exc:
                for issue in pydantic_issues(exc, tool, path, label):
                    issues.add(issue.path, issue.message, dedupe=True)
            except Exception as exc:  # noqa: BLE001 - SDK enum code raises raw errors
                # e.g. Type._missing_ does value.upper() and raises
                # AttributeError for a type array; only worth showing when the
                # rule checks did not already explain the problem.
                if not issues.under(path):
                    issues.add(path, f"{label} rejected it: {type(exc).__name__}: {exc}")
        for w in caught:
            # CaseInSensitiveEnum accepts unknown values with only a warning.
            if not issues.under(path):
                issues.add(path, f"{label} warned: {w.message}")


# --- CLI -------------------------------------------------------------------------

class Unreadable(Exception):
    pass


def load_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise Unreadable(f"cannot read: {exc}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise Unreadable(f"invalid JSON: {exc}") from exc


def discover(directory: Path) -> list[tuple[str, Path]]:
    found = []
    for p in sorted(directory.rglob("*.tools.json")):
        m = FILE_RE.match(p.name)
        if m and p.is_file():
            found.append((m.group("provider"), p))
    return found


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Check promptc `tools` JSON against provider SDK types and rules.",
    )
    parser.add_argument("--provider", choices=PROVIDERS, help="provider of every FILE")
    parser.add_argument("--dir", type=Path, help="check every *.native.<provider>.tools.json under DIR")
    parser.add_argument("files", nargs="*", type=Path, metavar="FILE")
    args = parser.parse_args(argv)
    if args.dir is not None:
        if args.provider or args.files:
            parser.error("--dir cannot be combined with --provider or FILE arguments")
        if not args.dir.is_dir():
            parser.error(f"--dir {args.dir}: not a directory")
    elif not args.provider or not args.files:
        parser.error("give --provider PROVIDER FILE... or --dir DIR")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.dir is not None:
        jobs = discover(args.dir)
        if not jobs:
            print(f"error: no *.native.<provider>.tools.json files under {args.dir}", file=sys.stderr)
            return 2
    else:
        jobs = [(args.provider, f) for f in args.files]

    checker = Checker()
    status = 0
    for provider, path in jobs:
        try:
            data = load_json(path)
        except Unreadable as exc:
            print(f"FAIL {path}: {exc}")
            status = 2
            continue
        count, found = checker.check(provider, data)
        if found:
            print(f"FAIL {path}: " + " | ".join(str(i) for i in found))
            status = max(status, 1)
        else:
            print(f"ok {path} ({count} tools)")
    return status


if __name__ == "__main__":
    sys.exit(main())

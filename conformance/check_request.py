#!/usr/bin/env python3
"""Validate an Anthropic request fragment promptc emits (`render --format json`'s
`anthropic_request`: the `system` blocks and the `tools`, with prompt-caching breakpoints)
against the anthropic SDK's own request types.

Usage: check_request.py FILE...   (each FILE: the JSON of `render --format json --provider anthropic`)
Prints `ok FILE` for each valid file and `FAIL FILE` with its validation errors for each other;
exits 0 when every file is valid, else 1 (one run checks them all: importing the SDK is most of
its time).
"""

from __future__ import annotations

import json
import sys

import pydantic
from anthropic.types import TextBlockParam, ToolParam


def problems(path: str) -> list[str]:
    """What is wrong with the request in the file at `path` (nothing when it is valid)."""
    doc = json.load(open(path, encoding="utf-8"))
    request = doc["anthropic_request"]
    errors = []
    for name, typ in (("system", list[TextBlockParam]), ("tools", list[ToolParam])):
        try:
            pydantic.TypeAdapter(typ).validate_python(request[name], strict=True)
        except pydantic.ValidationError as e:
            errors.append(f"{name}: {e}")
    text = "".join(block["text"] for block in request["system"])
    if text != doc["prompt"]:
        errors.append("system: the blocks do not add up to the prompt")
    breakpoints = [b for b in request["system"] if "cache_control" in b]
    if len(breakpoints) > 1 or request["tools"] and "cache_control" not in request["tools"][-1]:
        errors.append("cache_control: expected one system breakpoint and one on the last tool")
    return errors


def main() -> int:
    if len(sys.argv) < 2:
        print("usage: check_request.py FILE...", file=sys.stderr)
        return 2
    status = 0
    for path in sys.argv[1:]:
        errors = problems(path)
        if errors:
            print(f"FAIL {path}:\n" + "\n".join(errors))
            status = 1
        else:
            print(f"ok {path}")
    return status


if __name__ == "__main__":
    sys.exit(main())

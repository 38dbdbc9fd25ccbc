#!/usr/bin/env python3
"""Validate an Anthropic request fragment promptc emits (`render --format json`'s
`anthropic_request`: the `system` blocks and the `tools`, with prompt-caching breakpoints)
against the anthropic SDK's own request types.

Usage: check_request.py FILE   (FILE: the JSON of `render --format json --provider anthropic`)
Prints `ok` and exits 0, or prints the validation errors and exits 1.
"""

from __future__ import annotations

import json
import sys

import pydantic
from anthropic.types import TextBlockParam, ToolParam


def main() -> int:
    doc = json.load(open(sys.argv[1], encoding="utf-8"))
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
    if errors:
        print("\n".join(errors))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

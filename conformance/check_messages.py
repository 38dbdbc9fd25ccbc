#!/usr/bin/env python3
"""Validate the harness messages promptc emits (`render --format json --provider P`'s
`messages`) against each provider SDK's own message types: anthropic `MessageParam`, openai
`ChatCompletionMessageParam`, OpenAI Responses `EasyInputMessageParam` (an assistant's
`output_text` blocks as `ResponseOutputTextParam`), google-genai `Content`.

Usage: check_messages.py PROVIDER=FILE...
Prints `ok FILE` for each valid file and `FAIL FILE` with its errors for each other; exits 0
when every file is valid, else 1.
"""

from __future__ import annotations

import json
import sys

import pydantic
from anthropic.types import MessageParam
from google.genai import types as genai
from openai.types.chat import ChatCompletionMessageParam
from openai.types.responses import EasyInputMessageParam, ResponseOutputTextParam


def problems(provider: str, messages: list) -> list[str]:
    """What is wrong with `messages` for `provider` (nothing when they are valid)."""
    errors = []

    def check(typ, value, what):
        try:
            pydantic.TypeAdapter(typ).validate_python(value, strict=True)
        except pydantic.ValidationError as e:
            errors.append(f"{what}: {e}")

    for i, m in enumerate(messages):
        what = f"message {i + 1}"
        if provider == "anthropic":
            check(MessageParam, m, what)
        elif provider == "openai":
            check(ChatCompletionMessageParam, m, what)
        elif provider == "openai-responses":
            if m.get("role") == "assistant" and isinstance(m.get("content"), list):
                for block in m["content"]:
                    check(ResponseOutputTextParam, block, what)
            else:
                check(EasyInputMessageParam, m, what)
        elif provider == "gemini":
            try:
                genai.Content.model_validate(m, strict=True)
            except pydantic.ValidationError as e:
                errors.append(f"{what}: {e}")
            if m.get("role") not in ("user", "model"):
                errors.append(f"{what}: Gemini's roles are `user` and `model`")
        else:
            errors.append(f"unknown provider {provider}")
    return errors


def main() -> int:
    if len(sys.argv) < 2:
        print("usage: check_messages.py PROVIDER=FILE...", file=sys.stderr)
        return 2
    status = 0
    for arg in sys.argv[1:]:
        provider, _, path = arg.partition("=")
        doc = json.load(open(path, encoding="utf-8"))
        errors = problems(provider, doc.get("messages", []))
        if not doc.get("messages"):
            errors.append("no messages")
        if errors:
            print(f"FAIL {path}:\n" + "\n".join(errors))
            status = 1
        else:
            print(f"ok {path}")
    return status


if __name__ == "__main__":
    sys.exit(main())

"""A minimal agent loop: pick a cell at run time, compile it, and build a real SDK request
object from it (openai and anthropic request types, validated by pydantic; no network)."""

import collections.abc
import typing

import pydantic
import typing_extensions
import pytest
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming

import promptc


def validate(typ, request: dict) -> None:
    """Validate strictly. pydantic checks the items of `Iterable[...]` fields (the SDKs type
    `messages` and `tools` so) only when they are iterated, so those fields are validated
    again as lists of their item type."""
    pydantic.TypeAdapter(typ).validate_python(request, strict=True)
    for key, hint in typing.get_type_hints(typ).items():
        while typing.get_origin(hint) in (typing_extensions.Required, typing_extensions.NotRequired):
            hint = typing.get_args(hint)[0]
        if typing.get_origin(hint) is collections.abc.Iterable and key in request:
            pydantic.TypeAdapter(list[typing.get_args(hint)[0]]).validate_python(request[key], strict=True)


def agent_turn(project: promptc.Project, model: str, provider: str, task: str, cwd: str) -> dict:
    """What an agent does when a task starts: choose the cell from the model and runtime
    values, compile it, and assemble the provider's request."""
    cell = project.compile(model=model, provider=provider, variables={"cwd": cwd},
                           switches={"browser": True})
    if provider == "anthropic":
        request = cell.anthropic_request()
        return {"model": model, "max_tokens": 1024, "system": request["system"], "tools": request["tools"],
                "messages": [{"role": "user", "content": task}]}
    if provider == "openai":
        return {"model": model, "tools": cell.tools,
                "messages": [{"role": "system", "content": cell.prompt}, {"role": "user", "content": task}]}
    if provider == "openai-responses":
        return {"model": model, "instructions": cell.prompt, "tools": cell.tools, "input": task}
    raise AssertionError(provider)


@pytest.mark.parametrize(
    "provider,model,typ",
    [
        ("openai", "gpt-4.1", CompletionCreateParamsNonStreaming),
        ("openai-responses", "gpt-4.1", ResponseCreateParamsNonStreaming),
        ("anthropic", "claude-sonnet-4-5", MessageCreateParamsNonStreaming),
    ],
)
def test_request_validates_against_the_sdk_types(example, provider, model, typ):
    request = agent_turn(example, model, provider, "Fix the failing test in src/app.ts", "/work/app")
    validate(typ, request)
    assert request["tools"], "the cell sends tools"
    if provider == "anthropic":
        assert "".join(b["text"] for b in request["system"]).find("/work/app") >= 0
    else:
        text = request.get("instructions") or request["messages"][0]["content"]
        assert "/work/app" in text


def test_a_broken_request_fails_validation(example):
    """The validation is real: a tools list in the wrong shape is rejected."""
    request = agent_turn(example, "claude-sonnet-4-5", "anthropic", "hi", "/w")
    request["tools"] = [{"name": t["name"], "parameters": t["input_schema"]} for t in request["tools"]]
    with pytest.raises(pydantic.ValidationError):
        validate(MessageCreateParamsNonStreaming, request)

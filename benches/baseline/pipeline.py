#!/usr/bin/env python3
"""The minimal Python pipeline a team would write instead of promptc, for issue 29's
side-by-side figure: read the example's promptc.yaml and tool files (PyYAML), render the
standard profile's template sections and the layout (Jinja2), write the tools as OpenAI
function JSON, and count the prompt's and the tools' tokens with tiktoken's o200k_base.

It does less than `promptc report` (no switches' conditions on tools, no slots, no budgets,
no checks), so the comparison favours it. Nothing is downloaded: o200k_base is read from the
tiktoken-rs crate's copy of the file, as `scripts/token-golden.py` does.

Usage: pipeline.py PROJECT_DIR VOCAB_FILE   (prints the token counts)
"""

import json
import os
import sys

import jinja2
import tiktoken
import yaml
from tiktoken.load import load_tiktoken_bpe
from tiktoken_ext import openai_public


def main() -> int:
    project, vocab = sys.argv[1], sys.argv[2]
    manifest = yaml.safe_load(open(os.path.join(project, "promptc.yaml"), encoding="utf-8"))
    tools = []
    for rel in manifest["tools"]:
        tools.extend(yaml.safe_load(open(os.path.join(project, rel), encoding="utf-8")))
    variables = {k: v.get("default", "") for k, v in manifest.get("variables", {}).items()}
    switches = {k: v.get("default", False) for k, v in manifest.get("switches", {}).items()}
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(project), trim_blocks=True, lstrip_blocks=True)
    context = dict(variables, switches=switches, **{k: v for k, v in switches.items() if isinstance(v, bool)})
    context.update(tools=tools, tool_names=[t["name"] for t in tools], profile="standard", transport="native")
    sections = {}
    for sid in manifest["profiles"]["standard"]["sections"]:
        decl = manifest["sections"][sid]
        if "template" in decl:
            try:
                sections[sid] = env.get_template(decl["template"]).render(context).strip()
            except jinja2.TemplateError:
                sections[sid] = ""
        elif "text" in decl:
            sections[sid] = decl["text"].strip()
    sections = {k: v for k, v in sections.items() if v}
    prompt = env.get_template(manifest["layout"]).render(dict(context, sections=sections, body=""))
    functions = [
        {
            "type": "function",
            "function": {
                "name": t["name"],
                "description": t["description"],
                "parameters": {"type": "object", "properties": t.get("parameters", {})},
            },
        }
        for t in tools
    ]
    # The encoding as tiktoken builds it from a cached vocab file.
    original = openai_public.load_tiktoken_bpe
    openai_public.load_tiktoken_bpe = lambda *_a, **_k: load_tiktoken_bpe(vocab)
    try:
        spec = openai_public.o200k_base()
    finally:
        openai_public.load_tiktoken_bpe = original
    enc = tiktoken.Encoding(**spec)
    print(json.dumps({"prompt": len(enc.encode_ordinary(prompt)), "tools": len(enc.encode_ordinary(json.dumps(functions)))}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The reference for `promptc render --transport chat`: transformers' own `apply_chat_template`.

    chat_reference.py REQUEST.json

REQUEST is {"template": PATH, "name": NAME|null, "messages": [...], "tools": [...]|null,
"variables": {...}, "date": "YYYY-MM-DD"}. PATH is a `.jinja` file or a tokenizer_config.json
(whose `chat_template` may be a list of named templates, chosen by transformers' own rule).
Prints {"text": ...} or {"error": ...} as JSON on stdout.

The template runs exactly as a server runs it: a tokenizer's `apply_chat_template(messages,
tools=tools, tokenize=False, add_generation_prompt=True, **variables)`. The tokenizer is a
minimal one with no special tokens of its own, so the template sees only the variables given
(as promptc's defaults: `bos_token` and `eos_token` empty unless set). `strftime_now` reads
`datetime.now()` in transformers' module: it is pinned to the request's date.
"""

import datetime as real_datetime
import json
import sys

from tokenizers import Tokenizer, models
from transformers import PreTrainedTokenizerFast
from transformers.utils import chat_template_utils


def pin_date(ymd):
    day = real_datetime.datetime.strptime(ymd, "%Y-%m-%d")

    class Pinned(real_datetime.datetime):
        @classmethod
        def now(cls, tz=None):
            return day

    chat_template_utils.datetime = Pinned


def tokenizer_for(path, name):
    tok = PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.BPE()))
    with open(path, encoding="utf-8") as f:
        text = f.read()
    special = {}
    if path.endswith(".json"):
        config = json.loads(text)
        template = config["chat_template"]
        if isinstance(template, list):
            template = {t["name"]: t["template"] for t in template}
        for key in ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"):
            value = config.get(key)
            if isinstance(value, dict):
                value = value.get("content")
            if isinstance(value, str):
                special[key] = value
    else:
        template = text
    tok.chat_template = template
    return tok, special


def render(request):
    pin_date(request["date"])
    tok, special = tokenizer_for(request["template"], request.get("name"))
    variables = {"bos_token": "", "eos_token": "", **special, **request.get("variables", {})}
    kwargs = {}
    if request.get("name"):
        kwargs["chat_template"] = request["name"]
    return tok.apply_chat_template(
        request["messages"],
        tools=request.get("tools"),
        tokenize=False,
        add_generation_prompt=True,
        **kwargs,
        **variables,
    )


def render_request(request):
    """{"text": ...}, or {"error": ...} when transformers fails."""
    try:
        return {"text": render(request)}
    except Exception as e:  # every failure of the template is an answer: promptc must fail too
        return {"error": f"{type(e).__name__}: {e}"}


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        json.dump(render_request(json.load(f)), sys.stdout)


if __name__ == "__main__":
    main()

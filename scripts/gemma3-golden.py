#!/usr/bin/env python3
"""Golden Gemma 3 token counts and token starts for crates/promptc/src/measure/tokens/gemma_tests.rs.

SentencePiece itself (the `sentencepiece` package google-genai's LocalTokenizer runs) encodes a
set of texts with the model in crates/promptc/models/ (never downloaded); the file records each text's count
and where each token starts (byte offsets in the text, from SentencePiece's own offsets).

    scripts/gemma3-golden.py --write tests/golden/gemma3.json   # regenerate
    scripts/gemma3-golden.py --check tests/golden/gemma3.json   # re-verify (CI)
"""
import json
import random
import sys
from pathlib import Path

import sentencepiece as spm

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "crates" / "promptc" / "models" / "gemma3_cleaned_262144_v2.spiece.model"


def texts():
    fixed = [
        "", " ", "  ", "   leading", "trailing   ", "What is your name?", "Hello, world!",
        "a\t\tb\n\n\n  c", "\n" * 40, "\t" * 70, " " * 70, "<start_of_turn>user\nhi<end_of_turn>",
        "<unused5> x <unused17><b>bold</b>", "<table><tr><td>1</td></tr></table>",
        "[multimodal]",
        "日本語のテキスト 🎉👍🏽", "é\u0301 ﬁ ～ Ω", "    def f():\n        return 1\n",
        "▁already▁meta ▁", "x" * 1000, "\r\n\r\n", "\ufffd\u200b\u2028\u00a0", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 \U0010ffff",
        '{"functionDeclarations":[{"name":"read_file","description":"Read a file.","parameters":'
        '{"type":"OBJECT","properties":{"path":{"type":"STRING"}},"required":["path"]}}]}',
        "The quick brown fox jumps over the lazy dog. 1234567890 3.14159",
        "ᚠᛇᚻ᛫ᛒᛦᚦ ⠊⠀⠉⠁⠝ ქართული հայերեն ꦧꦱꦗꦮ",
    ]
    rng = random.Random(47)
    alphabet = " \n\t<>{}[]\"'/abcXYZ0123_-.,:éü中文🎉▁ᚠ\u0301"
    generated = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 60))) for _ in range(200)]
    return fixed + generated


def golden():
    sp = spm.SentencePieceProcessor()
    sp.LoadFromSerializedProto(MODEL.read_bytes())
    cases = []
    for t in texts():
        ids = sp.encode(t)
        # Where each token starts, in bytes of the text. SentencePiece encodes the text with each
        # space as `▁` (U+2581, three bytes): a token is its piece's bytes there (a byte piece,
        # `<0xE2>`, one byte), mapped back to the text's bytes.
        back, at = [], 0
        for c in t:
            if c == " ":
                back.extend([at] * 3)
            else:
                back.extend(at + k for k in range(len(c.encode())))
            at += len(c.encode())
        back.append(at)
        starts, at = [], 0
        for i in ids:
            starts.append(back[at])
            at += 1 if sp.IsByte(i) else len(sp.IdToPiece(i).encode())
        assert at == len(back) - 1, t
        cases.append({"text": t, "count": len(ids), "starts": starts})
    return {"model_sha256": "1299c11d7cf632ef3b4e11937501358ada021bbdf7c47638d13c0ee982f2e79c",
            "sentencepiece": spm.__version__, "cases": cases}


def main():
    mode, path = sys.argv[1], Path(sys.argv[2])
    data = json.dumps(golden(), ensure_ascii=False, indent=1) + "\n"
    if mode == "--write":
        path.write_text(data, encoding="utf-8")
    elif path.read_text(encoding="utf-8") != data:
        sys.exit(f"{path} differs from SentencePiece's counts: regenerate with --write and review")


if __name__ == "__main__":
    main()

"""The promptc binary the conformance tests run: $PROMPTC_BIN, else target/debug/promptc;
None when neither exists (the tests that need it are then skipped, saying how to build it)."""

import os
import pathlib

REPO = pathlib.Path(__file__).resolve().parent.parent


def find_binary():
    for c in (os.environ.get("PROMPTC_BIN"), str(REPO / "target" / "debug" / "promptc")):
        if c and pathlib.Path(c).is_file() and os.access(c, os.X_OK):
            return str(pathlib.Path(c).resolve())
    return None


BIN = find_binary()

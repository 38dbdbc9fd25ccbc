"""The build backend of the repository's root pyproject.toml: a wheel with no code that
depends on the `promptc-cli` wheel of this checkout's version.

Why: pre-commit installs a `language: python` hook repository with `pip install .` at its
root. The root is the Rust crate, and building the real wheel there would compile the compiler
(20 minutes on 2 cores); this package instead pulls the prebuilt `promptc-cli` wheel, whose
`promptc` command the hooks run (.pre-commit-hooks.yaml). Standard library only and in the
tree (`backend-path`), so `pip install .` needs nothing but the index that has promptc-cli.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import zipfile

NAME = "promptc_hooks"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _version() -> str:
    # Cargo.toml's [workspace.package] version: the one the crate, the wheel and the npm
    # package are released with (read without tomllib: pre-commit's Python may be 3.9).
    with open(os.path.join(ROOT, "Cargo.toml"), encoding="utf-8") as handle:
        text = handle.read()
    section = re.search(r"^\[workspace\.package\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    found = section and re.search(r'^version\s*=\s*"([^"]+)"', section.group(1), re.M)
    if not found:
        raise RuntimeError("no version in Cargo.toml's [workspace.package]")
    return found.group(1)


def _metadata(version: str) -> str:
    return (
        "Metadata-Version: 2.1\n"
        "Name: promptc-hooks\n"
        f"Version: {version}\n"
        "Summary: The promptc pre-commit hooks' environment: the promptc-cli wheel\n"
        "License: MIT OR Apache-2.0\n"
        "Requires-Python: >=3.9\n"
        f"Requires-Dist: promptc-cli=={version}\n"
    )


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    version = _version()
    dist_info = f"{NAME}-{version}.dist-info"
    os.makedirs(os.path.join(metadata_directory, dist_info), exist_ok=True)
    with open(os.path.join(metadata_directory, dist_info, "METADATA"), "w", encoding="utf-8") as out:
        out.write(_metadata(version))
    return dist_info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    dist_info = f"{NAME}-{version}.dist-info"
    files = {
        f"{dist_info}/METADATA": _metadata(version).encode(),
        f"{dist_info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: promptc_hooks_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(f"{dist_info}/RECORD,,")
    files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel = f"{NAME}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return wheel

#!/usr/bin/env python3
"""The logic of the promptc GitHub Action (action.yml at the repository root).

Each step of the composite action runs one subcommand; they pass results on through
step outputs (``$GITHUB_OUTPUT``), so every step stays a one-line call:

  install   `release`: the prebuilt binary for the runner's platform from the GitHub release
            (checked against its SHA256SUMS, kept in a cache folder), pip as the fallback;
            otherwise run the `install` input (a fresh venv's pip first on PATH); check the command
  check     ``promptc check --format github``: annotations; records the exit code
  diff      ``promptc diff --format markdown``: the report to a file and the step summary
  comment   create or update ONE pull-request comment carrying the marker
  conclude  fail the job according to `fail-on`

Exit codes of this script: 0 the step succeeded (findings are recorded, not raised, until
`conclude`), 1 `conclude` fails the job for findings, 2 a configuration, environment or
project error (missing token or event, promptc not installed, bad YAML...).

Standard library only; runs on the runner's ``python3`` (3.8 or newer).

Environment (set by the runner): GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_REPOSITORY,
GITHUB_API_URL (default https://api.github.com), GITHUB_SERVER_URL, GITHUB_RUN_ID,
GITHUB_WORKSPACE, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_PATH, RUNNER_TEMP.
Inputs (set by action.yml from the action's inputs): PROMPTC_PROJECT, PROMPTC_COMMENT,
PROMPTC_FAIL_ON, PROMPTC_VERSION, PROMPTC_INSTALL, PROMPTC_RELEASE_URL, PROMPTC_CACHE_DIR,
PROMPTC_GITHUB_TOKEN, plus the
exit codes of earlier steps (PROMPTC_CHECK_EXIT_CODE, PROMPTC_DIFF_EXIT_CODE) and
PROMPTC_REPORT_FILE. PROMPTC_BIN names the promptc binary to run (default: `promptc` on
PATH). Every one of them can also be given as a command-line option (see --help).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import secrets
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request

MARKER = "<!-- promptc-diff -->"
PROJECT_TAG = "<!-- promptc-project: {} -->"
# GitHub rejects an issue comment body longer than this many characters.
COMMENT_LIMIT = 65536
# GitHub drops a step summary larger than 1 MiB.
SUMMARY_LIMIT_BYTES = 1024 * 1024 - 1024
# What `promptc diff --max-bytes` is asked for, when the CLI has that flag: the comment's
# limit less room for the marker, the footer and a truncation note.
DIFF_MAX_BYTES = 60000
PR_EVENTS = ("pull_request", "pull_request_target")
FAIL_ON_CHOICES = ("drift", "lint", "none")
DEFAULT_API_URL = "https://api.github.com"
HTTP_TIMEOUT = 30


class ActionError(Exception):
    """A configuration, environment or project error: reported as ::error, exit 2."""


class ApiError(ActionError):
    def __init__(self, status: int, method: str, url: str, message: str):
        self.status = status
        super().__init__(f"GitHub API {method} {url} answered HTTP {status}: {message}")


# ---------------------------------------------------------------------------------------
# Workflow commands, outputs, summaries
# ---------------------------------------------------------------------------------------


def is_line_break_or_control(char: str) -> bool:
    """Whether some reader may end a line at `char`, or it is an invisible control: C0 and C1
    controls (CR, LF, VT, FF, NEL, the file/group/record separators), DEL, U+2028, U+2029 and
    the bidirectional overrides and isolates. promptc's Rust side uses the same set."""
    code = ord(char)
    return (
        code < 0x20
        or 0x7F <= code <= 0x9F
        or code in (0x2028, 0x2029)
        or 0x202A <= code <= 0x202E
        or 0x2066 <= code <= 0x2069
    )


def visible(char: str) -> str:
    return "\\u{%04x}" % ord(char)


def escape_data(text: str) -> str:
    """A workflow command's message: `%`, CR and LF percent-encoded (the runner decodes them),
    every other line break or control character shown as \\u{...}, so no value can end the
    command's line and start a forged one (a project's section id may hold U+2028)."""
    out = []
    for char in text:
        if char == "%":
            out.append("%25")
        elif char == "\r":
            out.append("%0D")
        elif char == "\n":
            out.append("%0A")
        elif is_line_break_or_control(char):
            out.append(visible(char))
        else:
            out.append(char)
    return "".join(out)


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def one_line(text: str) -> str:
    """Text for one log line (a URL, a name from elsewhere): line breaks and controls shown as
    \\u{...}, so it cannot start a workflow command of its own."""
    return "".join(visible(c) if is_line_break_or_control(c) else c for c in str(text))


def workflow_command(command: str, message: str, **properties: object) -> str:
    props = ",".join(
        f"{key}={escape_property(str(value))}"
        for key, value in properties.items()
        if value is not None and value != ""
    )
    return f"::{command}{' ' + props if props else ''}::{escape_data(message)}"


def emit(command: str, message: str, **properties: object) -> None:
    print(workflow_command(command, message, **properties), flush=True)


def print_verbatim(text: str, stream=None) -> None:
    """Print text that may contain `::` lines (prompt text, diffs) without the runner
    executing any of them as workflow commands."""
    stream = stream or sys.stdout
    if not text:
        return
    token = secrets.token_hex(16)
    stream.write(f"::stop-commands::{token}\n")
    stream.write(text if text.endswith("\n") else text + "\n")
    stream.write(f"::{token}::\n")
    stream.flush()


def set_output(name: str, value: object) -> None:
    value = str(value)
    path = os.environ.get("GITHUB_OUTPUT")
    if not path:
        return
    with open(path, "a", encoding="utf-8") as out:
        if "\n" in value:
            delimiter = f"promptc_{secrets.token_hex(8)}"
            out.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
        else:
            out.write(f"{name}={value}\n")


def append_summary(markdown: str) -> None:
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    with open(path, "a", encoding="utf-8") as out:
        out.write(markdown if markdown.endswith("\n") else markdown + "\n")


def env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return default if value is None else value


def require_env(name: str, why: str) -> str:
    value = os.environ.get(name, "")
    if not value:
        raise ActionError(f"${name} is not set ({why}); run this script inside a GitHub Actions job")
    return value


# ---------------------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------------------


def parse_fail_on(value: str) -> set:
    items = [item.strip().lower() for item in (value or "").split(",") if item.strip()]
    if not items:
        raise ActionError("fail-on is empty: use `drift,lint`, `lint`, `drift` or `none`")
    unknown = [item for item in items if item not in FAIL_ON_CHOICES]
    if unknown:
        raise ActionError(
            f"fail-on: unknown value {', '.join(repr(u) for u in unknown)} in {value!r}; "
            f"use a comma-separated list of `drift` and `lint`, or `none`"
        )
    if "none" in items and len(set(items)) > 1:
        raise ActionError(f"fail-on: `none` cannot be combined with other values (got {value!r})")
    return set() if "none" in items else set(items)


def parse_bool(name: str, value: str) -> bool:
    lowered = (value or "").strip().lower()
    if lowered == "true":
        return True
    if lowered == "false":
        return False
    raise ActionError(f"{name}: expected `true` or `false`, got {value!r}")


def parse_exit_code(name: str, value: str | None) -> int | None:
    """An earlier step's recorded exit code; None when that step did not record one."""
    if value is None or value.strip() == "":
        return None
    try:
        return int(value)
    except ValueError:
        raise ActionError(f"{name}: expected an exit code, got {value!r}") from None


# ---------------------------------------------------------------------------------------
# Running promptc
# ---------------------------------------------------------------------------------------


def promptc_binary() -> str:
    configured = os.environ.get("PROMPTC_BIN", "")
    if configured:
        if os.path.isfile(configured) and os.access(configured, os.X_OK):
            return configured
        found = shutil.which(configured)
        if found:
            return found
        raise ActionError(f"PROMPTC_BIN={configured} is not an executable file")
    found = shutil.which("promptc")
    if not found:
        raise ActionError(
            "promptc is not installed: no `promptc` on PATH. Set the action's `install` input "
            "(default: `release`, the prebuilt binary, else pip install \"promptc-cli==$PROMPTC_VERSION\"), "
            "or install it in an earlier step"
        )
    return found


def project_args(project: str) -> list:
    # `.` (the default) leaves the lookup to promptc: ./promptc.yaml, else
    # ./profiles/promptc.yaml. `-C .` would only accept ./promptc.yaml.
    project = (project or "").strip()
    if project in ("", ".", "./"):
        return []
    return ["-C", project]


def run_promptc(binary: str, project: str, args: list) -> subprocess.CompletedProcess:
    command = [binary, *project_args(project), "--color", "never", *args]
    child_env = dict(os.environ, NO_COLOR="1")
    try:
        return subprocess.run(
            command, capture_output=True, text=True, encoding="utf-8", errors="replace", env=child_env
        )
    except OSError as err:
        raise ActionError(f"cannot run {binary}: {err}") from None


def workspace_root() -> str:
    return os.path.realpath(os.environ.get("GITHUB_WORKSPACE") or os.getcwd())


def relative_path(path: str) -> str:
    """GitHub places annotations by a path relative to the repository root."""
    if not os.path.isabs(path):
        return path
    root = workspace_root()
    real = os.path.realpath(path)
    if real == root or real.startswith(root + os.sep):
        return os.path.relpath(real, root)
    return path


ANNOTATION_RE = re.compile(r"^::(error|warning|notice)( [^:]*)?::")
FILE_PROPERTY_RE = re.compile(r"(?<=[ ,])file=([^,:]*)")


def relativize_annotation(line: str) -> str:
    def replace(match: re.Match) -> str:
        raw = urllib.parse.unquote(match.group(1))
        return "file=" + escape_property(relative_path(raw))

    head, sep, message = line.partition("::")[2].partition("::")
    head = FILE_PROPERTY_RE.sub(replace, head)
    # An older promptc wrote U+2028 and other separators raw: never pass one on.
    return one_line(f"::{head}{sep}{message}")


LOCATION_RE = re.compile(r"^\s*-->\s+(.+?):(\d+)(?::(\d+))?\s*$")
FIRST_ERROR_RE = re.compile(r"^error(?:\[[^\]]*\])?:\s*(.+)$")


def stderr_annotation(command: str, code: int, stderr: str) -> str:
    """One ::error annotation from promptc's human-format diagnostics on stderr: the first
    `error:` line as the title's message, its `-->` location as file/line/col, and the whole
    diagnostic as the message body."""
    text = stderr.strip()
    if not text:
        text = f"promptc {command} exited with {code} and printed no diagnostic"
    file = line = col = None
    for raw in text.splitlines():
        found = LOCATION_RE.match(raw)
        if found:
            file, line, col = relative_path(found.group(1)), found.group(2), found.group(3)
            break
    return workflow_command("error", text, file=file, line=line, col=col, title=f"promptc {command}")


def describe_exit(code: int) -> str:
    if code < 0:
        return f"was killed by signal {-code}"
    return f"exited with {code}"


# ---------------------------------------------------------------------------------------
# Markdown truncation
# ---------------------------------------------------------------------------------------


def utf16_length(text: str) -> int:
    # GitHub counts characters; UTF-16 code units are never fewer, so this is safe.
    return len(text.encode("utf-16-le")) // 2


FENCE_RE = re.compile(r"^\s*(`{3,}|~{3,})")


def close_open_blocks(text: str) -> str:
    """What to append so a cut-off piece of markdown leaves no fence or <details> open."""
    fence = None
    details = 0
    for line in text.splitlines():
        found = FENCE_RE.match(line)
        if found:
            marker = found.group(1)
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence) and line.strip() == marker:
                fence = None
            continue
        if fence is None:
            details += len(re.findall(r"<details\b", line, re.I))
            details -= len(re.findall(r"</details\s*>", line, re.I))
    closing = ""
    if fence is not None:
        closing += fence + "\n"
    closing += "</details>\n" * max(details, 0)
    return closing


def truncate_markdown(text: str, limit: int, note: str, measure=utf16_length) -> tuple:
    """Cut text (at a line end) so that the result, closing blocks and note included,
    measures at most `limit`. Returns (text, truncated)."""
    if measure(text) <= limit:
        return text, False
    budget = limit - measure(note) - 64
    if budget <= 0:
        raise ValueError(f"limit {limit} leaves no room for the report")
    # A first cut by characters, then shrink until everything fits.
    keep = text[:budget]
    while True:
        cut = keep.rfind("\n")
        keep = keep[: cut + 1] if cut > 0 else keep
        result = keep + close_open_blocks(keep) + note
        if measure(result) <= limit:
            return result, True
        keep = keep[: max(len(keep) - max(measure(result) - limit, 1) - 1, 0)]
        if not keep:
            return close_open_blocks("") + note, True


# ---------------------------------------------------------------------------------------
# install
# ---------------------------------------------------------------------------------------

VERSION_RE = re.compile(r"^promptc (\S+)$")
PIP_RE = re.compile(r"(^|[\s;&|(])pip3?(\s|$)")


def verify_promptc(binary: str, wanted_version: str | None) -> str:
    try:
        done = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise ActionError(f"cannot run {binary} --version: {err}") from None
    printed = (done.stdout.strip() or done.stderr.strip()).splitlines()
    first = printed[0] if printed else ""
    found = VERSION_RE.match(first)
    if done.returncode != 0 or not found:
        raise ActionError(
            f"`{binary} --version` {describe_exit(done.returncode)} and printed {first!r}: this is not "
            f"the promptc prompt compiler (an unrelated package may own the name on PyPI). "
            f"Set the action's `install` input to a command that installs this promptc, "
            f"e.g. `release` (the default), `pip install \"promptc-cli==$PROMPTC_VERSION\"` or "
            f"`cargo install promptc-cli --locked --version \"$PROMPTC_VERSION\"`"
        )
    version = found.group(1)
    if wanted_version and version != wanted_version:
        emit("warning", f"installed promptc {version}, but `version` asks for {wanted_version}", title="promptc")
    return version


# `install: release`: the release's archive for the runner's platform (RUNNER_OS and
# RUNNER_ARCH, as the runner names them), as .github/workflows/release.yml names it.
RELEASE = "release"
RELEASE_TARGETS = {
    ("Linux", "X64"): "x86_64-unknown-linux-gnu",
    ("Linux", "ARM64"): "aarch64-unknown-linux-gnu",
    ("macOS", "X64"): "x86_64-apple-darwin",
    ("macOS", "ARM64"): "aarch64-apple-darwin",
    ("Windows", "X64"): "x86_64-pc-windows-msvc",
}
DEFAULT_RELEASE_URL = "https://github.com/promptc/promptc/releases/download"
# Where `release` falls back to when the release has no binary for the platform or cannot be
# reached: the wheel (which holds the same command), into a fresh venv.
PIP_FALLBACK = 'pip install "promptc-cli==$PROMPTC_VERSION"'
# An archive larger than this is not a promptc release (the binary is a few MB).
ARCHIVE_LIMIT = 256 * 1024 * 1024


def runner_platform() -> tuple:
    """(RUNNER_OS, RUNNER_ARCH) as the runner sets them; derived from this machine otherwise."""
    system = os.environ.get("RUNNER_OS") or {"Linux": "Linux", "Darwin": "macOS", "Windows": "Windows"}.get(
        platform.system(), platform.system()
    )
    machine = platform.machine().lower()
    arch = os.environ.get("RUNNER_ARCH") or {"x86_64": "X64", "amd64": "X64", "aarch64": "ARM64", "arm64": "ARM64"}.get(
        machine, machine
    )
    return system, arch


def http_get(url: str, limit: int) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": "promptc-action"})
    with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT) as response:
        data = response.read(limit + 1)
    if len(data) > limit:
        raise ActionError(f"{url} is larger than {limit} bytes: not a promptc release file")
    return data


def release_checksum(sums: str, name: str) -> str | None:
    """The SHA-256 `sha256sum` wrote for `name` in a SHA256SUMS file (text or binary mode)."""
    for line in sums.splitlines():
        parts = line.strip().split(None, 1)
        if len(parts) == 2 and parts[1].lstrip("*") == name and re.fullmatch(r"[0-9a-f]{64}", parts[0]):
            return parts[0]
    return None


def install_release(version: str, release_url: str, cache_dir: str) -> str | None:
    """The folder holding the release's promptc for this runner, downloaded (or taken from the
    cache folder when the archive there still matches the release's SHA256SUMS) and checked;
    None when there is none to take (no binary for the platform, the release unreachable): the
    caller falls back to pip. A checksum mismatch is an error, never a fallback."""
    system, arch = runner_platform()
    target = RELEASE_TARGETS.get((system, arch))
    if not target:
        print(f"promptc: no prebuilt binary for {system} {arch}; installing with pip", flush=True)
        return None
    name = f"promptc-{version}-{target}.tar.gz"
    base = f"{release_url.rstrip('/')}/v{urllib.parse.quote(version)}/"
    # The checksums are fetched on every run, the cache notwithstanding: a cached archive is
    # only used while it is the one the release lists.
    try:
        sums = http_get(base + "SHA256SUMS", 1024 * 1024).decode("utf-8", "replace")
    except (urllib.error.URLError, OSError) as err:
        emit("warning", f"cannot fetch {base}SHA256SUMS ({err}); installing with pip", title="promptc install")
        return None
    expected = release_checksum(sums, name)
    if not expected:
        emit("warning", f"the release v{version} lists no {name}; installing with pip", title="promptc install")
        return None
    os.makedirs(cache_dir, exist_ok=True)
    archive = os.path.join(cache_dir, name)
    data = None
    if os.path.isfile(archive):
        with open(archive, "rb") as handle:
            cached = handle.read()
        if hashlib.sha256(cached).hexdigest() == expected:
            print(f"promptc: {name} from the cache ({cache_dir})", flush=True)
            data = cached
    if data is None:
        print(f"promptc: downloading {base}{name}", flush=True)
        try:
            data = http_get(base + name, ARCHIVE_LIMIT)
        except (urllib.error.URLError, OSError) as err:
            emit("warning", f"cannot download {base}{name} ({err}); installing with pip", title="promptc install")
            return None
        actual = hashlib.sha256(data).hexdigest()
        if actual != expected:
            raise ActionError(
                f"{name} does not match the release's SHA256SUMS (sha256 {actual}, listed {expected}): "
                "not installing it"
            )
        with open(archive + ".tmp", "wb") as out:
            out.write(data)
        os.replace(archive + ".tmp", archive)
    # Only the binary is taken from the archive, by its exact name (never a path it chooses).
    exe = "promptc.exe" if system == "Windows" else "promptc"
    member = f"promptc-{version}-{target}/{exe}"
    bindir = os.path.join(cache_dir, "bin")
    os.makedirs(bindir, exist_ok=True)
    try:
        with tarfile.open(archive, "r:gz") as tar:
            source = tar.extractfile(tar.getmember(member))
            if source is None:
                raise KeyError(member)
            with open(os.path.join(bindir, exe + ".tmp"), "wb") as out:
                shutil.copyfileobj(source, out)
    except (KeyError, tarfile.TarError, OSError) as err:
        raise ActionError(f"{name} holds no {member}: {err}") from None
    os.chmod(os.path.join(bindir, exe + ".tmp"), 0o755)
    os.replace(os.path.join(bindir, exe + ".tmp"), os.path.join(bindir, exe))
    print(f"promptc: installed {member} (sha256 {expected} verified)", flush=True)
    return bindir


def add_to_path(bindir: str) -> None:
    """`bindir` first on PATH, for this step's checks and (through $GITHUB_PATH) the later steps."""
    os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")
    path_file = os.environ.get("GITHUB_PATH")
    if path_file:
        with open(path_file, "a", encoding="utf-8") as out:
            out.write(bindir + "\n")


def cmd_install(args: argparse.Namespace) -> int:
    # Validate the other inputs first: a typo fails before anything runs.
    parse_fail_on(args.fail_on)
    parse_bool("comment", args.comment)
    command = (args.install or "").strip()
    version = (args.version or "").strip()
    child_env = dict(os.environ, PROMPTC_VERSION=version)
    if command == RELEASE:
        if not version:
            raise ActionError("`install: release` needs the `version` input")
        cache_dir = args.cache_dir or os.path.join(
            os.environ.get("RUNNER_TOOL_CACHE") or os.environ.get("RUNNER_TEMP") or tempfile.gettempdir(),
            "promptc",
            version,
        )
        bindir = install_release(version, args.release_url or DEFAULT_RELEASE_URL, cache_dir)
        if bindir:
            add_to_path(bindir)
            binary = promptc_binary()
            installed = verify_promptc(binary, version)
            print(f"promptc: using {binary} (promptc {installed})", flush=True)
            set_output("promptc", binary)
            set_output("version", installed)
            set_output("installed-from", "release")
            return 0
        command = PIP_FALLBACK
    if command:
        if "$PROMPTC_VERSION" in command or "${PROMPTC_VERSION}" in command:
            if not version:
                raise ActionError("the install command uses $PROMPTC_VERSION, but the `version` input is empty")
        if PIP_RE.search(command):
            # Runner images mark the system Python externally managed (PEP 668): the
            # command's `pip` is a fresh venv's, whose bin/ later steps get on PATH.
            venv = os.path.join(os.environ.get("RUNNER_TEMP") or tempfile.gettempdir(), "promptc-venv")
            bindir = os.path.join(venv, "Scripts" if os.name == "nt" else "bin")
            if not os.path.isdir(bindir):
                print(f"promptc: creating a venv at {venv} for the install command", flush=True)
                made = subprocess.run([args.python, "-m", "venv", venv], capture_output=True, text=True)
                if made.returncode != 0:
                    emit("warning", f"could not create a venv ({made.stderr.strip()}); running the "
                         "install command with the PATH as it is", title="promptc install")
                    bindir = None
            if bindir:
                child_env["PATH"] = bindir + os.pathsep + child_env.get("PATH", "")
                child_env["VIRTUAL_ENV"] = venv
                os.environ["PATH"] = child_env["PATH"]
                path_file = os.environ.get("GITHUB_PATH")
                if path_file:
                    with open(path_file, "a", encoding="utf-8") as out:
                        out.write(bindir + "\n")
        path_file = os.environ.get("GITHUB_PATH")
        seen = os.path.getsize(path_file) if path_file and os.path.exists(path_file) else 0
        print(f"promptc: running the install command: {command}", flush=True)
        done = subprocess.run(["bash", "-c", command], env=child_env)
        if done.returncode != 0:
            raise ActionError(f"the install command {describe_exit(done.returncode)}: {command}")
        if path_file and os.path.exists(path_file):
            # Folders the command added to $GITHUB_PATH count for the check below, as they
            # will for the later steps.
            with open(path_file, encoding="utf-8") as handle:
                handle.seek(seen)
                added = [line.strip() for line in handle.read().splitlines() if line.strip()]
            if added:
                os.environ["PATH"] = os.pathsep.join([*reversed(added), os.environ.get("PATH", "")])
    else:
        print("promptc: `install` is empty; using the promptc already installed", flush=True)
    binary = promptc_binary()
    installed = verify_promptc(binary, version if command else None)
    print(f"promptc: using {binary} (promptc {installed})", flush=True)
    set_output("promptc", binary)
    set_output("version", installed)
    set_output("installed-from", "pip" if PIP_RE.search(command) else ("command" if command else "path"))
    return 0


# ---------------------------------------------------------------------------------------
# check
# ---------------------------------------------------------------------------------------


def cmd_check(args: argparse.Namespace) -> int:
    binary = promptc_binary()
    done = run_promptc(binary, args.project, ["check", "--format", "github"])
    code = done.returncode
    annotations = []
    other = []
    # Lines end at LF only, as promptc writes them: str.splitlines would also split at U+2028
    # and the like, and a value holding one would become a line of its own, read as a command.
    for line in done.stdout.replace("\r\n", "\n").split("\n"):
        if ANNOTATION_RE.match(line):
            annotations.append(relativize_annotation(line))
        elif line.strip():
            other.append(line)
    for line in annotations:
        print(line, flush=True)
    print_verbatim("\n".join(other))
    if done.stderr.strip():
        print_verbatim(done.stderr, sys.stderr)
    errors = sum(1 for line in annotations if line.startswith("::error"))
    warnings = sum(1 for line in annotations if line.startswith("::warning"))
    if code not in (0, 1) and errors == 0:
        # Load errors (bad YAML, unknown ids) may come as plain diagnostics on stderr:
        # one annotation, so the job is annotated anyway.
        print(stderr_annotation("check", code, done.stderr), flush=True)
        errors += 1
    if code == 0:
        status = f"no lint errors ({warnings} warning{'s' * (warnings != 1)})"
    elif code == 1:
        status = f"{errors} lint error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}"
    else:
        status = f"error: promptc check {describe_exit(code)}"
    print(f"promptc check: {status}", flush=True)
    append_summary(f"### promptc check — {status}\n")
    set_output("exit-code", code)
    set_output("errors", errors)
    set_output("warnings", warnings)
    return 0


# ---------------------------------------------------------------------------------------
# diff
# ---------------------------------------------------------------------------------------


def diff_supports_max_bytes(binary: str) -> bool:
    done = subprocess.run([binary, "diff", "--help"], capture_output=True, text=True)
    return done.returncode == 0 and "--max-bytes" in done.stdout


def error_report(command: str, code: int, stderr: str) -> str:
    text = stderr.strip() or "(no diagnostic printed)"
    fence = "```"
    while fence in text:
        fence += "`"
    return f"### promptc {command} — error: it {describe_exit(code)}\n\n{fence}text\n{text}\n{fence}\n"


def summary_truncate(markdown: str) -> str:
    note = "\n> **Note:** the report was truncated to fit the 1 MiB step summary; run `promptc diff` locally for all of it.\n"
    return truncate_markdown(markdown, SUMMARY_LIMIT_BYTES, note, measure=lambda s: len(s.encode("utf-8")))[0]


def cmd_diff(args: argparse.Namespace) -> int:
    binary = promptc_binary()
    extra = ["--max-bytes", str(DIFF_MAX_BYTES)] if diff_supports_max_bytes(binary) else []
    done = run_promptc(binary, args.project, ["diff", "--format", "markdown", *extra])
    code = done.returncode
    if code in (0, 1):
        report = done.stdout
        if not report.strip():
            report = "### promptc diff — " + ("no drift" if code == 0 else "drift (no report printed)") + "\n"
    else:
        report = error_report("diff", code, done.stderr)
        check_code = parse_exit_code("check exit code", args.check_exit_code)
        if check_code not in (0, 1) and check_code is not None:
            # The check step already annotated the same project error.
            print("promptc diff: the project error is annotated by the check step", flush=True)
        else:
            print(stderr_annotation("diff", code, done.stderr), flush=True)
    report_file = args.report_file
    if not report_file:
        fd, report_file = tempfile.mkstemp(
            prefix="promptc-diff-", suffix=".md", dir=os.environ.get("RUNNER_TEMP") or None
        )
        os.close(fd)
    with open(report_file, "w", encoding="utf-8") as out:
        out.write(report)
    print(f"::group::promptc diff report ({'clean' if code == 0 else 'drift' if code == 1 else 'error'})", flush=True)
    print_verbatim(report)
    if done.stderr.strip() and code in (0, 1):
        print_verbatim(done.stderr, sys.stderr)
    print("::endgroup::", flush=True)
    pending = pending_snapshots(binary, args.project) if code == 1 and parse_bool("pending", args.pending) else []
    if pending:
        report += (
            f"\n{len(pending)} pending snapshot file(s) are uploaded as the artifact "
            "`promptc-pending-snapshots`: download it into the snapshot folder and run `promptc review` "
            "to accept or reject each change.\n"
        )
    append_summary(summary_truncate(report))
    set_output("exit-code", code)
    set_output("drift", "true" if code == 1 else "false")
    set_output("report-file", report_file)
    set_output("pending-files", "\n".join(pending))
    return 0


def pending_snapshots(binary: str, project: str) -> list:
    """Write the drift as pending snapshot files (`promptc diff --pending`) and list them."""
    done = run_promptc(binary, project, ["diff", "--pending", "--format", "json"])
    try:
        folder = json.loads(done.stdout).get("old") if done.returncode == 1 else None
    except json.JSONDecodeError:
        folder = None
    if not folder:
        emit("warning", f"promptc diff --pending did not write pending snapshots (exit {done.returncode})")
        return []
    root = os.path.realpath(folder)
    found = []
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        # Only the folder's own pending files, never through a link.
        if name.endswith(".new") and os.path.isfile(path) and not os.path.islink(path):
            found.append(os.path.join(folder, name))
    return found


# ---------------------------------------------------------------------------------------
# comment
# ---------------------------------------------------------------------------------------


class GitHub:
    def __init__(self, api_url: str, token: str):
        self.api_url = api_url.rstrip("/")
        self.token = token

    def request(self, method: str, url: str, payload: object = None) -> tuple:
        if not url.startswith(self.api_url + "/"):
            raise ActionError(f"refusing to send the token to {url} (outside {self.api_url})")
        data = json.dumps(payload).encode("utf-8") if payload is not None else None
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Accept", "application/vnd.github+json")
        request.add_header("Authorization", f"Bearer {self.token}")
        request.add_header("X-GitHub-Api-Version", "2022-11-28")
        request.add_header("User-Agent", "promptc-action")
        if data is not None:
            request.add_header("Content-Type", "application/json; charset=utf-8")
        try:
            with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT) as response:
                body = response.read()
                return (json.loads(body.decode("utf-8")) if body else None), response.headers
        except urllib.error.HTTPError as err:
            raw = err.read().decode("utf-8", "replace")
            try:
                message = json.loads(raw).get("message", raw)
            except (ValueError, AttributeError):
                message = raw.strip()[:500]
            raise ApiError(err.code, method, url, message or err.reason) from None
        except (urllib.error.URLError, OSError) as err:
            reason = getattr(err, "reason", err)
            raise ActionError(f"cannot reach the GitHub API at {self.api_url}: {reason}") from None

    def comments(self, repository: str, number: int):
        url = f"{self.api_url}/repos/{repository}/issues/{number}/comments?per_page=100"
        while url:
            page, headers = self.request("GET", url)
            if not isinstance(page, list):
                raise ActionError(f"GitHub API GET {url}: expected a list of comments")
            yield from page
            url = next_link(headers.get("Link", ""))

    def create(self, repository: str, number: int, body: str) -> dict:
        url = f"{self.api_url}/repos/{repository}/issues/{number}/comments"
        return self.request("POST", url, {"body": body})[0]

    def update(self, repository: str, comment_id: int, body: str) -> dict:
        url = f"{self.api_url}/repos/{repository}/issues/comments/{comment_id}"
        return self.request("PATCH", url, {"body": body})[0]

    def login(self) -> str | None:
        """The token's own login (`GET /user`), or None when the API will not say: the
        workflow's GITHUB_TOKEN is an installation token, for which /user answers 403."""
        try:
            user, _ = self.request("GET", f"{self.api_url}/user")
        except ApiError as err:
            if err.status in (401, 403, 404):
                return None
            raise
        login = (user or {}).get("login") if isinstance(user, dict) else None
        return login if isinstance(login, str) and login else None


# Who posts with the workflow's GITHUB_TOKEN (an installation token, which `GET /user` does not
# answer for): GitHub Actions' own app.
ACTIONS_BOT = "github-actions[bot]"


def written_by_us(comment: dict, login: str | None) -> bool:
    """Whether the token this step holds wrote `comment`: its author is the token's login, or,
    when the token cannot say who it is (an installation token), an app (a `[bot]`: GitHub
    Actions' own, or the app whose token this is). Anyone can post a comment that starts with
    the marker; only ours are ever edited."""
    user = comment.get("user") or {}
    author = user.get("login")
    if not isinstance(author, str):
        return False
    if login is not None:
        return author == login
    return author == ACTIONS_BOT or (user.get("type") == "Bot" and author.endswith("[bot]"))


def next_link(header: str) -> str | None:
    for part in header.split(","):
        found = re.match(r'\s*<([^>]+)>\s*;(.*)', part)
        if found and re.search(r'rel="?next"?', found.group(2)):
            return found.group(1)
    return None


def comment_matches(body: str, project: str) -> bool:
    body = (body or "").lstrip()
    return body.startswith(MARKER) and PROJECT_TAG.format(project_label(project)) in body


def markdown_code(name: str) -> str:
    """`name` as inline code that nothing in it can end: a backtick span for plain names, else
    <code> with every ASCII character but letters, digits and ._-/ as a numeric entity and line
    breaks and controls as \\u{...} (as promptc writes names in its markdown)."""
    def plain(char: str) -> bool:
        return (char.isascii() and (char.isalnum() or char in "._-/")) or (
            not char.isascii() and not is_line_break_or_control(char))

    if name and all(plain(c) or c == " " for c in name):
        return f"`{name}`"
    out = []
    for char in name:
        if plain(char):
            out.append(char)
        elif is_line_break_or_control(char):
            out.append("&#92;u&#123;%04x&#125;" % ord(char))
        else:
            out.append(f"&#{ord(char)};")
    return "<code>" + "".join(out) + "</code>"


def project_label(project: str) -> str:
    label = (project or ".").strip() or "."
    return label.replace("--", "-\u2060-")  # never close the HTML comment


def run_url() -> str | None:
    server = os.environ.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
    repository = os.environ.get("GITHUB_REPOSITORY")
    run_id = os.environ.get("GITHUB_RUN_ID")
    if repository and run_id:
        return f"{server}/{repository}/actions/runs/{run_id}"
    return None


def build_body(report: str, project: str, sha: str | None) -> tuple:
    """The comment: marker, project tag, the report (truncated to fit), a footer."""
    header = f"{MARKER}\n{PROJECT_TAG.format(project_label(project))}\n"
    details = []
    if (project or ".").strip() not in ("", ".", "./"):
        details.append(f"project {markdown_code(project)}")
    if sha:
        details.append(f"commit {sha[:7]}")
    url = run_url()
    if url:
        details.append(f"[workflow run]({url})")
    footer = f"\n<sub>promptc{' · ' + ' · '.join(details) if details else ''}</sub>\n"
    where = f"the [job summary]({url})" if url else "the job summary"
    full = utf16_length(report)
    note = (
        f"\n> [!NOTE]\n> The report was truncated to fit a GitHub comment ({full:,} characters in all). "
        f"The whole report is in {where}; `promptc diff` prints it locally.\n"
    )
    room = COMMENT_LIMIT - utf16_length(header) - utf16_length(footer)
    text, truncated = truncate_markdown(report.rstrip("\n") + "\n", room, note)
    body = header + text + footer
    assert utf16_length(body) <= COMMENT_LIMIT
    return body, truncated


def load_event(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            event = json.load(handle)
    except OSError as err:
        raise ActionError(f"cannot read the event payload $GITHUB_EVENT_PATH={path}: {err.strerror}") from None
    except ValueError as err:
        raise ActionError(f"the event payload {path} is not JSON: {err}") from None
    if not isinstance(event, dict):
        raise ActionError(f"the event payload {path} is not a JSON object")
    return event


def find_own_comment(github: GitHub, repository: str, number: int, project: str) -> dict | None:
    """The pull request's comment with the marker and this project's tag that this token
    wrote. Who the token is is asked only once a comment carries the marker."""
    login = None
    asked = False
    for comment in github.comments(repository, number):
        if not comment_matches(comment.get("body"), project):
            continue
        if not asked:
            login, asked = github.login(), True
        if written_by_us(comment, login):
            return comment
    return None


def cmd_comment(args: argparse.Namespace) -> int:
    def done(action: str, comment: dict | None = None) -> int:
        set_output("comment-action", action)
        set_output("comment-id", (comment or {}).get("id", ""))
        set_output("comment-url", (comment or {}).get("html_url", ""))
        return 0

    if not parse_bool("comment", args.comment):
        print("promptc: `comment` is false; no pull-request comment", flush=True)
        return done("disabled")
    event_name = require_env("GITHUB_EVENT_NAME", "which event triggered the workflow")
    if event_name not in PR_EVENTS:
        print(f"promptc: `{event_name}` is not a pull-request event; no comment", flush=True)
        return done("none")
    event = load_event(require_env("GITHUB_EVENT_PATH", "the event payload"))
    pull = event.get("pull_request") or {}
    number = pull.get("number") or event.get("number")
    if not isinstance(number, int):
        raise ActionError(f"the {event_name} event payload has no pull_request.number")
    repository = require_env("GITHUB_REPOSITORY", "owner/name of the repository")
    if not args.token:
        raise ActionError(
            "no GitHub token: set the action's `github-token` input (default: ${{ github.token }}) "
            "and give the job `permissions: pull-requests: write`, or set `comment: false`"
        )
    code = parse_exit_code("diff exit code", args.diff_exit_code)
    if code is None:
        raise ActionError("the diff step recorded no exit code (PROMPTC_DIFF_EXIT_CODE is empty)")
    report = None
    if args.report_file:
        try:
            with open(args.report_file, encoding="utf-8") as handle:
                report = handle.read()
        except OSError as err:
            raise ActionError(f"cannot read the diff report {args.report_file}: {err.strerror}") from None
    if report is None or (code in (0, 1) and not report.strip()):
        raise ActionError("the diff step left no report (PROMPTC_REPORT_FILE)")
    sha = (pull.get("head") or {}).get("sha")
    body, truncated = build_body(report, args.project, sha)
    github = GitHub(os.environ.get("GITHUB_API_URL") or DEFAULT_API_URL, args.token)
    try:
        existing = find_own_comment(github, repository, number, args.project)
        if existing is not None:
            if existing.get("body") == body:
                print(f"promptc: comment {one_line(existing.get('html_url', existing.get('id')))} is up to date",
                      flush=True)
                return done("unchanged", existing)
            try:
                comment = github.update(repository, existing["id"], body)
                print(f"promptc: updated comment {one_line(comment.get('html_url', existing['id']))}", flush=True)
                return done("updated", comment)
            except ApiError as err:
                # Not ours after all, deleted meanwhile, or locked: the report still gets posted.
                print(f"promptc: could not update comment {one_line(existing.get('id'))} "
                      f"(HTTP {err.status}); posting a new one", flush=True)
        elif code != 1:
            print("promptc: no drift and no earlier comment; nothing to post", flush=True)
            return done("none")
        comment = github.create(repository, number, body)
        print(f"promptc: posted comment {one_line(comment.get('html_url', comment.get('id')))}"
              f"{' (report truncated)' if truncated else ''}", flush=True)
        return done("created", comment)
    except ApiError as err:
        if err.status == 403:
            # The usual case: a pull request from a fork gets a read-only token.
            emit(
                "warning",
                f"{err}. The comment needs `permissions: pull-requests: write` (pull requests from "
                "forks get a read-only token); the report is in the job summary.",
                title="promptc comment",
            )
            return done("forbidden")
        raise


# ---------------------------------------------------------------------------------------
# conclude
# ---------------------------------------------------------------------------------------


def cmd_conclude(args: argparse.Namespace) -> int:
    fail_on = parse_fail_on(args.fail_on)
    check_code = parse_exit_code("check exit code", args.check_exit_code)
    diff_code = parse_exit_code("diff exit code", args.diff_exit_code)
    errors = []
    for name, code in (("check", check_code), ("diff", diff_code)):
        if code is None:
            errors.append(f"promptc {name} recorded no result")
        elif code not in (0, 1):
            errors.append(f"promptc {name} {describe_exit(code)} (a usage or project error; see its annotation)")
    if errors:
        message = "; ".join(errors)
        emit("error", message, title="promptc")
        append_summary(f"**promptc: failed** — {message}\n")
        return 2
    findings = []
    failing = []
    if check_code == 1:
        findings.append("lint errors")
        if "lint" in fail_on:
            failing.append("lint errors (see the annotations)")
    if diff_code == 1:
        findings.append("snapshot drift")
        if "drift" in fail_on:
            failing.append("snapshot drift: the project no longer renders what the snapshots hold "
                           "(run `promptc diff --update` and commit the snapshots if the change is intended)")
    shown = ",".join(sorted(fail_on)) or "none"
    if failing:
        message = "; ".join(failing)
        emit("error", f"{message} [fail-on: {shown}]", title="promptc")
        append_summary(f"**promptc: failed** — {message} (fail-on: `{shown}`)\n")
        return 1
    if findings:
        emit("warning", f"{' and '.join(findings)} found; not failing [fail-on: {shown}]", title="promptc")
        append_summary(f"**promptc: passed** with {' and '.join(findings)} (fail-on: `{shown}`)\n")
    else:
        print("promptc: no lint errors and no drift", flush=True)
        append_summary("**promptc: passed** — no lint errors, snapshots match\n")
    return 0


# ---------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="promptc_action.py",
        description="The steps of the promptc GitHub Action (see action.yml).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    def project(p):
        p.add_argument("--project", default=env("PROMPTC_PROJECT", "."),
                       help="project folder or manifest; `.` uses promptc's lookup [$PROMPTC_PROJECT]")

    p = sub.add_parser("install", help="install promptc with the `install` command and check it")
    p.add_argument("--install", default=env("PROMPTC_INSTALL", ""), help="shell command [$PROMPTC_INSTALL]")
    p.add_argument("--version", default=env("PROMPTC_VERSION", ""), help="promptc version [$PROMPTC_VERSION]")
    p.add_argument("--release-url", default=env("PROMPTC_RELEASE_URL", ""),
                   help=f"where `release` downloads from: URL/vVERSION/FILE [$PROMPTC_RELEASE_URL; {DEFAULT_RELEASE_URL}]")
    p.add_argument("--cache-dir", default=env("PROMPTC_CACHE_DIR", ""),
                   help="folder `release` keeps the archive and the binary in [$PROMPTC_CACHE_DIR]")
    p.add_argument("--fail-on", default=env("PROMPTC_FAIL_ON", "drift,lint"), help="validated here [$PROMPTC_FAIL_ON]")
    p.add_argument("--comment", default=env("PROMPTC_COMMENT", "true"), help="validated here [$PROMPTC_COMMENT]")
    p.add_argument("--python", default=sys.executable or "python3", help="interpreter for the venv")
    p.set_defaults(func=cmd_install)

    p = sub.add_parser("check", help="promptc check --format github: annotations")
    project(p)
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("diff", help="promptc diff --format markdown: report file and step summary")
    project(p)
    p.add_argument("--report-file", default=env("PROMPTC_REPORT_FILE", ""), help="where to write the report")
    p.add_argument("--check-exit-code", default=env("PROMPTC_CHECK_EXIT_CODE"),
                   help="the check step's exit code (avoids annotating one project error twice)")
    p.add_argument("--pending", default=env("PROMPTC_PENDING", "true"),
                   help="true/false: write and list pending snapshots on drift [$PROMPTC_PENDING]")
    p.set_defaults(func=cmd_diff)

    p = sub.add_parser("comment", help="create or update the one pull-request comment")
    project(p)
    p.add_argument("--comment", default=env("PROMPTC_COMMENT", "true"), help="true/false [$PROMPTC_COMMENT]")
    p.add_argument("--report-file", default=env("PROMPTC_REPORT_FILE", ""), help="the diff step's report")
    p.add_argument("--diff-exit-code", default=env("PROMPTC_DIFF_EXIT_CODE"), help="the diff step's exit code")
    p.add_argument("--token", default=env("PROMPTC_GITHUB_TOKEN", env("GITHUB_TOKEN", "")),
                   help="GitHub token [$PROMPTC_GITHUB_TOKEN]")
    p.set_defaults(func=cmd_comment)

    p = sub.add_parser("conclude", help="exit 1 for the findings `fail-on` names, 2 on errors")
    p.add_argument("--fail-on", default=env("PROMPTC_FAIL_ON", "drift,lint"), help="[$PROMPTC_FAIL_ON]")
    p.add_argument("--check-exit-code", default=env("PROMPTC_CHECK_EXIT_CODE"), help="the check step's exit code")
    p.add_argument("--diff-exit-code", default=env("PROMPTC_DIFF_EXIT_CODE"), help="the diff step's exit code")
    p.set_defaults(func=cmd_conclude)
    return parser


def main(argv: list | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ActionError as err:
        emit("error", str(err), title=f"promptc {args.command}")
        return 2


if __name__ == "__main__":
    sys.exit(main())

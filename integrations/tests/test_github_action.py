"""The GitHub Action (action.yml + integrations/github/promptc_action.py), run locally.

`run_action` executes action.yml's composite steps the way the runner does: inputs with
their defaults, `${{ inputs.* }}` / `${{ steps.*.outputs.* }}` / `${{ github.token }}` in
`env:`, `bash --noprofile --norc -eo pipefail` per step, $GITHUB_OUTPUT, $GITHUB_PATH and
$GITHUB_STEP_SUMMARY files, workflow commands (honouring ::stop-commands::), and stopping
at the first failing step. The GitHub API is a fake server on 127.0.0.1 that records every
request and enforces the token, the repository and the 65,536-character body limit.
"""

from __future__ import annotations

import importlib.util
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import threading
import tomllib
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from conftest import (
    DRIFT_LINE,
    FIXTURES,
    REPO,
    ROLE,
    break_yaml,
    hermetic_env,
    make_drift,
    make_lint_error,
)

SCRIPT = REPO / "integrations" / "github" / "promptc_action.py"
ACTION_FILE = REPO / "action.yml"
MARKER = "<!-- promptc-diff -->"
TOKEN = "test-token"
REPOSITORY = "octo-org/forge"
PR = 42
LIMIT = 65536


def load_script():
    spec = importlib.util.spec_from_file_location("promptc_action", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


action_script = load_script()


# ---------------------------------------------------------------------------------------
# The fake GitHub API
# ---------------------------------------------------------------------------------------


@dataclass
class Request:
    method: str
    path: str
    query: dict
    headers: dict
    body: object


class LocalServer:
    """An HTTP server on 127.0.0.1 in a thread of its own, answering with `handler`."""

    def serve(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class FakeGitHub(LocalServer):
    def __init__(self):
        self.comments: dict[int, list[dict]] = {}
        self.requests: list[Request] = []
        self.next_id = 9000
        self.forbid_writes = False
        # Who the token is: None is the workflow's GITHUB_TOKEN (an installation token: `GET
        # /user` answers 403, and comments are posted as github-actions[bot]); a login is a
        # personal access token's user.
        self.token_login: str | None = None
        # Comment ids whose PATCH fails (locked, or a moderator's), whoever asks.
        self.locked: set[int] = set()
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                fake.handle(self, "GET")

            def do_POST(self):
                fake.handle(self, "POST")

            def do_PATCH(self):
                fake.handle(self, "PATCH")

        self.serve(Handler)

    def add_comment(self, number: int, body: str, login: str = "someone") -> dict:
        with self.lock:
            self.next_id += 1
            comment = {
                "id": self.next_id,
                "body": body,
                "html_url": f"https://github.com/{REPOSITORY}/pull/{number}#issuecomment-{self.next_id}",
                "user": {"login": login, "type": "Bot" if login.endswith("[bot]") else "User"},
            }
            self.comments.setdefault(number, []).append(comment)
            return comment

    @property
    def poster(self) -> str:
        """The login the token's comments are posted as."""
        return self.token_login or "github-actions[bot]"

    @property
    def writes(self) -> list[Request]:
        return [r for r in self.requests if r.method in ("POST", "PATCH")]

    def handle(self, handler: BaseHTTPRequestHandler, method: str):
        parsed = urllib.parse.urlsplit(handler.path)
        query = dict(urllib.parse.parse_qsl(parsed.query))
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        self.requests.append(Request(method, parsed.path, query, dict(handler.headers), body))

        def reply(status: int, payload, headers: dict | None = None):
            data = json.dumps(payload).encode()
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                handler.send_header(key, value)
            handler.end_headers()
            handler.wfile.write(data)

        if handler.headers.get("Authorization") != f"Bearer {TOKEN}":
            return reply(401, {"message": "Bad credentials"})
        if parsed.path == "/user" and method == "GET":
            if self.token_login is None:
                return reply(403, {"message": "Resource not accessible by integration"})
            return reply(200, {"login": self.token_login, "type": "User"})
        prefix = f"/repos/{REPOSITORY}/issues/"
        if not parsed.path.startswith(prefix):
            return reply(404, {"message": "Not Found"})
        rest = parsed.path[len(prefix):]
        if method in ("POST", "PATCH"):
            if self.forbid_writes:
                return reply(403, {"message": "Resource not accessible by integration"})
            if not isinstance(body, dict) or not isinstance(body.get("body"), str):
                return reply(422, {"message": "Invalid request: body is required"})
            if len(body["body"]) > LIMIT:
                return reply(422, {"message": "Validation Failed",
                                   "errors": [{"message": "Body is too long (maximum is 65536 characters)"}]})
        found = re.fullmatch(r"(\d+)/comments", rest)
        if found and method == "GET":
            comments = self.comments.get(int(found.group(1)), [])
            per_page = min(int(query.get("per_page", 30)), 100)
            page = int(query.get("page", 1))
            chunk = comments[(page - 1) * per_page: page * per_page]
            headers = {}
            if page * per_page < len(comments):
                nxt = urllib.parse.urlencode({"per_page": per_page, "page": page + 1})
                headers["Link"] = f'<{self.url}{parsed.path}?{nxt}>; rel="next", <{self.url}{parsed.path}?page=99>; rel="last"'
            return reply(200, chunk, headers)
        if found and method == "POST":
            comment = self.add_comment(int(found.group(1)), body["body"], login=self.poster)
            return reply(201, comment)
        found = re.fullmatch(r"comments/(\d+)", rest)
        if found and method == "PATCH":
            for comments in self.comments.values():
                for comment in comments:
                    if comment["id"] == int(found.group(1)):
                        # Only the author edits a comment (as the token's scope allows).
                        if comment["user"]["login"] != self.poster or comment["id"] in self.locked:
                            return reply(403, {"message": "Resource not accessible by integration"})
                        comment["body"] = body["body"]
                        return reply(200, comment)
            return reply(404, {"message": "Not Found"})
        return reply(404, {"message": "Not Found"})


@pytest.fixture
def api():
    server = FakeGitHub()
    yield server
    server.close()


# ---------------------------------------------------------------------------------------
# A local runner for action.yml's composite steps
# ---------------------------------------------------------------------------------------

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
COMMAND = re.compile(r"^::([a-z-]+)(?: ([^:]*))?::(.*)$")


def load_action() -> dict:
    return yaml.safe_load(ACTION_FILE.read_text(encoding="utf-8"))


def unescape(text: str) -> str:
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


@dataclass
class Annotation:
    level: str
    properties: dict
    message: str


def workflow_commands(stream: str) -> list[Annotation]:
    """The annotations the runner would make of a step's output (`::stop-commands::`
    suspends command processing until its token comes back)."""
    found = []
    stopped = None
    for line in stream.splitlines():
        if stopped is not None:
            if line == f"::{stopped}::":
                stopped = None
            continue
        match = COMMAND.match(line)
        if not match:
            continue
        command, props, message = match.groups()
        if command == "stop-commands":
            stopped = message
        elif command in ("error", "warning", "notice"):
            properties = dict(
                (key, unescape(value)) for key, _, value in (p.partition("=") for p in (props or "").split(",") if p)
            )
            found.append(Annotation(command, properties, unescape(message)))
    return found


def parse_outputs(path: Path) -> dict:
    outputs = {}
    lines = iter(path.read_text(encoding="utf-8").splitlines()) if path.exists() else iter(())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value = []
            for item in lines:
                if item == delimiter:
                    break
                value.append(item)
            outputs[name] = "\n".join(value)
        elif "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
    return outputs


@dataclass
class StepResult:
    id: str
    returncode: int
    stdout: str
    stderr: str
    outputs: dict
    summary: str


@dataclass
class ActionRun:
    steps: list[StepResult] = field(default_factory=list)
    outputs: dict = field(default_factory=dict)
    # The `uses:` steps the runner would have run (the cache), with their evaluated `with:`.
    used: list[dict] = field(default_factory=list)

    @property
    def returncode(self) -> int:
        return next((s.returncode for s in self.steps if s.returncode != 0), 0)

    @property
    def failed_step(self) -> str | None:
        return next((s.id for s in self.steps if s.returncode != 0), None)

    def step(self, step_id: str) -> StepResult:
        return next(s for s in self.steps if s.id == step_id)

    @property
    def annotations(self) -> list[Annotation]:
        return [a for s in self.steps for a in workflow_commands(s.stdout) + workflow_commands(s.stderr)]

    @property
    def summary(self) -> str:
        return "".join(s.summary for s in self.steps)

    @property
    def log(self) -> str:
        return "\n".join(f"--- {s.id} (exit {s.returncode})\n{s.stdout}{s.stderr}" for s in self.steps)


def python3_dir(tmp: Path) -> Path:
    """A bin/ whose python3 is the base interpreter (not the venv), so the script is
    proven to need the standard library only."""
    bindir = tmp / "python-bin"
    bindir.mkdir(exist_ok=True)
    link = bindir / "python3"
    if not link.exists():
        base = getattr(sys, "_base_executable", None) or sys.executable
        link.symlink_to(os.path.realpath(base))
    return bindir


def install_symlink_command() -> str:
    """An `install` command that puts the test's promptc binary on PATH via $GITHUB_PATH,
    as `cargo install` or pip would."""
    return (
        'mkdir -p "$RUNNER_TEMP/promptc-bin" '
        '&& ln -sf "$TEST_PROMPTC_BINARY" "$RUNNER_TEMP/promptc-bin/promptc" '
        '&& echo "$RUNNER_TEMP/promptc-bin" >> "$GITHUB_PATH"'
    )


def wrapped_promptc(tmp: Path, real: Path, *, legacy: bool) -> tuple[Path, Path]:
    """A promptc that logs its arguments and runs the real one. `legacy` imitates the CLI
    before `diff --max-bytes` and before load errors in `check --format github`: the flag
    is neither listed nor accepted, the markdown has no size cap, and a load error is only
    a diagnostic on stderr."""
    log = tmp / ("legacy" if legacy else "current") / "argv.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    script = log.parent / "promptc"
    legacy_part = """
if [[ $args == *" diff "* && $args == *" --help "* ]]; then
    "$real" "$@" | grep -v -e --max-bytes
    exit "${PIPESTATUS[0]}"
fi
for arg in "$@"; do
    if [[ $arg == --max-bytes ]]; then
        echo "error: unexpected argument '--max-bytes' found" >&2
        exit 2
    fi
done
if [[ $args == *" diff "* ]] && "$real" diff --help | grep -q -e --max-bytes; then
    # The real CLI caps its markdown by default: lift the cap, as a CLI without one.
    exec "$real" "$@" --max-bytes 1000000000
fi
if [[ $args == *" check "* && $args == *" github "* ]]; then
    out=$("$real" "$@")
    rc=$?
    if [[ $rc != 2 && -n $out ]]; then printf '%s\\n' "$out"; fi
    exit "$rc"
fi
""" if legacy else ""
    script.write_text(
        "#!/usr/bin/env bash\n"
        f"real={shlex.quote(str(real))}\n"
        'args=" $* "\n'
        f'printf "%s\\n" "$*" >> {shlex.quote(str(log))}\n'
        + legacy_part
        + 'exec "$real" "$@"\n'
    )
    script.chmod(0o755)
    return script, log


def run_action(
    workspace: Path,
    promptc_bin: Path,
    *,
    event: str = "pull_request_opened",
    event_name: str | None = None,
    inputs: dict | None = None,
    api: FakeGitHub | None = None,
    env: dict | None = None,
    stop_after: str | None = None,
    runner_temp: Path | None = None,
    tool_cache: Path | None = None,
) -> ActionRun:
    action = load_action()
    declared = action["inputs"]
    inputs = dict(inputs or {})
    inputs.setdefault("install", install_symlink_command())
    unknown = set(inputs) - set(declared)
    assert not unknown, f"inputs action.yml does not declare: {unknown}"
    if event_name is None:
        event_name = "push" if event == "push" else "pull_request"
    run_root = runner_temp or workspace.parent / f"runner-{os.getpid()}-{len(list(workspace.parent.glob('runner-*')))}"
    run_root.mkdir(parents=True, exist_ok=True)
    temp = run_root / "temp"
    temp.mkdir(exist_ok=True)
    # The runner's tool cache: where actions/cache restores the release binary. A test that
    # passes the same folder to two runs sees what a restored cache gives the second run.
    tool_cache = tool_cache or run_root / "toolcache"
    tool_cache.mkdir(parents=True, exist_ok=True)
    context = {
        "inputs": {},
        "steps": {},
        "github": {"token": TOKEN, "event_name": event_name},
        "runner": {"tool_cache": str(tool_cache), "os": "Linux", "arch": "X64"},
    }

    def evaluate(expression: str) -> str:
        parts = expression.split(".")
        if parts[0] == "inputs" and len(parts) == 2:
            assert parts[1] in declared, f"${{{{ {expression} }}}}: no such input"
            return context["inputs"][parts[1]]
        if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
            return context["steps"].get(parts[1], {}).get(parts[3], "")
        if parts[0] in ("github", "runner") and len(parts) == 2 and parts[1] in context[parts[0]]:
            return context[parts[0]][parts[1]]
        raise AssertionError(f"the local runner does not know ${{{{ {expression} }}}}")

    def substitute(text: str) -> str:
        return EXPRESSION.sub(lambda m: str(evaluate(m.group(1))), str(text))

    for name, spec in declared.items():
        value = inputs.get(name, spec.get("default", ""))
        context["inputs"][name] = substitute(value) if isinstance(value, str) else str(value).lower()

    path_entries = [str(python3_dir(run_root)), "/usr/local/bin", "/usr/bin", "/bin"]
    result = ActionRun()
    for index, step in enumerate(action["runs"]["steps"]):
        step_id = step.get("id", f"step{index}")
        if "if" in step:
            # The two forms of condition action.yml uses: an input compared with a string, and a
            # step's output tested for being non-empty.
            found = re.fullmatch(r"inputs\.([\w-]+) == '([^']*)'", step["if"])
            nonempty = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+) != ''", step["if"])
            assert found or nonempty, f"the local runner does not evaluate `if: {step['if']}`"
            if found and context["inputs"][found.group(1)] != found.group(2):
                continue
            if nonempty and not context["steps"].get(nonempty.group(1), {}).get(nonempty.group(2)):
                continue
        if "uses" in step:
            # actions/cache is emulated by the tool cache folder outliving the run (see above);
            # an upload is recorded with its inputs (the test checks what it would upload).
            assert step["uses"].startswith(("actions/cache@", "actions/upload-artifact@")), (
                f"the local runner cannot run {step['uses']}"
            )
            result.used.append({"uses": step["uses"], **{k: substitute(v) for k, v in step["with"].items()}})
            continue
        output_file = run_root / f"{step_id}.output"
        summary_file = run_root / f"{step_id}.summary"
        path_file = run_root / f"{step_id}.path"
        for f in (output_file, summary_file, path_file):
            f.write_text("")
        step_env = hermetic_env(
            PATH=os.pathsep.join(path_entries),
            HOME=str(run_root),
            TEST_PROMPTC_BINARY=str(promptc_bin),
            GITHUB_ACTIONS="true",
            GITHUB_ACTION_PATH=str(REPO),
            GITHUB_WORKSPACE=str(workspace),
            GITHUB_EVENT_NAME=event_name,
            GITHUB_EVENT_PATH=str(FIXTURES / f"{event}.json"),
            GITHUB_REPOSITORY=REPOSITORY,
            GITHUB_SERVER_URL="https://github.com",
            GITHUB_RUN_ID="777",
            GITHUB_API_URL=api.url if api else "http://127.0.0.1:9",
            GITHUB_OUTPUT=str(output_file),
            GITHUB_STEP_SUMMARY=str(summary_file),
            GITHUB_PATH=str(path_file),
            RUNNER_TEMP=str(temp),
            RUNNER_TOOL_CACHE=str(tool_cache),
            RUNNER_OS=context["runner"]["os"],
            RUNNER_ARCH=context["runner"]["arch"],
            PIP_DISABLE_PIP_VERSION_CHECK="1",
        )
        step_env.update(env or {})
        for key, value in (step.get("env") or {}).items():
            step_env[key] = substitute(value)
        assert step.get("shell") == "bash"
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=workspace, env=step_env, capture_output=True, text=True, timeout=300,
        )
        outputs = parse_outputs(output_file)
        context["steps"][step_id] = outputs
        result.steps.append(StepResult(step_id, done.returncode, done.stdout, done.stderr, outputs,
                                       summary_file.read_text(encoding="utf-8")))
        path_entries[:0] = list(reversed(path_file.read_text().split()))
        if done.returncode != 0 or step_id == stop_after:
            break
    for name, spec in (action.get("outputs") or {}).items():
        result.outputs[name] = substitute(spec["value"])
    return result


def errors(run: ActionRun) -> list[Annotation]:
    return [a for a in run.annotations if a.level == "error"]


# ---------------------------------------------------------------------------------------
# action.yml itself
# ---------------------------------------------------------------------------------------


def test_action_yml_declares_the_inputs_and_calls_the_script():
    action = load_action()
    assert action["runs"]["using"] == "composite"
    inputs = action["inputs"]
    assert set(inputs) == {
        "project", "comment", "fail-on", "version", "install", "release-url", "github-token", "pending"
    }
    assert inputs["project"]["default"] == "."
    assert inputs["pending"]["default"] == "true"
    assert inputs["comment"]["default"] == "true"
    assert inputs["fail-on"]["default"] == "drift,lint"
    assert inputs["github-token"]["default"] == "${{ github.token }}"
    assert inputs["install"]["default"] == "release"
    assert inputs["release-url"]["default"] == action_script.DEFAULT_RELEASE_URL
    for spec in inputs.values():
        assert spec.get("description"), "every input is documented"
    # `version` defaults to the action's own version: the workspace's.
    cargo = tomllib.loads((REPO / "Cargo.toml").read_text(encoding="utf-8"))
    version = cargo.get("workspace", {}).get("package", {}).get("version") or cargo["package"]["version"]
    assert inputs["version"]["default"] == version

    subcommands = set(action_script.build_parser()._subparsers._group_actions[0].choices)
    steps = action["runs"]["steps"]
    assert [s["id"] for s in steps] == ["cache", "install", "check", "diff", "upload-pending", "comment", "conclude"]
    # The pending snapshots the diff step lists are uploaded, only when there are some.
    [upload] = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert upload["if"] == "steps.diff.outputs.pending-files != ''"
    assert upload["with"]["path"] == "${{ steps.diff.outputs.pending-files }}"
    # The cache step keeps the folder the install step downloads into, per version and platform,
    # and only when the release binary is used.
    [cache] = [s for s in steps if s.get("uses", "").startswith("actions/cache@")]
    [install] = [s for s in steps if s["id"] == "install"]
    assert cache["uses"] == "actions/cache@v4" and cache["if"] == "inputs.install == 'release'"
    assert cache["with"]["path"] == install["env"]["PROMPTC_CACHE_DIR"]
    assert all(f"${{{{ {part} }}}}" in cache["with"]["key"] for part in ("inputs.version", "runner.os", "runner.arch"))
    steps = [s for s in steps if "uses" not in s]
    for step in steps:
        assert step["shell"] == "bash"
        run = step["run"]
        assert "${{" not in run, f"step {step['id']}: expressions belong in env:, not in the script"
        words = shlex.split(run)
        assert words[0] == "python3"
        script = words[1].replace("$GITHUB_ACTION_PATH", str(REPO))
        assert Path(script).resolve() == SCRIPT and SCRIPT.is_file()
        assert words[2] in subcommands, f"step {step['id']}: no subcommand {words[2]!r}"
        for value in (step.get("env") or {}).values():
            for expression in EXPRESSION.findall(str(value)):
                parts = expression.split(".")
                if parts[0] == "inputs":
                    assert parts[1] in inputs, f"step {step['id']} reads an undeclared input {expression}"
                elif parts[0] == "runner":
                    assert parts[1] in ("tool_cache", "os", "arch"), expression
                else:
                    assert parts[0] == "steps" and parts[1] in {s["id"] for s in steps}, expression
    for name, spec in action["outputs"].items():
        assert spec.get("description") and EXPRESSION.fullmatch(spec["value"]), name


def test_script_is_standard_library_only():
    imports = set(re.findall(r"^(?:import|from) ([a-z_.]+)", SCRIPT.read_text(encoding="utf-8"), re.M))
    top = {name.split(".")[0] for name in imports} - {"__future__"}
    assert top <= set(sys.stdlib_module_names), top - set(sys.stdlib_module_names)


# ---------------------------------------------------------------------------------------
# Comments
# ---------------------------------------------------------------------------------------


def test_first_run_posts_one_comment(example, promptc_bin, api):
    make_drift(example)
    run = run_action(example, promptc_bin, api=api)
    assert run.returncode == 1 and run.failed_step == "conclude", run.log
    posts = [r for r in api.writes if r.method == "POST"]
    assert len(api.writes) == 1 and len(posts) == 1, api.requests
    assert posts[0].path == f"/repos/{REPOSITORY}/issues/{PR}/comments"
    assert posts[0].headers["Authorization"] == f"Bearer {TOKEN}"
    body = posts[0].body["body"]
    assert body.startswith(MARKER + "\n")
    assert "### promptc diff — drift" in body
    assert DRIFT_LINE in body
    assert "commit 1111111" in body and "/actions/runs/777" in body
    assert len(api.comments[PR]) == 1
    assert run.outputs["drift"] == "true" and run.outputs["diff-exit-code"] == "1"
    assert run.outputs["comment-action"] == "created"
    assert run.outputs["comment-id"] == str(api.comments[PR][0]["id"])
    # The report is in the step summary too, and drift fails the job with an error annotation.
    assert "### promptc diff — drift" in run.step("diff").summary
    assert any("snapshot drift" in a.message for a in errors(run))
    # The report itself is printed in the log, but never executed as workflow commands.
    assert "::stop-commands::" in run.step("diff").stdout and DRIFT_LINE in run.step("diff").stdout


def test_second_run_updates_the_same_comment(example, promptc_bin, api):
    api.add_comment(PR, "Looks good to me!", login="octocat")
    make_drift(example)
    first = run_action(example, promptc_bin, api=api, event="pull_request_opened")
    assert first.outputs["comment-action"] == "created", first.log
    created = api.comments[PR][-1]
    make_drift(example, "And say what you changed.")
    second = run_action(example, promptc_bin, api=api, event="pull_request_synchronize")
    assert second.outputs["comment-action"] == "updated", second.log
    assert [r.method for r in api.writes] == ["POST", "PATCH"]
    assert api.writes[1].path == f"/repos/{REPOSITORY}/issues/comments/{created['id']}"
    ours = [c for c in api.comments[PR] if MARKER in c["body"]]
    assert len(ours) == 1 and len(api.comments[PR]) == 2, "no duplicate comment"
    assert "And say what you changed." in ours[0]["body"] and "commit 2222222" in ours[0]["body"]
    assert api.comments[PR][0]["body"] == "Looks good to me!"
    assert second.outputs["comment-id"] == str(created["id"])

    # The same report again: the comment is already right, nothing is written.
    third = run_action(example, promptc_bin, api=api, event="pull_request_synchronize")
    assert third.outputs["comment-action"] == "unchanged", third.log
    assert len(api.writes) == 2


def test_existing_comment_is_found_on_a_later_page(example, promptc_bin, api):
    for index in range(130):
        api.add_comment(PR, f"chatter {index}", login="octocat")
    api.add_comment(PR, "I quote it: " + MARKER, login="octocat")  # not ours: marker not first
    ours = api.add_comment(PR, f"{MARKER}\n<!-- promptc-project: . -->\nold report", login="github-actions[bot]")
    api.add_comment(PR, "more chatter", login="octocat")
    make_drift(example)
    run = run_action(example, promptc_bin, api=api)
    assert run.outputs["comment-action"] == "updated", run.log
    gets = [r for r in api.requests if r.method == "GET" and r.path.endswith("/comments")]
    assert [g.query.get("page", "1") for g in gets] == ["1", "2"]
    assert all(g.query.get("per_page") == "100" for g in gets)
    assert [(r.method, r.path) for r in api.writes] == [("PATCH", f"/repos/{REPOSITORY}/issues/comments/{ours['id']}")]
    assert len(api.comments[PR]) == 133


def test_comments_of_another_project_are_left_alone(example, promptc_bin, api):
    other = api.add_comment(PR, f"{MARKER}\n<!-- promptc-project: agents/other -->\nreport", login="github-actions[bot]")
    make_drift(example)
    run = run_action(example, promptc_bin, api=api, inputs={"project": "profiles"})
    assert run.outputs["comment-action"] == "created", run.log
    assert other["body"].endswith("report")
    assert "<!-- promptc-project: profiles -->" in api.comments[PR][-1]["body"]
    assert "project `profiles`" in api.comments[PR][-1]["body"]


def test_no_drift_and_no_comment_posts_nothing(example, promptc_bin, api):
    run = run_action(example, promptc_bin, api=api)
    assert run.returncode == 0, run.log
    assert api.writes == []
    assert [r.method for r in api.requests] == ["GET"]
    assert run.outputs["drift"] == "false" and run.outputs["comment-action"] == "none"
    assert "no drift" in run.step("diff").summary
    assert errors(run) == []


def test_no_drift_updates_an_existing_comment_to_say_the_snapshots_match(example, promptc_bin, api):
    original = (example / ROLE).read_text(encoding="utf-8")
    make_drift(example)
    first = run_action(example, promptc_bin, api=api)
    assert first.outputs["comment-action"] == "created", first.log
    (example / ROLE).write_text(original, encoding="utf-8")
    second = run_action(example, promptc_bin, api=api, event="pull_request_synchronize")
    assert second.returncode == 0, second.log
    assert second.outputs["comment-action"] == "updated"
    assert [r.method for r in api.writes] == ["POST", "PATCH"]
    body = api.comments[PR][0]["body"]
    assert body.startswith(MARKER) and "no drift" in body and "matches snapshots" in body
    assert DRIFT_LINE not in body
    assert len(api.comments[PR]) == 1


def test_push_event_posts_nothing(example, promptc_bin, api):
    make_drift(example)
    run = run_action(example, promptc_bin, api=api, event="push")
    assert api.requests == []
    assert run.outputs["comment-action"] == "none"
    assert "not a pull-request event" in run.step("comment").stdout
    # Drift still fails a push build, and the report is still in the summary.
    assert run.returncode == 1 and run.failed_step == "conclude", run.log
    assert "### promptc diff — drift" in run.summary


def test_comment_false_posts_nothing(example, promptc_bin, api):
    make_drift(example)
    run = run_action(example, promptc_bin, api=api, inputs={"comment": "false"})
    assert api.requests == []
    assert run.outputs["comment-action"] == "disabled"
    assert run.returncode == 1, run.log


def test_read_only_token_warns_and_does_not_fail_the_comment_step(example, promptc_bin, api):
    api.forbid_writes = True
    make_drift(example)
    run = run_action(example, promptc_bin, api=api, inputs={"fail-on": "none"})
    assert run.returncode == 0, run.log
    assert run.outputs["comment-action"] == "forbidden"
    warnings = [a for a in run.annotations if a.level == "warning" and a.properties.get("title") == "promptc comment"]
    assert len(warnings) == 1 and "pull-requests: write" in warnings[0].message
    assert "HTTP 403" in warnings[0].message


def test_missing_token_is_a_clear_error(example, promptc_bin, api):
    make_drift(example)
    run = run_action(example, promptc_bin, api=api, inputs={"github-token": ""})
    assert run.failed_step == "comment" and run.returncode == 2, run.log
    [error] = [a for a in errors(run) if a.properties.get("title") == "promptc comment"]
    assert "no GitHub token" in error.message and "github-token" in error.message
    assert api.requests == []


def test_bad_token_is_an_error_naming_the_status(example, promptc_bin, api):
    make_drift(example)
    run = run_action(example, promptc_bin, api=api, inputs={"github-token": "wrong"})
    assert run.failed_step == "comment" and run.returncode == 2, run.log
    assert any("HTTP 401" in a.message and "Bad credentials" in a.message for a in errors(run))


def test_missing_event_payload_is_a_clear_error(example, promptc_bin, api, tmp_path):
    make_drift(example)
    run = run_action(example, promptc_bin, api=api, env={"GITHUB_EVENT_PATH": str(tmp_path / "nope.json")})
    assert run.failed_step == "comment" and run.returncode == 2, run.log
    assert any("cannot read the event payload" in a.message for a in errors(run))
    # And outside Actions altogether: the script names the variable it needs.
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "comment", "--diff-exit-code", "1", "--token", TOKEN],
        env=hermetic_env(), capture_output=True, text=True,
    )
    assert done.returncode == 2
    assert "$GITHUB_EVENT_NAME is not set" in done.stdout


def test_a_marker_comment_by_someone_else_is_never_touched(example, promptc_bin, api):
    # Anyone may post a comment that starts with the marker: it is not ours to edit (GitHub
    # would refuse, 403), and the report is posted all the same.
    planted = api.add_comment(PR, f"{MARKER}\n<!-- promptc-project: . -->\nlooks fine to me", login="mallory")
    make_drift(example)
    run = run_action(example, promptc_bin, api=api)
    assert run.outputs["comment-action"] == "created", run.log
    assert [r.method for r in api.writes] == ["POST"]
    assert planted["body"].endswith("looks fine to me")
    ours = api.comments[PR][-1]
    assert ours["user"]["login"] == "github-actions[bot]" and DRIFT_LINE in ours["body"]
    # GITHUB_TOKEN cannot say who it is (GET /user: 403): github-actions[bot] is taken as us.
    assert [r.path for r in api.requests if r.method == "GET" and r.path == "/user"] == ["/user"]
    # The next run updates our comment, still never the planted one.
    make_drift(example, "And say what you changed.")
    again = run_action(example, promptc_bin, api=api, event="pull_request_synchronize")
    assert again.outputs["comment-action"] == "updated", again.log
    assert api.writes[-1].path == f"/repos/{REPOSITORY}/issues/comments/{ours['id']}"
    assert planted["body"].endswith("looks fine to me")


def test_with_a_personal_token_the_comment_is_found_by_its_login(example, promptc_bin, api):
    api.token_login = "octo-ci"
    bot = api.add_comment(PR, f"{MARKER}\n<!-- promptc-project: . -->\nan app's report", login="github-actions[bot]")
    mine = api.add_comment(PR, f"{MARKER}\n<!-- promptc-project: . -->\nold report", login="octo-ci")
    make_drift(example)
    run = run_action(example, promptc_bin, api=api)
    assert run.outputs["comment-action"] == "updated", run.log
    assert [(r.method, r.path) for r in api.writes] == [("PATCH", f"/repos/{REPOSITORY}/issues/comments/{mine['id']}")]
    assert bot["body"].endswith("an app's report") and DRIFT_LINE in mine["body"]


def test_a_comment_that_cannot_be_updated_gets_a_new_one(example, promptc_bin, api):
    ours = api.add_comment(PR, f"{MARKER}\n<!-- promptc-project: . -->\nold report", login="github-actions[bot]")
    api.locked.add(ours["id"])
    make_drift(example)
    run = run_action(example, promptc_bin, api=api)
    assert run.outputs["comment-action"] == "created", run.log
    assert [r.method for r in api.writes] == ["PATCH", "POST"]
    assert DRIFT_LINE in api.comments[PR][-1]["body"] and ours["body"].endswith("old report")


# ---------------------------------------------------------------------------------------
# Hostile projects: nothing they hold becomes a workflow command or markdown
# ---------------------------------------------------------------------------------------

SEPARATORS = ["\u2028", "\u2029", "\u0085", "\u000b", "\u001c", "\u001b"]


def test_workflow_command_values_escape_every_line_break():
    for sep in SEPARATORS + ["\n", "\r"]:
        line = action_script.workflow_command("error", f"a{sep}::warning file=evil.yaml::forged",
                                              file=f"x{sep}::notice::y", title="t")
        assert len(line.splitlines()) == 1, repr(line)
        [annotation] = workflow_commands(line)
        assert annotation.level == "error" and annotation.properties["title"] == "t"
    assert action_script.escape_data("50%0A\u2028") == "50%250A\\u{2028}"
    assert action_script.escape_property("a:b,c\u0085") == "a%3Ab%2Cc\\u{0085}"


@pytest.mark.parametrize("sep", SEPARATORS)
def test_a_section_id_cannot_forge_an_annotation(example, promptc_bin, api, sep):
    manifest = example / "profiles" / "promptc.yaml"
    forged = json.dumps(f"role{sep}::warning file=evil.yaml,line=1::forged")
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace("\n  role:\n", f"\n  {forged}:\n", 1), encoding="utf-8")
    run = run_action(example, promptc_bin, api=api, inputs={"comment": "false"})
    assert run.returncode == 2, run.log
    assert run.annotations, run.log
    for annotation in run.annotations:
        assert annotation.properties.get("file") != "evil.yaml" and annotation.message != "forged", run.log
        assert annotation.level == "error", annotation


def test_raw_separators_from_an_older_promptc_are_not_passed_on(example, tmp_path, api):
    # A promptc that printed a section id's U+2028 raw: the action does not split its line there.
    fake = tmp_path / "old-promptc"
    fake.write_text(
        "#!/usr/bin/env python3\n"
        "import sys\n"
        "if sys.argv[1:] == ['--version']:\n"
        "    print('promptc 0.1.0'); sys.exit(0)\n"
        "if 'check' in sys.argv:\n"
        "    sys.stdout.write('::error file=p.yaml,line=1::bad id `a\\u2028::warning file=evil.yaml::forged`\\n')\n"
        "    sys.exit(1)\n"
        "print('### promptc diff — no drift')\n",
        encoding="utf-8",
    )
    fake.chmod(0o755)
    run = run_action(example, fake, api=api, inputs={"comment": "false", "fail-on": "none"})
    assert run.returncode == 0, run.log
    check = workflow_commands(run.step("check").stdout)
    assert [(a.level, a.properties.get("file")) for a in check] == [("error", "p.yaml")], run.log
    assert "\\u{2028}::warning file=evil.yaml::forged" in check[0].message


def assert_inert_markdown(md: str, where: str):
    """No name opened a heading, mention, link, image or HTML tag of its own."""
    headings = [line for line in md.splitlines() if line.lstrip().startswith("#")]
    assert all(line.startswith("### promptc ") for line in headings), (where, headings)
    md = md.replace("[workflow run](", "").replace("[job summary](", "")  # the action's own links
    for bad in ["@octocat", "](", "![", "<img", "\u2028", "javascript:"]:
        assert bad not in md, (where, bad, md)
    tags = set(re.findall(r"<(/?[a-zA-Z]+)", md))
    assert tags <= {"details", "/details", "summary", "/summary", "code", "/code", "sub", "/sub"}, (where, tags)
    fences = [line for line in md.splitlines() if line.lstrip().startswith("```")]
    assert len(fences) % 2 == 0, (where, fences)


def test_a_snapshot_file_name_cannot_inject_markdown(example, promptc_bin, api):
    evil = ("x\n\n# Heading @octocat [link](javascript:alert) ![i](evil.png) <img src=x>\n"
            "```\n|\u2028.prompt.md")
    (example / "snapshots" / evil).write_text("planted\n", encoding="utf-8")
    summary_path = example / "snapshots" / "summary.json"
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    planted = "planted\n".encode("utf-8")
    summary["files"].append({"name": evil, "bytes": len(planted), "sha256": hashlib.sha256(planted).hexdigest()})
    summary_path.write_text(json.dumps(summary, indent=2), encoding="utf-8")
    run = run_action(example, promptc_bin, api=api)
    assert run.outputs["comment-action"] == "created", run.log
    body = api.comments[PR][-1]["body"]
    assert "Heading&#32;&#64;octocat" in body, body
    assert_inert_markdown(body, "comment")
    assert "Heading&#32;&#64;octocat" in run.summary
    assert_inert_markdown(run.summary, "job summary")


def test_markdown_code_escapes_what_could_end_it():
    assert action_script.markdown_code("agents/main") == "`agents/main`"
    assert action_script.markdown_code("a`b\n@x") == "<code>a&#96;b&#92;u&#123;000a&#125;&#64;x</code>"


# ---------------------------------------------------------------------------------------
# fail-on
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fail_on, check, diff, expected",
    [
        ("drift,lint", 0, 0, 0),
        ("drift,lint", 1, 0, 1),
        ("drift,lint", 0, 1, 1),
        ("lint,drift", 1, 1, 1),
        ("lint", 0, 1, 0),
        ("lint", 1, 0, 1),
        ("drift", 1, 0, 0),
        ("drift", 0, 1, 1),
        (" Drift , LINT ", 0, 1, 1),
        ("none", 1, 1, 0),
        ("none", 2, 0, 2),  # errors fail whatever fail-on says
        ("drift,lint", 0, 2, 2),
        ("lint", 101, 0, 2),  # a crash is an error, not a finding
    ],
)
def test_conclude_exit_codes(fail_on, check, diff, expected):
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "conclude", "--fail-on", fail_on,
         "--check-exit-code", str(check), "--diff-exit-code", str(diff)],
        env=hermetic_env(), capture_output=True, text=True,
    )
    assert done.returncode == expected, done.stdout + done.stderr
    commands = workflow_commands(done.stdout)
    if expected == 1:
        assert [a.level for a in commands] == ["error"]
    if expected == 0 and 1 in (check, diff):
        assert [a.level for a in commands] == ["warning"] and "not failing" in commands[0].message


@pytest.mark.parametrize("fail_on", ["", "lint,typo", "none,lint", "all"])
def test_invalid_fail_on_is_rejected_before_anything_runs(example, promptc_bin, api, fail_on):
    run = run_action(example, promptc_bin, api=api, inputs={"fail-on": fail_on})
    assert run.failed_step == "install" and run.returncode == 2, run.log
    [error] = errors(run)
    assert error.message.startswith("fail-on")
    assert len(run.steps) == 1


def test_invalid_comment_value_is_rejected(example, promptc_bin, api):
    run = run_action(example, promptc_bin, api=api, inputs={"comment": "yes"})
    assert run.failed_step == "install" and run.returncode == 2, run.log
    assert "comment: expected `true` or `false`" in errors(run)[0].message


def test_fail_on_end_to_end_lint_without_drift(example, promptc_bin, api):
    make_lint_error(example)
    snap = subprocess.run([str(promptc_bin), "-C", str(example / "profiles"), "snapshot"],
                          capture_output=True, text=True, env=hermetic_env())
    assert snap.returncode == 0, snap.stderr

    lint = run_action(example, promptc_bin, api=api, inputs={"fail-on": "lint"})
    assert lint.returncode == 1 and lint.failed_step == "conclude", lint.log
    assert lint.outputs["lint-exit-code"] == "1" and lint.outputs["drift"] == "false"
    p001 = [a for a in errors(lint) if a.properties.get("title") == "P001"]
    assert p001 and p001[0].properties["file"] == str(ROLE)
    assert int(lint.outputs["lint-errors"]) == len(p001)
    assert api.writes == [], "no drift, no comment"

    drift_only = run_action(example, promptc_bin, api=api, inputs={"fail-on": "drift"})
    assert drift_only.returncode == 0, drift_only.log
    assert any(a.level == "warning" and "lint errors found" in a.message for a in drift_only.annotations)


def test_drift_uploads_pending_snapshots_that_review_accepts(example, promptc_bin, api):
    make_drift(example)
    run = run_action(example, promptc_bin, api=api)
    pending = [line for line in run.outputs["pending-files"].splitlines() if line]
    assert pending and all(p.endswith(".new") for p in pending), run.log
    uploads = [u for u in run.used if u["uses"].startswith("actions/upload-artifact@")]
    assert len(uploads) == 1 and uploads[0]["name"] == "promptc-pending-snapshots", run.used
    assert uploads[0]["path"].splitlines() == run.outputs["pending-files"].splitlines()
    for p in pending:
        assert (example / p).is_file() or Path(p).is_file(), p
    # What the artifact holds is what `promptc review --accept` takes locally.
    done = subprocess.run([str(promptc_bin), "review", "--accept", "*"], cwd=example, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    again = subprocess.run([str(promptc_bin), "diff"], cwd=example, capture_output=True, text=True)
    assert again.returncode == 0, again.stdout + again.stderr


def test_no_drift_or_pending_false_uploads_nothing(example, promptc_bin, api):
    run = run_action(example, promptc_bin, api=api)
    assert run.outputs.get("pending-files", "") == "" and not [u for u in run.used if "upload" in u["uses"]]
    make_drift(example)
    run = run_action(example, promptc_bin, api=api, inputs={"pending": "false"})
    assert run.outputs.get("pending-files", "") == "" and not [u for u in run.used if "upload" in u["uses"]]


def test_fail_on_end_to_end_drift_without_lint(example, promptc_bin, api):
    make_drift(example)
    assert run_action(example, promptc_bin, api=api, inputs={"fail-on": "lint"}).returncode == 0
    assert run_action(example, promptc_bin, api=api, inputs={"fail-on": "none"}).returncode == 0
    failing = run_action(example, promptc_bin, api=api, inputs={"fail-on": "drift"})
    assert failing.returncode == 1 and failing.outputs["lint-exit-code"] == "0", failing.log


# ---------------------------------------------------------------------------------------
# Annotations and project errors
# ---------------------------------------------------------------------------------------


def test_lint_annotations_are_relative_to_the_workspace(example, promptc_bin, api):
    make_lint_error(example)
    # An absolute project path makes promptc print absolute file names.
    run = run_action(example, promptc_bin, api=api, inputs={"project": str(example / "profiles"), "comment": "false"})
    p001 = [a for a in errors(run) if a.properties.get("title") == "P001"]
    assert p001, run.log
    assert {a.properties["file"] for a in p001} == {str(ROLE)}
    assert all(a.properties["line"].isdigit() for a in p001)


@pytest.mark.parametrize("legacy", [False, True], ids=["current-cli", "cli-with-stderr-only-load-errors"])
def test_yaml_error_is_annotated_once_and_fails(example, promptc_bin, api, tmp_path, legacy):
    binary, _ = wrapped_promptc(tmp_path, promptc_bin, legacy=legacy)
    line = break_yaml(example)
    api.add_comment(PR, f"{MARKER}\n<!-- promptc-project: . -->\nold drift report", login="github-actions[bot]")
    run = run_action(example, binary, api=api, inputs={"fail-on": "none"})
    assert run.returncode == 2 and run.failed_step == "conclude", run.log
    assert run.outputs["lint-exit-code"] == "2" and run.outputs["diff-exit-code"] == "2"
    check_errors = workflow_commands(run.step("check").stdout)
    assert check_errors and all(a.level == "error" for a in check_errors), run.log
    located = [a for a in check_errors if a.properties.get("file") == "profiles/promptc.yaml"]
    assert len(located) == 1 and located[0].properties.get("line") == str(line), check_errors
    if legacy:
        # Made from the stderr diagnostic: the located message with its source excerpt.
        assert located[0].properties.get("title") == "promptc check"
        assert "contract_version: [1" in located[0].message
    # The diff step meets the same error and does not annotate it a second time.
    assert workflow_commands(run.step("diff").stdout) == []
    # The stale drift comment now says what went wrong instead.
    assert run.outputs["comment-action"] == "updated"
    assert "error" in api.comments[PR][0]["body"] and "promptc.yaml" in api.comments[PR][0]["body"]
    assert "old drift report" not in api.comments[PR][0]["body"]


def test_yaml_error_without_a_comment_posts_nothing(example, promptc_bin, api):
    break_yaml(example)
    run = run_action(example, promptc_bin, api=api)
    assert run.returncode == 2, run.log
    assert api.writes == []


def test_stderr_diagnostic_becomes_one_located_annotation():
    stderr = (
        "error: expected string scalar\n"
        "  --> profiles/promptc.yaml:13:19\n"
        "   |\n"
        "13 | contract_version: [1\n"
        "   |                   ^\n"
    )
    [annotation] = workflow_commands(action_script.stderr_annotation("check", 2, stderr))
    assert annotation.level == "error"
    assert annotation.properties == {"file": "profiles/promptc.yaml", "line": "13", "col": "19",
                                     "title": "promptc check"}
    assert annotation.message == stderr.strip()
    [bare] = workflow_commands(action_script.stderr_annotation("diff", 2, ""))
    assert bare.properties == {"title": "promptc diff"} and "printed no diagnostic" in bare.message


def test_missing_project_is_annotated(example, promptc_bin, api):
    run = run_action(example, promptc_bin, api=api, inputs={"project": "no/such/project", "comment": "false"})
    assert run.returncode == 2, run.log
    assert any("no project manifest" in a.message for a in errors(run)), run.log


def test_missing_promptc_is_a_clear_error(example, promptc_bin, api):
    run = run_action(example, promptc_bin, api=api, inputs={"install": ""})
    assert run.failed_step == "install" and run.returncode == 2, run.log
    [error] = errors(run)
    assert "promptc is not installed" in error.message and "install" in error.message


# ---------------------------------------------------------------------------------------
# install
# ---------------------------------------------------------------------------------------


def test_install_runs_the_command_with_the_version(example, promptc_bin, api):
    command = 'printf %s "$PROMPTC_VERSION" > "$RUNNER_TEMP/asked" && ' + install_symlink_command()
    run = run_action(example, promptc_bin, api=api, inputs={"install": command, "version": "0.1.0"}, stop_after="install")
    assert run.returncode == 0, run.log
    temp = Path(run.step("install").outputs["promptc"]).parent.parent
    assert (temp / "asked").read_text() == "0.1.0"
    assert run.step("install").outputs["version"] == "0.1.0"


def test_install_rejects_a_different_promptc(example, promptc_bin, api):
    # What `pip install promptc` gives: the name belongs to another project on PyPI.
    impostor = (
        'mkdir -p "$RUNNER_TEMP/bin" && printf "#!/bin/sh\\necho promptc, version 0.1.0\\n" > "$RUNNER_TEMP/bin/promptc" '
        '&& chmod +x "$RUNNER_TEMP/bin/promptc" && echo "$RUNNER_TEMP/bin" >> "$GITHUB_PATH"'
    )
    run = run_action(example, promptc_bin, api=api, inputs={"install": impostor})
    assert run.failed_step == "install" and run.returncode == 2, run.log
    [error] = errors(run)
    assert "not the promptc prompt compiler" in error.message and "'promptc, version 0.1.0'" in error.message


def test_install_warns_when_the_version_differs(example, promptc_bin, api):
    run = run_action(example, promptc_bin, api=api, inputs={"version": "9.9.9"}, stop_after="install")
    assert run.returncode == 0, run.log
    assert any(a.level == "warning" and "asks for 9.9.9" in a.message for a in run.annotations)


def test_install_failure_stops_the_action(example, promptc_bin, api):
    run = run_action(example, promptc_bin, api=api, inputs={"install": "exit 3"})
    assert run.failed_step == "install" and run.returncode == 2, run.log
    assert "the install command exited with 3" in errors(run)[0].message


def test_pip_install_command_gets_a_venv_whose_bin_later_steps_see(example, promptc_bin, api, tmp_path):
    wheels = sorted((REPO / "target" / "wheels").glob("promptc_cli-*.whl"))
    if wheels:
        command = 'pip install --quiet --no-index --find-links "$WHEELS" "promptc-cli==$PROMPTC_VERSION"'
    else:
        # No wheel built: still prove the command's pip is the venv's (then promptc is missing).
        command = 'pip --version > "$RUNNER_TEMP/pip-version"'
    runner = tmp_path / "runner"
    run = run_action(example, promptc_bin, api=api, inputs={"install": command},
                     env={"WHEELS": str(REPO / "target" / "wheels")}, stop_after="install", runner_temp=runner)
    venv_bin = runner / "temp" / "promptc-venv" / "bin"
    assert (runner / "install.path").read_text().split() == [str(venv_bin)], run.log
    if wheels:
        assert run.returncode == 0, run.log
        assert run.step("install").outputs["promptc"] == str(venv_bin / "promptc")
        assert run.step("install").outputs["version"] == load_action()["inputs"]["version"]["default"]
    else:
        assert run.returncode == 2
        assert str(runner / "temp" / "promptc-venv") in (runner / "temp" / "pip-version").read_text()


# ---------------------------------------------------------------------------------------
# install: release (the prebuilt binary from a fake release server)
# ---------------------------------------------------------------------------------------

VERSION = tomllib.loads((REPO / "Cargo.toml").read_text(encoding="utf-8"))["workspace"]["package"]["version"]
LINUX_X64 = "x86_64-unknown-linux-gnu"


class FakeRelease(LocalServer):
    """GitHub's release downloads on 127.0.0.1: GET /v<version>/<file> answers `files`, and
    every request is recorded."""

    def __init__(self, files: dict[str, bytes]):
        self.files = files
        self.requests: list[str] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                fake.requests.append(self.path)
                body = fake.files.get(self.path)
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Length", str(len(body or b"")))
                self.end_headers()
                self.wfile.write(body or b"")

        self.serve(Handler)


@pytest.fixture(scope="session")
def release_archive(promptc_bin, tmp_path_factory) -> bytes:
    """The Linux x86_64 archive of the test's binary, made as the release makes it
    (`scripts/dist.sh archive`, which the release workflow runs on every platform)."""
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(["bash", str(REPO / "scripts" / "dist.sh"), "archive", LINUX_X64, str(promptc_bin)],
                   cwd=REPO, env=dict(os.environ, DIST_DIR=str(out)), check=True, capture_output=True)
    return (out / f"promptc-{VERSION}-{LINUX_X64}.tar.gz").read_bytes()


def release_files(archive: bytes, *, listed: bytes | None = None) -> dict[str, bytes]:
    """A release holding `archive`; its SHA256SUMS lists `listed`'s digest (default: the archive's)
    in sha256sum's format, beside another platform's line."""
    name = f"promptc-{VERSION}-{LINUX_X64}.tar.gz"
    digest = hashlib.sha256(archive if listed is None else listed).hexdigest()
    sums = f"{'0' * 64}  promptc-{VERSION}-aarch64-apple-darwin.tar.gz\n{digest}  {name}\n"
    return {f"/v{VERSION}/{name}": archive, f"/v{VERSION}/SHA256SUMS": sums.encode()}


@pytest.fixture
def release(release_archive):
    fake = FakeRelease(release_files(release_archive))
    yield fake
    fake.close()


# pip must not reach the real index in the fallback tests: the test's own wheels only, if any.
NO_INDEX = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(REPO / "target" / "wheels")}


def test_release_install_checks_the_binary_and_caches_it(example, promptc_bin, api, release, tmp_path):
    tool_cache = tmp_path / "toolcache"
    inputs = {"install": "release", "release-url": release.url, "comment": "false"}
    run = run_action(example, promptc_bin, api=api, inputs=inputs, tool_cache=tool_cache, env=NO_INDEX,
                     stop_after="check")
    assert run.returncode == 0, run.log
    cache_dir = tool_cache / "promptc" / VERSION
    install = run.step("install")
    assert install.outputs["installed-from"] == "release"
    assert install.outputs["promptc"] == str(cache_dir / "bin" / "promptc")
    assert install.outputs["version"] == VERSION
    assert (cache_dir / "bin" / "promptc").read_bytes() == promptc_bin.read_bytes()
    # The later steps run the release binary (found on PATH through $GITHUB_PATH).
    assert run.step("check").outputs["exit-code"] == "0", run.log
    # The cache step keeps the folder the binary was installed in, per version and platform.
    [cache] = run.used
    assert cache["path"] == str(cache_dir) and cache["key"] == f"promptc-{VERSION}-Linux-X64"
    archive_path = f"/v{VERSION}/promptc-{VERSION}-{LINUX_X64}.tar.gz"
    assert release.requests == [f"/v{VERSION}/SHA256SUMS", archive_path]

    # The next run finds the archive in the restored cache: only the checksums are fetched.
    release.requests.clear()
    again = run_action(example, promptc_bin, api=api, inputs=inputs, tool_cache=tool_cache, env=NO_INDEX,
                       stop_after="install")
    assert again.returncode == 0 and "from the cache" in again.step("install").stdout, again.log
    assert release.requests == [f"/v{VERSION}/SHA256SUMS"]

    # A cached archive the release no longer lists (tampered with, or another build) is not used.
    (cache_dir / f"promptc-{VERSION}-{LINUX_X64}.tar.gz").write_bytes(b"not the release")
    release.requests.clear()
    third = run_action(example, promptc_bin, api=api, inputs=inputs, tool_cache=tool_cache, env=NO_INDEX,
                       stop_after="install")
    assert third.returncode == 0, third.log
    assert release.requests == [f"/v{VERSION}/SHA256SUMS", archive_path]


def test_release_archive_that_does_not_match_its_checksum_is_refused(example, promptc_bin, api, release_archive,
                                                                    tmp_path):
    fake = FakeRelease(release_files(release_archive, listed=b"the archive that was released"))
    try:
        run = run_action(example, promptc_bin, api=api, inputs={"install": "release", "release-url": fake.url},
                         tool_cache=tmp_path / "toolcache", env=NO_INDEX)
    finally:
        fake.close()
    # Never a fallback: a mismatch may be an attack.
    assert run.failed_step == "install" and run.returncode == 2, run.log
    [error] = errors(run)
    assert "does not match the release's SHA256SUMS" in error.message
    assert not (tmp_path / "toolcache" / "promptc" / VERSION / "bin" / "promptc").exists()


@pytest.mark.parametrize("case", ["no-binary-for-the-platform", "release-unreachable", "not-in-the-release"])
def test_release_install_falls_back_to_pip(example, promptc_bin, api, release, tmp_path, case):
    inputs = {"install": "release", "release-url": release.url}
    env = dict(NO_INDEX)
    if case == "no-binary-for-the-platform":
        env["RUNNER_ARCH"] = "S390X"
    elif case == "release-unreachable":
        inputs["release-url"] = "http://127.0.0.1:9"
    else:
        inputs["version"] = "0.0.1"
    runner = tmp_path / "runner"
    run = run_action(example, promptc_bin, api=api, inputs=inputs, env=env, stop_after="install", runner_temp=runner,
                     tool_cache=tmp_path / "toolcache")
    install = run.step("install")
    assert f'running the install command: pip install "promptc-cli==$PROMPTC_VERSION"' in install.stdout, run.log
    if case != "no-binary-for-the-platform":
        assert any(a.level == "warning" and "installing with pip" in a.message for a in run.annotations), run.log
    venv_bin = runner / "temp" / "promptc-venv" / "bin"
    wheels = sorted((REPO / "target" / "wheels").glob(f"promptc_cli-{VERSION}-*.whl"))
    if wheels and case != "not-in-the-release":
        assert run.returncode == 0, run.log
        assert install.outputs["installed-from"] == "pip"
        assert install.outputs["promptc"] == str(venv_bin / "promptc")
    else:
        # No wheel of that version here (and no index): pip was run, and failed clearly.
        assert run.failed_step == "install" and "the install command exited" in errors(run)[0].message, run.log


def test_release_targets_are_the_release_workflows():
    """The action asks for the archives the release workflow builds, for every runner it names."""
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8"))
    built = {entry["target"] for entry in workflow["jobs"]["build"]["strategy"]["matrix"]["include"]}
    assert set(action_script.RELEASE_TARGETS.values()) == built


def test_release_checksum_reads_sha256sum_output():
    digest = "ab" * 32
    sums = f"{digest}  promptc-1-x.tar.gz\n{'cd' * 32} *promptc-1-y.tar.gz\nnot a line\n"
    assert action_script.release_checksum(sums, "promptc-1-x.tar.gz") == digest
    assert action_script.release_checksum(sums, "promptc-1-y.tar.gz") == "cd" * 32
    assert action_script.release_checksum(sums, "promptc-1") is None


# ---------------------------------------------------------------------------------------
# Size limits
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("legacy", [False, True], ids=["current-cli", "cli-without-max-bytes"])
def test_huge_report_is_truncated_under_the_comment_limit(example, promptc_bin, api, tmp_path, legacy):
    binary, argv = wrapped_promptc(tmp_path, promptc_bin, legacy=legacy)
    lines = [f"Rule {n:04d}: a long and distinct sentence that makes the diff large." for n in range(2000)]
    make_drift(example, "\n".join(lines))
    run = run_action(example, binary, api=api)
    assert run.outputs["comment-action"] == "created", run.log
    diff_calls = [line for line in argv.read_text().splitlines() if " diff --format markdown" in line]
    assert len(diff_calls) == 1
    # The CLI's own cap is asked for only when `diff --help` lists it.
    assert diff_calls[0].endswith("--max-bytes 60000") != legacy
    report = Path(run.outputs["report-file"]).read_text(encoding="utf-8")
    [post] = api.writes
    body = post.body["body"]
    assert len(body.encode("utf-16-le")) // 2 <= LIMIT
    assert body.startswith(MARKER)
    if legacy:
        assert len(report) > LIMIT, "the test needs a report larger than a comment"
        assert "The report was truncated" in body and f"{len(report):,} characters" in body
        assert len(body) > LIMIT - 10_000, "truncation keeps most of the room"
    else:
        assert len(report.encode("utf-8")) <= 60000 + 1000
        assert report.strip() in body, "a report within the CLI's cap is posted whole"
    # What is left is well-formed: no open code fence or <details>.
    fences = [line for line in body.splitlines() if line.lstrip().startswith("```")]
    assert len(fences) % 2 == 0
    assert body.count("<details>") == body.count("</details>")
    assert body.rstrip().endswith("</sub>")
    # The step summary keeps the whole report (it is far below 1 MiB).
    assert report.strip() in run.step("diff").summary


def test_truncate_markdown_closes_blocks_and_fits():
    block = "<details><summary>file</summary>\n\n```diff\n" + "".join(f"+line {n}\n" for n in range(5000)) + "```\n\n</details>\n\n"
    report = "### promptc diff — drift\n\n" + block * 3
    note = "\n> truncated\n"
    for limit in (500, 4096, 65536):
        text, truncated = action_script.truncate_markdown(report, limit, note)
        assert truncated and len(text) <= limit and text.endswith(note)
        assert text.count("<details>") == text.count("</details>")
        assert sum(1 for line in text.splitlines() if line.startswith("```")) % 2 == 0
    same, truncated = action_script.truncate_markdown("short\n", 100, note)
    assert (same, truncated) == ("short\n", False)
    # Characters outside the BMP count twice, as GitHub's limit does.
    emoji = "😀" * 40
    text, truncated = action_script.truncate_markdown(emoji + "\n" + emoji + "\n", 120, note)
    assert truncated and len(text.encode("utf-16-le")) // 2 <= 120


def test_build_body_is_always_under_the_limit():
    report = "### promptc diff — drift\n\n```diff\n" + ("+" + "x" * 99 + "\n") * 2000 + "```\n"
    body, truncated = action_script.build_body(report, "profiles", "abcdef0123")
    assert truncated and len(body) <= LIMIT
    assert body.startswith(MARKER + "\n<!-- promptc-project: profiles -->\n")
    assert action_script.comment_matches(body, "profiles")
    assert not action_script.comment_matches(body, ".")
    body, truncated = action_script.build_body("### promptc diff — no drift\n", ".", None)
    assert not truncated and action_script.comment_matches(body, ".")


def test_next_link_parsing():
    header = '<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=5>; rel="last"'
    assert action_script.next_link(header) == "https://api.github.com/x?page=2"
    assert action_script.next_link('<https://api.github.com/x?page=1>; rel="prev"') is None
    assert action_script.next_link("") is None

#!/usr/bin/env bash
# Test the GitHub Action (action.yml, integrations/github/) and the pre-commit hooks
# (.pre-commit-hooks.yaml) locally, against a built promptc binary.
#
#   scripts/integrations-test.sh                # all integration tests
#   scripts/integrations-test.sh -k comment     # extra arguments go to pytest
#
# The Python venv is the conformance venv (scripts/conformance-env.sh: pytest, PyYAML);
# a pinned pre-commit is installed into it when missing. No network is needed after that:
# the GitHub API is a fake server on 127.0.0.1.
#
# Environment:
#   PROMPTC_BIN   the promptc binary to test (default: target/debug/promptc, built first)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
log() { printf 'integrations-test: %s\n' "$*" >&2; }

PRE_COMMIT_VERSION=4.7.0

bin=${PROMPTC_BIN:-$repo/target/debug/promptc}
if [ -z "${PROMPTC_BIN:-}" ]; then
    # Without PROMPTC_BIN: the checkout's own binary, built now (a no-op when it is up to
    # date), never a stale one left by an earlier build.
    (cd "$repo" && env -u CARGO_BUILD_TARGET cargo build --locked --quiet) >&2
fi
case $bin in /*) ;; *) bin=$repo/$bin ;; esac
if [ ! -x "$bin" ]; then
    log "error: no promptc binary at $bin; build it (cargo build) or set PROMPTC_BIN"
    exit 2
fi

PY=$(bash scripts/conformance-env.sh | tail -n1)
have=$("$PY" -c 'import importlib.metadata as m; print(m.version("pre-commit"))' 2>/dev/null || true)
if [ "$have" != "$PRE_COMMIT_VERSION" ]; then
    log "installing pre-commit==$PRE_COMMIT_VERSION into $(dirname "$(dirname "$PY")")"
    "$PY" -m pip install --quiet --disable-pip-version-check "pre-commit==$PRE_COMMIT_VERSION" >&2
fi

log "testing $bin ($("$bin" --version))"
PROMPTC_BIN=$bin exec "$PY" -m pytest -q -p no:cacheprovider integrations/tests "$@"

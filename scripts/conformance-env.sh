#!/usr/bin/env bash
# Create (idempotently) the Python venv used by conformance/check_tools.py and
# print the path of its python as the last line of stdout.
#
#   PY=$(scripts/conformance-env.sh | tail -n1)
#   "$PY" conformance/check_tools.py --dir fixtures/conformance/good
#
# The venv lives in target/conformance-venv (cargo's target/ is git-ignored).
# Installs are skipped when the stamp file holds the current hash of
# conformance/requirements.txt, so re-runs take well under a second.
#
# Environment:
#   PYTHON            interpreter to build the venv from (default: python3.11,
#                     else python3); must be >= 3.11 (google-genai requires it)
#   CONFORMANCE_VENV  venv location (default: <repo>/target/conformance-venv)
#
# All progress and pip output goes to stderr; stdout carries only the path.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
requirements="$repo/conformance/requirements.txt"
venv="${CONFORMANCE_VENV:-$repo/target/conformance-venv}"
venv_python="$venv/bin/python"
stamp="$venv/.requirements.sha256"

log() { printf 'conformance-env: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[ -f "$requirements" ] || die "missing $requirements"

if [ -n "${PYTHON:-}" ]; then
    base_python=$PYTHON
elif command -v python3.11 >/dev/null 2>&1; then
    base_python=python3.11
elif command -v python3 >/dev/null 2>&1; then
    base_python=python3
else
    die "no python3 found; install Python >= 3.11 (Debian: apt-get install python3 python3-venv)"
fi
"$base_python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || die "$base_python is $("$base_python" -V 2>&1); Python >= 3.11 is required (set PYTHON=...)"

# The stamp covers the requirements and the interpreter version, so a new
# base Python (e.g. an OS upgrade) also triggers a rebuild.
want_hash=$( { cat "$requirements"; "$base_python" -V 2>&1; } | sha256sum | cut -d' ' -f1)

mkdir -p "$(dirname "$venv")"
# Serialise concurrent runs (e.g. parallel test jobs) when flock exists.
if command -v flock >/dev/null 2>&1; then
    exec 9>"$venv.lock"
    flock 9
fi

venv_runs() {
    [ -x "$venv_python" ] && "$venv_python" -c '' >/dev/null 2>&1
}
venv_works() {
    venv_runs && "$venv_python" -m pip --version >/dev/null 2>&1
}

# Fast path: the stamp is only written after a successful install, so a
# running interpreter is all that needs checking (pip --version costs ~0.3 s).
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want_hash" ] && venv_runs; then
    printf '%s\n' "$venv_python"
    exit 0
fi

if ! venv_works; then
    # A venv whose python or pip is broken (half-created, or its base Python
    # was removed) is rebuilt from scratch.
    rm -rf "$venv"
    log "creating venv at $venv with $base_python"
    if ! "$base_python" -m venv "$venv" >&2 || ! venv_works; then
        # Debian ships the venv module's ensurepip separately (python3-venv);
        # without it `python3 -m venv` leaves a venv without pip.
        rm -rf "$venv"
        log "'$base_python -m venv' failed; trying virtualenv"
        if ! "$base_python" -m virtualenv --version >/dev/null 2>&1; then
            "$base_python" -m pip install --quiet --user --no-warn-script-location virtualenv >&2 \
                || die "cannot create a venv: install python3-venv (Debian: apt-get install python3-venv) or virtualenv"
        fi
        "$base_python" -m virtualenv --quiet "$venv" >&2 || die "virtualenv failed to create $venv"
        venv_works || die "venv at $venv has no working pip"
    fi
fi

log "installing $(basename "$requirements") into $venv"
"$venv_python" -m pip install --quiet --disable-pip-version-check -r "$requirements" >&2 \
    || die "pip install -r $requirements failed"
printf '%s\n' "$want_hash" > "$stamp"
printf '%s\n' "$venv_python"

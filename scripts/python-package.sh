#!/usr/bin/env bash
# Build, install and test the Python package (bindings/python) on a fresh machine.
#
#   scripts/python-package.sh build   # the abi3 wheel into target/wheels (maturin, release; see PROMPTC_PROFILE)
#   scripts/python-package.sh test    # build, install into the test venv, run pytest
#   scripts/python-package.sh bench   # build, install, run the compile benchmark
#
# The venv is the conformance venv (scripts/conformance-env.sh: pinned maturin, pytest and the
# provider SDKs the agent test validates requests with). The tests compare the package with
# the promptc binary named by PROMPTC_BIN (default: target/debug/promptc, built first).
#
# PROMPTC_PROFILE=debug builds the wheel with cargo's dev profile instead of release: CI does,
# so the build reuses the dependencies `cargo test` compiled instead of compiling them again
# optimised (only crates whose features differ from the tests' build are compiled again).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
log() { printf 'python-package: %s\n' "$*" >&2; }

PY=$(bash scripts/conformance-env.sh | tail -n1)

profile=${PROMPTC_PROFILE:-release}
case "$profile" in
    release) profile_flag=(--release) ;;
    debug) profile_flag=() ;;
    *) log "error: PROMPTC_PROFILE is release or debug, not $profile"; exit 2 ;;
esac

build() {
    rm -f target/wheels/promptc_cli-*.whl
    log "building the wheel (maturin, $profile)"
    "$PY" -m maturin build "${profile_flag[@]}" --locked --quiet -m bindings/python/Cargo.toml --out target/wheels >&2
    wheel=$(ls target/wheels/promptc_cli-*.whl)
    log "built $wheel"
    printf '%s\n' "$wheel"
}

install() {
    local wheel
    wheel=$(build | tail -n1)
    "$PY" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheel" >&2
}

binary() {
    local bin=${PROMPTC_BIN:-$repo/target/debug/promptc}
    if [ -z "${PROMPTC_BIN:-}" ]; then
        # Without PROMPTC_BIN: the checkout's own binary, built now (a no-op when it is up to
        # date), never a stale one left by an earlier build.
        env -u CARGO_BUILD_TARGET cargo build --locked --quiet >&2
    fi
    printf '%s\n' "$bin"
}

case "${1:-test}" in
    build) build ;;
    test)
        install
        # What a user does: the wheel into a fresh venv, then the command and the library.
        fresh=$repo/target/python-fresh-venv
        rm -rf "$fresh"
        "$PY" -m venv "$fresh" >&2
        "$fresh/bin/python" -m pip install --quiet --disable-pip-version-check --no-index "$(ls target/wheels/promptc_cli-*.whl)" >&2
        "$fresh/bin/promptc" --version
        "$fresh/bin/promptc" -C profiles render --nonce abcd1234 | cmp - <("$(binary)" -C profiles render --nonce abcd1234)
        "$fresh/bin/python" -c 'import promptc; print("import promptc:", promptc.Project.load("profiles").name)'
        rm -rf "$fresh"
        PROMPTC_BIN=$(binary) "$PY" -m pytest -q -p no:cacheprovider bindings/python/tests "${@:2}"
        ;;
    bench)
        install
        PROMPTC_BIN=$(binary) "$PY" bindings/python/bench.py "${@:2}"
        ;;
    *) log "usage: $0 build|test|bench"; exit 2 ;;
esac

#!/usr/bin/env bash
# Build and test the Node package (bindings/node) on a fresh machine.
#
#   scripts/node-package.sh deps    # npm ci only (pinned napi CLI, TypeScript, SDKs), skipped when up to date
#   scripts/node-package.sh build   # npm ci (pinned napi CLI, TypeScript, SDKs), napi build --release (PROMPTC_PROFILE)
#   scripts/node-package.sh test    # build, type-check the TypeScript tests, run node's test runner
#   scripts/node-package.sh bench   # build, run the compile benchmark
#
# The tests compare the package with the promptc binary named by PROMPTC_BIN (default:
# target/debug/promptc, built if missing). Needs Node.js >= 18 and npm.
#
# PROMPTC_PROFILE=debug builds the addon with cargo's dev profile instead of release: CI does,
# so the build reuses the dependencies `cargo test` compiled instead of compiling them again
# optimised (only crates whose features differ from the tests' build are compiled again).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
pkg=$repo/bindings/node
log() { printf 'node-package: %s\n' "$*" >&2; }

command -v node >/dev/null 2>&1 || { log "error: node is not installed (Debian: apt-get install nodejs npm)"; exit 1; }

profile=${PROMPTC_PROFILE:-release}
case "$profile" in
    release) profile_flag=(--release) ;;
    debug) profile_flag=() ;;
    *) log "error: PROMPTC_PROFILE is release or debug, not $profile"; exit 2 ;;
esac

deps() {
    cd "$pkg"
    # npm ci is skipped while node_modules matches the lockfile.
    if [ ! -f node_modules/.package-lock.json ] || ! cmp -s package-lock.json node_modules/.promptc-lock; then
        log "installing the package's dev dependencies (npm ci)"
        npm ci --no-audit --no-fund --loglevel=error >&2
        cp package-lock.json node_modules/.promptc-lock
    fi
}

build() {
    deps
    log "building the addon (napi build, $profile)"
    npx napi build --platform "${profile_flag[@]}" --js native.js --dts native.d.ts >&2
}

binary() {
    local bin=${PROMPTC_BIN:-$repo/target/debug/promptc}
    if [ -z "${PROMPTC_BIN:-}" ]; then
        # Without PROMPTC_BIN: the checkout's own binary, built now (a no-op when it is up to
        # date), never a stale one left by an earlier build.
        (cd "$repo" && env -u CARGO_BUILD_TARGET cargo build --locked --quiet) >&2
    fi
    printf '%s\n' "$bin"
}

case "${1:-test}" in
    deps) deps ;;
    build) build ;;
    test)
        bin=$(binary)
        build
        cd "$pkg"
        rm -rf tests/build
        npx tsc -p tests/tsconfig.json
        PROMPTC_BIN=$bin node --test tests/ tests/build/
        ;;
    bench)
        bin=$(binary)
        build
        cd "$pkg"
        PROMPTC_BIN=$bin node bench.js "${@:2}"
        ;;
    *) log "usage: $0 build|test|bench"; exit 2 ;;
esac

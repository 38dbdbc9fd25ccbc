#!/usr/bin/env bash
# Test promptc's HTML pages (report --format html, diff --format html) in a real headless
# browser: Debian's chromium, driven by playwright-core (pinned in tests/browser), which never
# downloads a browser of its own.
#
#   scripts/browser-test.sh          # install what is missing, then node --test tests/browser
#   scripts/browser-test.sh deps     # only install what is missing (chromium, playwright-core)
#   scripts/browser-test.sh bench PAGE   # a page's time to interactive (tests/browser/bench.js;
#                                        # cargo bench --bench html runs it on its pages)
#   scripts/browser-test.sh screenshots  # the README's pictures of the example, in docs/images
#
# Installs chromium with apt-get when /usr/bin/chromium is missing (needs root or sudo; set
# PROMPTC_CHROMIUM to use another build). The pages come from the binary PROMPTC_BIN (default
# target/debug/promptc, built if missing). Screenshots of every view, the print PDF and the
# pages tested go to target/browser-artifacts.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=$repo/tests/browser
log() { printf 'browser-test: %s\n' "$*" >&2; }

command -v node >/dev/null 2>&1 || { log "error: node is not installed (Debian: apt-get install nodejs npm)"; exit 1; }

chromium=${PROMPTC_CHROMIUM:-/usr/bin/chromium}
# What the tests need beyond the binary: Debian's chromium and playwright-core. `deps` alone
# installs them (CI does it in the background while the Rust build runs).
deps() {
    if [ ! -x "$chromium" ]; then
        log "installing Debian's chromium (apt-get)"
        local sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        export DEBIAN_FRONTEND=noninteractive
        $sudo apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 || {
            $sudo apt-get update -qq >/dev/null && $sudo apt-get install -y --no-install-recommends chromium >/dev/null
        }
    fi
    "$chromium" --version 2>/dev/null >&2 || log "warning: $chromium --version failed"
    # npm ci is skipped while node_modules matches the lockfile.
    if [ ! -f "$dir/node_modules/.package-lock.json" ] || ! cmp -s "$dir/package-lock.json" "$dir/node_modules/.promptc-lock"; then
        log "installing playwright-core (npm ci)"
        (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) >&2
        cp "$dir/package-lock.json" "$dir/node_modules/.promptc-lock"
    fi
}
if [ "${1:-test}" = deps ]; then
    deps
    exit 0
fi
deps
cd "$dir"

bin=${PROMPTC_BIN:-$repo/target/debug/promptc}
if [ -z "${PROMPTC_BIN:-}" ]; then
    # Without PROMPTC_BIN: the checkout's own binary, built now (a no-op when it is up to
    # date), never a stale one left by an earlier build.
    (cd "$repo" && env -u CARGO_BUILD_TARGET cargo build --locked --quiet) >&2
fi
export PROMPTC_BIN=$bin PROMPTC_CHROMIUM=$chromium

case "${1:-test}" in
    test) node --test report.test.js diff.test.js ;;
    bench) node bench.js "${@:2}" ;;
    screenshots) node screenshots.js ;;
    *) log "usage: scripts/browser-test.sh [test|deps|bench PAGE|screenshots]"; exit 2 ;;
esac

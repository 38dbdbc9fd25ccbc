#!/usr/bin/env bash
# Build the release artifacts for Linux x86_64 into dist/, from a clean checkout.
#
#   scripts/dist.sh                    # release: what the release workflow publishes for Linux x86_64
#   scripts/dist.sh --profile debug    # the same packaging from dev-profile builds (CI: reuses the tests' build)
#   scripts/dist.sh archive TARGET BIN # only the archive of one binary (the release workflow, every platform)
#   scripts/dist.sh npm-pack ADDON...  # only the npm tarballs, from the addons of any platforms
#                                      # (the release workflow, with every platform's addon)
#
# dist/ then holds (VERSION from Cargo.toml):
#   promptc-VERSION-x86_64-unknown-linux-gnu.tar.gz   the stripped `promptc`, README, licenses
#   promptc_cli-VERSION-cp39-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
#                                     the Python package: the library and the `promptc` command
#   promptc-cli-VERSION.tgz           the npm package (napi-rs layout: the JS, and one package
#   promptc-cli-linux-x64-gnu-VERSION.tgz  per platform holding the addon, as optional dependencies)
#   SHA256SUMS
#
# Release builds link with zig (cargo-zigbuild, and maturin's and napi's zig support) against
# glibc 2.17, so the binary, the wheel (manylinux2014) and the addon run on any Linux from
# CentOS 7 / Ubuntu 14.04 on; the script checks the binary's and the addon's glibc floor and
# that `auditwheel show` finds the wheel manylinux2014-clean. The tools (zig from the PyPI
# `ziglang` package, cargo-zigbuild, maturin, auditwheel) are pinned and installed into a venv
# under target/; nothing is downloaded outside the package registries.
#
# With --profile debug nothing is linked with zig: the binary is the one `cargo test` built,
# the wheel and the addon are maturin's and napi's dev-profile builds (scripts/python-package.sh
# and scripts/node-package.sh build them the same way first in CI), so only the packaging runs.
# Their glibc floor is the build machine's: it is reported, not checked.
#
# Environment: DIST_TARGET the Linux target (default x86_64-unknown-linux-gnu; the release
# workflow also builds aarch64-unknown-linux-gnu, on an arm64 runner); CARGO_BUILD_TARGET (CI
# sets it to the host, see .ci/run) where the dev-profile binary is; DIST_DIR (default dist/)
# where the artifacts go.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
log() { printf 'dist: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# The pinned tools (this combination builds all three artifacts here; zig releases change its
# command line, so a zig upgrade is tested with cargo-zigbuild and maturin together).
ZIGLANG_VERSION=0.14.1
CARGO_ZIGBUILD_VERSION=0.24.1
MATURIN_VERSION=1.16.0
AUDITWHEEL_VERSION=6.8.2
# The glibc the release artifacts are linked against (manylinux2014's).
GLIBC_FLOOR=2.17
TARGET=${DIST_TARGET:-x86_64-unknown-linux-gnu}
ARCH=${TARGET%%-*}
# Python where the Windows runners have no python3.
PYTHON=$(command -v python3 || command -v python)

version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
[ -n "$version" ] || die "no version in Cargo.toml's [workspace.package]"
dist=${DIST_DIR:-$repo/dist}

# archive TARGET BIN: dist/promptc-VERSION-TARGET.tar.gz with the binary (promptc, or
# promptc.exe) under a folder of the same name, the README and the licenses. Written by Python's
# tarfile, the same on every runner (macOS's tar has no --sort or --owner) and reproducible:
# sorted names, owner 0, the commit's time.
archive() {
    local target=$1 bin=$2 name exe=promptc stage mtime
    name=promptc-$version-$target
    case $bin in *.exe) exe=promptc.exe ;; esac
    stage=$(mktemp -d)
    mkdir "$stage/$name"
    cp "$bin" "$stage/$name/$exe"
    cp README.md LICENSE-MIT LICENSE-APACHE "$stage/$name/"
    mkdir -p "$dist"
    mtime=$(git log -1 --format=%ct 2>/dev/null || echo 0)
    "$PYTHON" - "$stage" "$name" "$exe" "$dist/$name.tar.gz" "$mtime" <<'EOF'
import gzip, os, sys, tarfile
stage, name, exe, out, mtime = sys.argv[1:]
def normal(info):
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mtime = int(mtime)
    info.mode = 0o755 if info.isdir() or info.name == f"{name}/{exe}" else 0o644
    return info
with open(out, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=int(mtime)) as gz, \
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
    tar.add(os.path.join(stage, name), arcname=name, recursive=False, filter=normal)
    for entry in sorted(os.listdir(os.path.join(stage, name))):
        tar.add(os.path.join(stage, name, entry), arcname=f"{name}/{entry}", filter=normal)
EOF
    rm -rf "$stage"
    log "archive: $dist/$name.tar.gz"
}

# The newest GLIBC_x.y symbol version a binary needs: the oldest glibc it runs on.
glibc_needed() {
    objdump -T "$1" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n1
}

check_glibc() {
    local file=$1 needed
    needed=$(glibc_needed "$file")
    if [ "$profile" = release ]; then
        [ "$(printf '%s\n%s\n' "$needed" "$GLIBC_FLOOR" | sort -V | tail -n1)" = "$GLIBC_FLOOR" ] \
            || die "$file needs glibc $needed, more than $GLIBC_FLOOR"
        log "glibc floor: $(basename "$file") needs glibc $needed (<= $GLIBC_FLOOR)"
    else
        log "glibc floor: $(basename "$file") needs glibc $needed (dev profile: the build machine's, not checked)"
    fi
}

# The pinned tools in target/dist-venv-PROFILE (skipped while its stamp matches the pins), with
# a `zig` command on its PATH for napi's cross-compile mode (ziglang ships `python -m ziglang`).
# The dev profile needs no zig (a 50 MB download CI would make on every fresh machine).
tools() {
    local venv=$target_dir/dist-venv-$profile pins
    pins="maturin==$MATURIN_VERSION auditwheel==$AUDITWHEEL_VERSION"
    [ "$profile" = release ] && pins="ziglang==$ZIGLANG_VERSION cargo-zigbuild==$CARGO_ZIGBUILD_VERSION $pins"
    if [ "$(cat "$venv/.pins" 2>/dev/null)" != "$pins" ]; then
        log "installing $pins into $venv"
        rm -rf "$venv"
        python3 -m venv "$venv"
        # shellcheck disable=SC2086 # the pins are words
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check $pins >&2
        if [ "$profile" = release ]; then
            printf '#!/bin/sh\nexec "%s" -m ziglang "$@"\n' "$venv/bin/python" > "$venv/bin/zig"
            chmod +x "$venv/bin/zig"
        fi
        printf '%s\n' "$pins" > "$venv/.pins"
    fi
    # cargo-zigbuild and maturin find zig as `python3 -m ziglang` of the python on PATH.
    export PATH=$venv/bin:$PATH
}

binary() {
    local bin
    if [ "$profile" = release ]; then
        log "building promptc (release, zig, glibc $GLIBC_FLOOR)"
        cargo zigbuild --release --locked --bin promptc --target "$TARGET.$GLIBC_FLOOR" >&2
        bin=$target_dir/$TARGET/release/promptc
    else
        log "building promptc (dev profile)"
        # The default members, as the tests build them (with workspace-hack's features): the
        # binary `cargo test` built is up to date, where `--bin promptc` alone would resolve
        # other features and compile much of the graph again.
        cargo build --locked >&2
        bin=$target_dir/${CARGO_BUILD_TARGET:+$CARGO_BUILD_TARGET/}debug/promptc
    fi
    # A stripped copy (stripped here rather than by a profile setting or RUSTFLAGS, either of
    # which would make the three builds compile the dependency graph apart); the binary in
    # target/ keeps its symbols for the debugger.
    strip -o "$target_dir/dist-promptc" "$bin"
    check_glibc "$target_dir/dist-promptc"
    archive "$TARGET" "$target_dir/dist-promptc"
}

wheel() {
    local out=$target_dir/dist-wheel whl report listing
    rm -rf "$out"
    if [ "$profile" = release ]; then
        log "building the wheel (maturin, release, zig, manylinux2014)"
        maturin build --release --locked --zig --compatibility manylinux2014 --target "$TARGET" \
            -m bindings/python/Cargo.toml --out "$out" >&2
    else
        log "building the wheel (maturin, dev profile)"
        maturin build --locked -m bindings/python/Cargo.toml --out "$out" >&2
    fi
    whl=$(ls "$out"/promptc_cli-"$version"-*.whl)
    # auditwheel wraps its report: one line, to match.
    report=$(auditwheel show "$whl" | tr -s ' \n' ' ')
    printf '%s\n' "$report" >&2
    if [ "$profile" = release ]; then
        grep -q "consistent with the following platform tag: \"manylinux_2_17_$ARCH\"" <<<"$report" \
            || die "auditwheel does not find $whl manylinux2014 (manylinux_2_17) clean"
    fi
    # The wheel holds the command (the extension runs the CLI) and the library. (The listing
    # is read whole: `grep -q` on a pipe would stop the lister early, a failure under pipefail.)
    listing=$("$PYTHON" -m zipfile -l "$whl")
    grep -q 'promptc/_cli.py' <<<"$listing" || die "$whl has no promptc command"
    cp "$whl" "$dist/"
    log "wheel: $dist/$(basename "$whl")"
}

# The addon of this machine's target (bindings/node/promptc.PLATFORM.node, stripped).
addon() {
    local pkg=bindings/node node_file
    command -v node >/dev/null 2>&1 || die "node is not installed (Debian: apt-get install nodejs npm)"
    npm_ci
    (
        cd "$pkg"
        rm -f ./*.node
        if [ "$profile" = release ]; then
            log "building the addon (napi, release, zig, glibc $GLIBC_FLOOR)"
            npx napi build --platform --release --cross-compile --target "$TARGET.$GLIBC_FLOOR" \
                --js native.js --dts native.d.ts >&2
        else
            log "building the addon (napi, dev profile)"
            npx napi build --platform --js native.js --dts native.d.ts >&2
        fi
    )
    node_file=$(ls "$repo/$pkg"/*.node)
    # Stripped here, not with napi's --strip: that sets RUSTFLAGS, which would compile the
    # whole dependency graph again instead of reusing the tests' (or the wheel's) build.
    strip "$node_file"
    check_glibc "$node_file"
    npm_pack "$node_file"
}

# The package's dev dependencies (the napi CLI), skipped while node_modules matches the lockfile.
npm_ci() {
    "$repo/scripts/node-package.sh" deps
}

# npm_pack ADDON...: the npm tarballs in the napi-rs layout. `napi create-npm-dirs` writes one
# package per target of package.json's napi.targets (os, cpu and libc set, so npm installs only
# the matching one); the main package names them all as optional dependencies and loads
# whichever is installed (native.js, which napi generated with the JS). Each given addon
# (promptc.PLATFORM.node) goes into its platform's package, and only those are packed: here
# this machine's; in the release workflow every platform's.
#
# The packages are staged in bindings/node/npm (git-ignored): napi's default, and napi writes
# only inside the package's folder; the main package in npm/main.
npm_pack() {
    local pkg=$repo/bindings/node stage node_file platform_dir
    stage=$pkg/npm
    npm_ci
    rm -rf "$stage"
    mkdir -p "$stage/main" "$dist"
    (cd "$pkg" && npx napi create-npm-dirs --npm-dir npm >&2)
    node - "$pkg" "$stage" "$version" <<'EOF'
// The main package: package.json without the development fields, with every platform package
// as an optional dependency of this exact version; its files as `npm pack` of bindings/node
// would take them, less the addon (that is in the platform packages).
const fs = require('fs')
const path = require('path')
const [pkgDir, stage, version] = process.argv.slice(2)
const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'))
if (pkg.version !== version) throw new Error(`package.json has version ${pkg.version}, Cargo.toml ${version}`)
delete pkg.devDependencies
delete pkg.scripts
pkg.files = pkg.files.filter((f) => !f.endsWith('.node'))
pkg.optionalDependencies = {}
for (const dir of fs.readdirSync(stage).filter((d) => d !== 'main').sort()) {
  const platform = JSON.parse(fs.readFileSync(path.join(stage, dir, 'package.json'), 'utf8'))
  if (platform.version !== version) throw new Error(`${platform.name} has version ${platform.version}`)
  pkg.optionalDependencies[platform.name] = version
}
const main = path.join(stage, 'main')
fs.writeFileSync(path.join(main, 'package.json'), JSON.stringify(pkg, null, 2) + '\n')
for (const f of pkg.files) {
  fs.mkdirSync(path.dirname(path.join(main, f)), { recursive: true })
  fs.copyFileSync(path.join(pkgDir, f), path.join(main, f))
}
for (const f of ['README.md', 'LICENSE-MIT', 'LICENSE-APACHE']) {
  fs.copyFileSync(path.join(pkgDir, '..', '..', f), path.join(main, f))
}
EOF
    for node_file in "$@"; do
        platform_dir=$(grep -l "\"main\": \"$(basename "$node_file")\"" "$stage"/*/package.json | xargs -r dirname)
        [ -n "$platform_dir" ] || die "no package in $stage takes $(basename "$node_file")"
        cp "$node_file" "$platform_dir/"
        cp "$repo/LICENSE-MIT" "$repo/LICENSE-APACHE" "$platform_dir/"
        (cd "$platform_dir" && npm pack --silent --pack-destination "$dist" >&2)
    done
    (cd "$stage/main" && npm pack --silent --pack-destination "$dist" >&2)
    rm -rf "$stage"
    log "npm: $(cd "$dist" && echo ./*.tgz)"
}

checksums() {
    (cd "$dist" && rm -f SHA256SUMS && sha256sum -- * > SHA256SUMS.tmp && mv SHA256SUMS.tmp SHA256SUMS)
    log "sizes (bytes) and checksums in $dist/SHA256SUMS:"
    (cd "$dist" && for f in *; do printf '%12d  %s\n' "$(stat -c %s "$f")" "$f"; done) >&2
    log "unpacked: promptc $(stat -c %s "$target_dir/dist-promptc") bytes, addon $(stat -c %s "$(ls bindings/node/*.node)") bytes"
}

profile=release
case "${1:-}" in
    archive)
        [ $# -eq 3 ] || die "usage: $0 archive TARGET BINARY"
        archive "$2" "$3"
        exit 0
        ;;
    npm-pack)
        [ $# -ge 2 ] || die "usage: $0 npm-pack ADDON..."
        shift
        addons=()
        for f in "$@"; do addons+=("$(cd "$(dirname "$f")" && pwd)/$(basename "$f")"); done
        npm_pack "${addons[@]}"
        exit 0
        ;;
    --profile)
        profile=${2:-}
        case $profile in release | debug) ;; *) die "--profile is release or debug, not '$profile'" ;; esac
        ;;
    "") ;;
    *) die "usage: $0 [--profile release|debug] | $0 archive TARGET BINARY | $0 npm-pack ADDON..." ;;
esac

start=$SECONDS
target_dir=$(cargo metadata --locked --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
tools
rm -rf "$dist"
mkdir -p "$dist"
binary
wheel
addon
checksums
log "done in $((SECONDS - start))s ($profile): $dist"

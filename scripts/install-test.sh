#!/usr/bin/env bash
# Install promptc as a user would, from local registries that received the dist/ artifacts
# (scripts/dist.sh builds them first when dist/ is empty):
#
#   scripts/install-test.sh            # PyPI, npm and the crate
#   scripts/install-test.sh pypi npm   # some of them: pypi, npm, crate
#
#   pypi   a pypiserver on 127.0.0.1 receives the wheel (twine upload); a fresh venv installs
#          promptc-cli from it; `promptc init demo && promptc -C demo render` runs, timed from
#          the empty venv (the issue's bar: 30 s); the pre-commit hooks install themselves from
#          the same index (`pre-commit try-repo` of this work tree, when the conformance venv
#          has pre-commit); and the wheel installs offline from dist/.
#   npm    a verdaccio on 127.0.0.1 receives the npm tarballs (npm publish); a fresh npm project
#          installs promptc-cli from it; its `promptc` command and the library run, timed.
#   crate  `cargo package` (its verification builds the packaged crate), then `cargo install
#          --path` of the packaged crate into target/; INSTALL_TEST_RELEASE=1 installs it with
#          the release profile (a full optimised build of the graph: minutes on 2 cores), by
#          default the dev profile, which reuses the graph the tests built.
#
# The registries, their clients and the installs live under target/install-test/; the servers
# are stopped on exit. Only the package registries are reached (to install the servers).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
log() { printf 'install-test: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

PYPISERVER_VERSION=2.4.2
TWINE_VERSION=6.2.0
# The newest that runs on Node.js 20 (Debian's is 20; verdaccio 6.9 needs 22).
VERDACCIO_VERSION=6.8.0

version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
target_dir=$(cargo metadata --locked --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
work=$target_dir/install-test
dist=${DIST_DIR:-$repo/dist}
mkdir -p "$work"

pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

# A free TCP port on 127.0.0.1.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_http URL PID LOG: until the server answers at URL (it failing to start ends the script).
wait_http() {
    local url=$1 pid=$2 server_log=$3 i
    for ((i = 0; i < 300; i++)); do
        python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)' "$url" 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || { cat "$server_log" >&2; die "the server for $url exited"; }
        sleep 0.1
    done
    die "nothing answers at $url (see $server_log)"
}

# Run a command, its output sent to stderr; print its wall time in seconds on stdout.
timed() {
    local t0=$EPOCHREALTIME
    "$@" >&2
    python3 -c 'import sys; print(f"{float(sys.argv[2]) - float(sys.argv[1]):.1f}")' "$t0" "$EPOCHREALTIME"
}

need_dist() {
    if ! ls "$dist"/SHA256SUMS >/dev/null 2>&1; then
        log "no $dist/SHA256SUMS: building dist/ first"
        scripts/dist.sh "${DIST_ARGS[@]}"
    fi
    (cd "$dist" && sha256sum --quiet -c SHA256SUMS) || die "dist/ does not match its SHA256SUMS"
}

# The user's steps: an empty venv, promptc-cli from the index (no cache, no find-links: all from
# the index), the Quick start's first two commands.
pypi_user() {
    local fresh=$1 port=$2
    python3 -m venv "$fresh"
    PIP_FIND_LINKS='' "$fresh/bin/pip" install --quiet --disable-pip-version-check --no-cache-dir \
        --index-url "http://127.0.0.1:$port/simple/" promptc-cli >&2
    (cd "$work" && "$fresh/bin/promptc" init demo-pypi >&2 && "$fresh/bin/promptc" -C demo-pypi render >/dev/null)
}

# precommit_from_index PORT PROJECT: the pre-commit hooks of this checkout (`pre-commit
# try-repo`, which takes the work tree as it is) install themselves from the index, in a git
# repository holding PROJECT, with no promptc on PATH; timed.
precommit_from_index() {
    local port=$1 project=$work/precommit-project py seconds
    py=$(bash scripts/conformance-env.sh | tail -n1)
    if ! "$py" -c 'import pre_commit' 2>/dev/null; then
        log "pre-commit: not in the conformance venv (scripts/integrations-test.sh installs it); skipped"
        return 0
    fi
    rm -rf "$project" "$work/pre-commit-home"
    cp -r "$2" "$project"
    git -C "$project" init --quiet
    git -C "$project" add -A
    git -C "$project" -c user.name=test -c user.email=test@example.com commit --quiet -m project
    seconds=$(cd "$project" && timed env PATH=/usr/bin:/bin PRE_COMMIT_HOME="$work/pre-commit-home" PIP_FIND_LINKS='' \
        PIP_INDEX_URL="http://127.0.0.1:$port/simple/" "$py" -m pre_commit try-repo "$repo" promptc-check --all-files)
    log "pre-commit: try-repo, the hooks' environment from the index (promptc-cli), promptc check passed: ${seconds}s"
}

pypi() {
    local venv=$work/pypi-venv pins port fresh=$work/pypi-fresh wheel seconds
    pins="pypiserver==$PYPISERVER_VERSION twine==$TWINE_VERSION"
    if [ "$(cat "$venv/.pins" 2>/dev/null)" != "$pins" ]; then
        rm -rf "$venv"
        python3 -m venv "$venv"
        # shellcheck disable=SC2086 # the pins are words
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check $pins >&2
        printf '%s\n' "$pins" > "$venv/.pins"
    fi
    wheel=$(ls "$dist"/promptc_cli-"$version"-*.whl)
    rm -rf "$work/pypi-packages"
    mkdir -p "$work/pypi-packages"
    port=$(free_port)
    # Uploads without authentication (-a . -P .): the server lives as long as this script.
    "$venv/bin/pypi-server" run -i 127.0.0.1 -p "$port" -a . -P . "$work/pypi-packages" 2>"$work/pypiserver.log" &
    pids+=($!)
    wait_http "http://127.0.0.1:$port/simple/" "$!" "$work/pypiserver.log"
    log "pypi: uploading $(basename "$wheel") to pypiserver at 127.0.0.1:$port"
    "$venv/bin/twine" upload --disable-progress-bar --non-interactive --repository-url "http://127.0.0.1:$port/" \
        -u ci -p ci "$wheel" >&2

    rm -rf "$fresh" "$work/demo-pypi"
    seconds=$(timed pypi_user "$fresh" "$port")
    "$fresh/bin/promptc" --version
    "$fresh/bin/python" -c 'import promptc; print("import promptc:", promptc.__version__)'
    log "pypi: empty venv -> pip install promptc-cli from the index -> init -> render: ${seconds}s"
    python3 -c 'import sys; sys.exit(float(sys.argv[1]) > 30)' "$seconds" || die "${seconds}s is over the 30 s bar"

    precommit_from_index "$port" "$work/demo-pypi"

    # Offline, from dist/ alone.
    rm -rf "$fresh"
    python3 -m venv "$fresh"
    PIP_FIND_LINKS='' "$fresh/bin/pip" install --quiet --disable-pip-version-check --no-index --find-links "$dist" promptc-cli >&2
    "$fresh/bin/promptc" --version >/dev/null
    log "pypi: installs offline from dist/ (--no-index --find-links dist)"
    rm -rf "$fresh"
}

# The user's steps: an empty npm project, promptc-cli from the registry, the Quick start.
npm_user() {
    local project=$1 npmrc=$2
    cd "$project"
    npm init -y >/dev/null
    NPM_CONFIG_USERCONFIG=$npmrc npm install --no-audit --no-fund --loglevel=error promptc-cli >&2
    npx --no-install promptc init demo-npm >&2
    npx --no-install promptc -C demo-npm render >/dev/null
    cd "$repo"
}

npm_registry() {
    local tools=$work/verdaccio port token project=$work/npm-project seconds tgz
    command -v node >/dev/null 2>&1 || die "node is not installed (Debian: apt-get install nodejs npm)"
    if [ "$(cat "$tools/.pins" 2>/dev/null)" != "$VERDACCIO_VERSION" ]; then
        rm -rf "$tools"
        mkdir -p "$tools"
        (cd "$tools" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error "verdaccio@$VERDACCIO_VERSION" >&2)
        printf '%s\n' "$VERDACCIO_VERSION" > "$tools/.pins"
    fi
    port=$(free_port)
    rm -rf "$work/verdaccio-storage"
    # No uplink: every package the test installs must come from what was published here.
    cat > "$work/verdaccio.yaml" <<EOF
storage: $work/verdaccio-storage
# A platform package holds an 8 MB addon (verdaccio's default limit is 10 MB of JSON, base64).
max_body_size: 100mb
auth:
  htpasswd:
    file: $work/verdaccio-storage/htpasswd
    max_users: 10
packages:
  '**':
    access: \$all
    publish: \$authenticated
log: { type: stdout, format: pretty, level: warn }
EOF
    "$tools/node_modules/.bin/verdaccio" --config "$work/verdaccio.yaml" --listen "127.0.0.1:$port" >"$work/verdaccio.log" 2>&1 &
    pids+=($!)
    wait_http "http://127.0.0.1:$port/-/ping" "$!" "$work/verdaccio.log"
    # A user for publishing (verdaccio's htpasswd registers one on first login).
    token=$(python3 - "$port" <<'EOF'
import json, sys, urllib.request
body = json.dumps({"name": "ci", "password": "install-test"}).encode()
req = urllib.request.Request(f"http://127.0.0.1:{sys.argv[1]}/-/user/org.couchdb.user:ci", data=body,
                             method="PUT", headers={"content-type": "application/json"})
print(json.load(urllib.request.urlopen(req))["token"])
EOF
)
    local npmrc=$work/npmrc
    printf 'registry=http://127.0.0.1:%s/\n//127.0.0.1:%s/:_authToken=%s\n' "$port" "$port" "$token" > "$npmrc"
    # The platform packages first, then the main package that names them (as the release does).
    for tgz in "$dist"/promptc-cli-*-"$version".tgz "$dist/promptc-cli-$version.tgz"; do
        log "npm: publishing $(basename "$tgz") to verdaccio at 127.0.0.1:$port"
        NPM_CONFIG_USERCONFIG=$npmrc npm publish --loglevel=error "$tgz" >&2
    done

    rm -rf "$project"
    mkdir -p "$project"
    seconds=$(timed npm_user "$project" "$npmrc")
    (cd "$project" && npx --no-install promptc --version)
    (cd "$project" && node -e 'const p = require("promptc-cli"); console.log("require(\"promptc-cli\"):", p.version, p.Project.load("demo-npm").name)')
    log "npm: empty project -> npm install promptc-cli from the registry -> init -> render: ${seconds}s"
    [ -d "$project/node_modules/promptc-cli-linux-x64-gnu" ] || die "the platform package was not installed"
    log "npm: installed $(cd "$project/node_modules" && echo promptc-cli*)"
}

crate() {
    local root=$work/cargo-root pkg seconds profile_flag=(--debug) profile=dev
    if [ "${INSTALL_TEST_RELEASE:-0}" = 1 ]; then profile_flag=(); profile=release; fi
    # The crate as the registry would receive it; the verification builds it from the tarball
    # (the dev profile, reusing the dependencies the tests built). --allow-dirty: a work tree
    # with uncommitted changes can be tested too (the release workflow packages a clean tag).
    log "crate: cargo package (verified by building the packaged crate)"
    cargo package --locked --allow-dirty >&2
    pkg=$target_dir/package/promptc-cli-$version
    [ -f "$target_dir/package/promptc-cli-$version.crate" ] || die "no promptc-cli-$version.crate"
    log "crate: $(stat -c %s "$target_dir/package/promptc-cli-$version.crate") bytes, $(tar -tzf "$target_dir/package/promptc-cli-$version.crate" | wc -l) files"
    rm -rf "$root"
    # The workspace's target folder: cargo install would otherwise build in a temporary one,
    # compiling every dependency again.
    seconds=$(timed cargo install --locked --quiet "${profile_flag[@]}" --path "$pkg" --root "$root" --target-dir "$target_dir")
    "$root/bin/promptc" --version
    (cd "$work" && rm -rf demo-cargo && "$root/bin/promptc" init demo-cargo >/dev/null && "$root/bin/promptc" -C demo-cargo render >/dev/null)
    log "crate: cargo install --path (packaged crate, $profile profile): ${seconds}s; init and render run"
}

DIST_ARGS=()
[ -n "${DIST_PROFILE:-}" ] && DIST_ARGS=(--profile "$DIST_PROFILE")
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(pypi npm crate)
for part in "${parts[@]}"; do
    case $part in
        pypi) need_dist; pypi ;;
        npm) need_dist; npm_registry ;;
        crate) crate ;;
        *) die "unknown part '$part' (pypi, npm, crate)" ;;
    esac
done

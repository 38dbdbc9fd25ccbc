#!/usr/bin/env bash
# The vendored minijinja as a patch queue (vendor/PATCHES.md):
#   vendor/minijinja and vendor/minijinja-contrib  =  pristine 2.24.0  +  vendor/patches/*.patch
# where pristine is the two crates as published on crates.io (fetched by cargo through
# vendor/pristine/Cargo.toml, minus the registry's bookkeeping files) and minijinja's tests at
# upstream's 2.24.0 tag (not in the published crate; kept in vendor/minijinja/tests, and
# checked against the tag's git blob hashes in vendor/pristine/minijinja-tests.txt).
#
#   scripts/patch-queue.sh check        apply the series to pristine 2.24.0 in a temporary
#                                       folder and compare with vendor/ (exit 1 on any
#                                       difference, printed)
#   scripts/patch-queue.sh apply        write vendor/minijinja{,-contrib} from pristine + series
#                                       (after editing a patch file by hand; upstream's tests
#                                       are recovered from the last commit's tree and series)
#   scripts/patch-queue.sh unpack DIR   a git repository in DIR: pristine as one commit, then one
#                                       commit per patch (edit, reorder, split with git rebase -i)
#   scripts/patch-queue.sh refresh DIR  the series from DIR's commits (git format-patch) into
#                                       vendor/patches, and DIR's tree into vendor/
#   scripts/patch-queue.sh test [ARGS]  the vendored crates' tests and upstream's, every feature
#
# Offline once `cargo fetch --manifest-path vendor/pristine/Cargo.toml` has run (CI: crates.io).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PATCHES=$ROOT/vendor/patches
CRATES=(minijinja minijinja-contrib)

die() { echo "patch-queue: $*" >&2; exit 1; }

# pristine DEST [REF]: the published crates and upstream's tests, as they were released, into
# DEST. Upstream's tests are recovered from vendor/minijinja/tests and vendor/patches: the
# working tree's, or those of the commit REF (for `apply`, whose series may be new).
pristine() {
  local dest=$1 ref=${2:-} meta name dir src=$ROOT
  cargo fetch --locked --manifest-path vendor/pristine/Cargo.toml > /dev/null 2>&1 ||
    cargo fetch --locked --offline --manifest-path vendor/pristine/Cargo.toml
  meta=$(cargo metadata --locked --offline --format-version 1 --manifest-path vendor/pristine/Cargo.toml)
  for name in "${CRATES[@]}"; do
    dir=$(python3 -c '
import json, os, sys
m = json.loads(sys.argv[1])
p = [p for p in m["packages"] if p["name"] == sys.argv[2] and p["version"] == "2.24.0"]
print(os.path.dirname(p[0]["manifest_path"]))' "$meta" "$name")
    [ -f "$dir/Cargo.toml" ] || die "no pristine $name 2.24.0 in cargo's cache ($dir)"
    cp -R "$dir" "$dest/$name"
    rm -f "$dest/$name/.cargo-ok" "$dest/$name/.cargo_vcs_info.json" "$dest/$name/Cargo.lock" \
      "$dest/$name/Cargo.toml.orig"
  done
  # Upstream's tests: the vendored ones with the series' changes to them undone, newest first.
  if [ -n "$ref" ]; then
    src=$dest/.ref
    mkdir -p "$src"
    git archive "$ref" vendor/minijinja/tests vendor/patches | tar -x -C "$src"
  fi
  mkdir -p "$dest/.tests/minijinja"
  cp -R "$src/vendor/minijinja/tests" "$dest/.tests/minijinja/tests"
  local patches=("$src"/vendor/patches/*.patch) i
  for ((i = ${#patches[@]} - 1; i >= 0; i--)); do
    (cd "$dest/.tests" && git apply -R --include='minijinja/tests/*' "${patches[i]}") ||
      die "cannot undo $(basename "${patches[i]}")'s changes to vendor/minijinja/tests"
  done
  (cd "$dest/.tests" && find minijinja/tests -type f | LC_ALL=C sort | while read -r f; do
    printf '100644 blob %s\t%s\n' "$(git hash-object "$f")" "$f"
  done) > "$dest/.tests.txt"
  if ! diff -u <(grep -v '^#' vendor/pristine/minijinja-tests.txt | LC_ALL=C sort -k4) \
    <(LC_ALL=C sort -k4 "$dest/.tests.txt") > "$dest/.tests.diff"; then
    cat "$dest/.tests.diff"
    die "vendor/minijinja/tests, without the series' changes, is not upstream's 2.24.0 (above)"
  fi
  mv "$dest/.tests/minijinja/tests" "$dest/minijinja/tests"
  rm -rf "$dest/.tests" "$dest/.tests.txt" "$dest/.tests.diff" "$dest/.ref"
}

# series DEST: the patches applied in order to DEST (a pristine copy).
series() {
  local dest=$1 p
  for p in "$PATCHES"/*.patch; do
    (cd "$dest" && git apply --whitespace=nowarn "$p") || die "$(basename "$p") does not apply"
  done
}

cmd=${1:-}
case $cmd in
  check)
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    pristine "$tmp"
    series "$tmp"
    status=0
    for name in "${CRATES[@]}"; do
      if ! git diff --no-index --exit-code "$tmp/$name" "vendor/$name"; then
        status=1
      fi
    done
    if [ $status -ne 0 ]; then
      echo "patch-queue: vendor/ is not pristine 2.24.0 + vendor/patches (the diff above: series result -> vendor)" >&2
      echo "patch-queue: change the tree through the series (scripts/patch-queue.sh unpack/refresh)" >&2
      exit 1
    fi
    echo "patch-queue: vendor/minijinja and vendor/minijinja-contrib are pristine 2.24.0 + $(ls "$PATCHES" | wc -l) patches"
    ;;
  apply)
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    pristine "$tmp" HEAD
    series "$tmp"
    for name in "${CRATES[@]}"; do
      rm -rf "vendor/$name"
      cp -R "$tmp/$name" "vendor/$name"
    done
    echo "patch-queue: vendor/ written from pristine 2.24.0 + $(ls "$PATCHES" | wc -l) patches"
    ;;
  unpack)
    dir=${2:?usage: patch-queue.sh unpack DIR}
    [ ! -e "$dir" ] || die "$dir exists"
    mkdir -p "$dir"
    pristine "$dir"
    cd "$dir"
    git init -q .
    git add -A
    git -c user.name=pristine -c user.email=pristine@invalid commit -q -m "pristine 2.24.0"
    git tag pristine
    git -c user.name=patch-queue -c user.email=patch-queue@invalid am -q "$PATCHES"/*.patch
    echo "patch-queue: $dir holds pristine 2.24.0 (tag 'pristine') and $(git rev-list --count pristine..HEAD) commits"
    ;;
  refresh)
    dir=${2:?usage: patch-queue.sh refresh DIR}
    dir=$(cd "$dir" && pwd)
    git -C "$dir" diff --quiet HEAD || die "$dir has uncommitted changes"
    rm -f "$PATCHES"/*.patch
    mkdir -p "$PATCHES"
    git -C "$dir" format-patch -q --zero-commit --no-signature --no-numbered \
      -o "$PATCHES" pristine..HEAD
    # Each file named by its commit's `Patch-name:` trailer (NNNN-itemNN-short-name.patch).
    for p in "$PATCHES"/*.patch; do
      name=$(sed -n 's/^Patch-name: //p' "$p" | head -n1)
      [ -n "$name" ] || die "$(basename "$p"): its commit message has no 'Patch-name:' line"
      base=${p##*/}
      [ "$base" = "${base:0:4}-$name.patch" ] || mv "$p" "$PATCHES/${base:0:4}-$name.patch"
    done
    for name in "${CRATES[@]}"; do
      rm -rf "vendor/$name"
      git -C "$dir" archive HEAD "$name" | tar -x -C vendor
    done
    echo "patch-queue: $(ls "$PATCHES" | wc -l) patches written to vendor/patches from $dir; vendor/ is its tree"
    ;;
  test)
    # minijinja's own tests (its unit tests, the series' regression tests and upstream's
    # suite in vendor/minijinja/tests, doc tests) with every feature, as upstream's
    # `cargo test --all-features`, and minijinja-contrib's with every feature whose code
    # builds here (the others are names only: vendor/PATCHES.md). One cargo run, so
    # minijinja is compiled once for both. Extra arguments go to cargo (e.g. --tests).
    shift
    features=$(cargo metadata --locked --no-deps --format-version 1 | python3 -c '
import json, sys
m = json.load(sys.stdin)
p = [p for p in m["packages"] if p["name"] == "promptc-minijinja"][0]
print(",".join("promptc-minijinja/" + f for f in sorted(p["features"]) if f != "default"))')
    features+=,promptc-minijinja-contrib/pycompat,promptc-minijinja-contrib/html_entities
    features+=,promptc-minijinja-contrib/rand
    # Upstream's code as upstream lints it: not through a workspace wrapper (CI's clippy driver).
    env -u RUSTC_WORKSPACE_WRAPPER cargo test --locked -p promptc-minijinja -p promptc-minijinja-contrib \
      --features "$features" "$@"
    ;;
  *)
    sed -n '2,/^set /{/^#/p}' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac

#!/usr/bin/env bash
# The command battery: every command's output on the shipped example and on every fixture
# project, written to one folder so that two builds can be compared byte for byte.
#
#   scripts/battery.sh OUT [BIN]     # BIN defaults to target/debug/promptc
#   diff -r -x binary.txt before/ after/   # a refactor changes nothing a user sees
#
# Each run is recorded as `NAME.out` (stdout), `NAME.err` (stderr) and `NAME.code` (exit
# code). Commands that write (snapshot, freeze, render --out, import --out, init) run on a
# temporary copy and their files are listed with their hashes. Paths of temporary folders are
# replaced by `$TMP` so two runs compare equal.
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: scripts/battery.sh OUT [BIN]}
bin=${2:-$repo/target/debug/promptc}
# A missing binary would record exit 127 everywhere, and two such runs compare equal.
if [ ! -x "$bin" ]; then
    echo "battery: no promptc binary at $bin (build it, or pass its path)" >&2
    exit 2
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
# Records of an earlier run would survive where this run writes nothing.
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
    echo "battery: $out is not empty; give a new folder" >&2
    exit 2
fi
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
tmp=$(mktemp -d) && [ -d "$tmp" ] || exit 2
trap 'rm -rf "$tmp"' EXIT
# Which binary made these records: two runs of the same stale binary would compare equal.
{ "$bin" --version; sha256sum <"$bin"; } >"$out/binary.txt"
export NO_COLOR=1
# A copy of the example and the fixtures inside a fresh repository: commands that keep a token
# cache write it there, never into the checkout.
work=$tmp/repo
mkdir -p "$work/.git"
cp -r "$repo/profiles" "$repo/snapshots" "$repo/fixtures" "$work/"
cd "$work"

# run NAME ARGS…: one command, its three records.
run() {
    local name=$1
    shift
    "$bin" "$@" >"$out/$name.out" 2>"$out/$name.err" </dev/null
    echo $? >"$out/$name.code"
    sed -i "s#$tmp#\$TMP#g" "$out/$name.out" "$out/$name.err"
}

# files NAME DIR: the files a command wrote, with their hashes.
files() {
    [ -d "$2" ] || return 0
    (cd "$2" && find . -type f -not -path '*/.promptc-cache/*' -not -name '*.lock' -print0 | LC_ALL=C sort -z |
        xargs -0 -r sha256sum) >"$out/$1.files"
}

# Every project: the example, the fixtures that load and those that must not.
projects=(profiles)
while IFS= read -r manifest; do
    projects+=("$(dirname "$manifest")")
done < <(find fixtures -name promptc.yaml -not -path '*/snapshots/*' | LC_ALL=C sort)

for p in "${projects[@]}"; do
    key=${p//\//_}
    run "$key.render" -C "$p" render --nonce abcd1234
    run "$key.render-json" -C "$p" render --nonce abcd1234 --format json
    run "$key.render-tools" -C "$p" render --nonce abcd1234 --tools
    run "$key.report" -C "$p" report --no-cache
    run "$key.report-json" -C "$p" report --no-cache --format json --matrix
    run "$key.report-md" -C "$p" report --no-cache --format markdown
    run "$key.report-csv" -C "$p" report --no-cache --format csv --matrix
    run "$key.check" -C "$p" check
    run "$key.check-json" -C "$p" check --format json
    run "$key.check-github" -C "$p" check --format github
    run "$key.diff" -C "$p" diff
    run "$key.diff-json" -C "$p" diff --format json
    run "$key.diff-md" -C "$p" diff --format markdown
    # Writing commands on a copy inside a fresh repository.
    copy=$tmp/$key
    mkdir -p "$copy/.git"
    cp -r "$p" "$copy/project"
    rm -rf "$copy/project/snapshots"
    run "$key.snapshot" -C "$copy/project" snapshot --dir "$copy/snap"
    files "$key.snapshot" "$copy/snap"
    run "$key.artifact" -C "$copy/project" render --nonce abcd1234 --out "$copy/artifact"
    files "$key.artifact" "$copy/artifact"
    run "$key.freeze" -C "$copy/project" freeze --nonce abcd1234 --out "$copy/record.json"
    [ -f "$copy/record.json" ] && sha256sum <"$copy/record.json" >"$out/$key.freeze.files"
    run "$key.verify" -C "$copy/project" verify "$copy/record.json"
done

# The example's other views.
run example.matrix -C profiles report --no-cache --matrix
run example.html -C profiles report --no-cache --format html
run example.diff-html -C profiles diff --format html
run example.schema schema
run example.schema-tools schema tools
run example.explain check --explain P001
run example.command -C profiles command --help
run example.help --help
for c in render report snapshot diff freeze verify command check schema init import completions watch; do
    run "help.$c" "$c" --help
done
run example.completions completions bash
run example.init init "$tmp/init"
files example.init "$tmp/init"
for f in fixtures/import/*/*.json; do
    key=import_${f//\//_}
    run "$key" import tools "$f" --out "$tmp/$key"
    [ -d "$tmp/$key" ] && files "$key" "$tmp/$key"
done
run diff-folders diff snapshots snapshots
echo "battery: $(ls "$out" | wc -l) records in $out"

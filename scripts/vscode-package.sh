#!/usr/bin/env bash
# Package the VS Code extension (editors/vscode) as a .vsix: its one dependency
# (vscode-languageclient) and the packager (@vscode/vsce) come from npm. Writes
# target/vscode/promptc-VERSION.vsix. usage: scripts/vscode-package.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/target/vscode"
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/promptc-vscode.XXXXXX"); trap 'rm -rf "$work"' EXIT
cp -r "$root/editors/vscode/." "$work/"
cp "$root/LICENSE-MIT" "$work/LICENSE"
cd "$work"
npm install --no-audit --no-fund --omit=dev >/dev/null
npx --yes @vscode/vsce@3 package --allow-missing-repository --out "$out/" 2>&1 | tail -n 3
ls "$out"/*.vsix

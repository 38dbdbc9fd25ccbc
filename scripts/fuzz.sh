#!/usr/bin/env bash
# Build and run promptc's fuzz targets (fuzz/) with libFuzzer, without needing cargo-fuzz.
#
#   scripts/fuzz.sh smoke [SECONDS]      every target for SECONDS (default 10) — what CI runs
#   scripts/fuzz.sh run TARGET [ARGS…]   one target until stopped (extra args go to libFuzzer)
#   scripts/fuzz.sh list                 the targets
#
# Needs a nightly toolchain (for the coverage instrumentation). Corpora live under
# fuzz/corpus/TARGET (not committed) and are seeded from the repository's fixtures; a crash
# is saved under fuzz/artifacts/TARGET and must become a fixture and a test.
#
# A stack overflow kills the process before libFuzzer can save the input (its handler runs on
# the exhausted stack): with PROMPTC_FUZZ_LAST=FILE the template targets write each input to
# FILE before running it (a file in /dev/shm costs little), so the last one is the culprit.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS=(condition manifest_yaml template record project chat_template template_grammar chunked_count)

if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "fuzz: no nightly toolchain on this machine; skipping (install one with rustup to fuzz)"
  exit 0
fi

HOST=$(rustc +nightly -vV | sed -n 's/^host: //p')
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
export CARGO_TARGET_DIR=fuzz/target

build() {
  # Not through a workspace wrapper (CI's clippy driver is the stable toolchain's compiler).
  env -u RUSTC_WORKSPACE_WRAPPER cargo +nightly build --manifest-path fuzz/Cargo.toml --locked --release --target "$HOST" --bins -q
}

# Seed each corpus from what the repository already has (idempotent).
seed() {
  mkdir -p fuzz/corpus/{condition,manifest_yaml,template,record,project,chat_template,template_grammar,chunked_count}
  local i=0
  while IFS= read -r w; do
    i=$((i + 1)); printf '%s' "$w" > "fuzz/corpus/condition/seed-$i"
  done < <(grep -rhoE 'when: *"[^"]*"|when: *[A-Za-z_!(][^ ,}]*' fixtures profiles | sed -E 's/^when: *"?//; s/"$//' | sort -u)
  for f in $(find fixtures profiles -name 'promptc.yaml'); do
    cp "$f" "fuzz/corpus/manifest_yaml/$(echo "$f" | tr '/' '_')"
  done
  for f in $(find fixtures profiles -name '*.j2'); do
    cp "$f" "fuzz/corpus/template/$(echo "$f" | tr '/' '_')"
  done
  for f in fixtures/chat-templates/*.jinja; do cp "$f" fuzz/corpus/chat_template/; done
  # Texts a report counts: prompts and tool JSON as snapshots hold them (small ones only).
  find snapshots -type f -size -64k \( -name '*.md' -o -name '*.json' \) 2>/dev/null | head -200 |
    while IFS= read -r f; do cp "$f" "fuzz/corpus/chunked_count/$(echo "$f" | tr '/' '_')"; done
  for f in fixtures/bad/frozen-*.json; do cp "$f" fuzz/corpus/record/; done
  if [ ! -f fuzz/corpus/record/example.json ]; then
    # A frozen record of the example, written by the ordinary binary: PROMPTC_BIN, else
    # target/debug/promptc, built if missing with the host's settings (not this script's
    # RUSTFLAGS and target dir, which would compile the whole graph once more, instrumented).
    local bin=${PROMPTC_BIN:-target/debug/promptc}
    if [ ! -x "$bin" ]; then
      env -u RUSTFLAGS -u CARGO_TARGET_DIR cargo build -q --locked 2>/dev/null || true
      bin=target/debug/promptc
    fi
    "$bin" freeze --out fuzz/corpus/record/example.json 2>/dev/null || true
  fi
}

run() {
  local target=$1; shift
  mkdir -p "fuzz/artifacts/$target"
  "fuzz/target/$HOST/release/$target" "fuzz/corpus/$target" \
    -dict=fuzz/dict/promptc.dict -artifact_prefix="fuzz/artifacts/$target/" \
    -rss_limit_mb=2048 -timeout=10 -max_len=65536 "$@"
}

case "${1:-smoke}" in
  list) printf '%s\n' "${TARGETS[@]}" ;;
  smoke)
    secs=${2:-10}
    build
    seed
    for t in "${TARGETS[@]}"; do
      echo "== fuzz $t (${secs}s)"
      # Failures of this run only: artifacts of earlier runs stay for their owner to read.
      before=$(ls "fuzz/artifacts/$t" 2>/dev/null | LC_ALL=C sort || true)
      log=$(mktemp)
      status=0
      run "$t" -max_total_time="$secs" -print_final_stats=1 >"$log" 2>&1 || status=$?
      grep -E 'stat::number_of_executed_units|ERROR|SUMMARY|crash-|timeout-|oom-' "$log" || true
      after=$(ls "fuzz/artifacts/$t" 2>/dev/null | LC_ALL=C sort || true)
      new=$(comm -13 <(printf '%s\n' "$before") <(printf '%s\n' "$after") | grep -E '^(crash|oom|timeout|leak)-' || true)
      if [ "$status" -ne 0 ] || [ -n "$new" ]; then
        tail -n 40 "$log"
        echo "fuzz: $t failed (exit $status)${new:+; new artifacts under fuzz/artifacts/$t: $new}"
        rm -f "$log"
        exit 1
      fi
      if ! grep -q 'stat::number_of_executed_units' "$log"; then
        tail -n 40 "$log"
        echo "fuzz: $t ran no input"
        rm -f "$log"
        exit 1
      fi
      rm -f "$log"
    done
    ;;
  run)
    t=${2:?target}; shift 2
    build
    seed
    run "$t" "$@"
    ;;
  *) echo "usage: scripts/fuzz.sh smoke [SECONDS] | run TARGET [ARGS…] | list" >&2; exit 2 ;;
esac

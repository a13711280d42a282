#!/usr/bin/env bash
# Run every fuzz target for a bounded time (default 600 s each).
# Needs cargo-fuzz (`cargo install cargo-fuzz`); on a stable toolchain
# RUSTC_BOOTSTRAP=1 enables the sanitizer flags it uses. Not part of CI.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-600}"
mkdir -p corpus/yaml_roundtrip
mkdir -p corpus/parse_cache
mkdir -p corpus/validate
cp ../testdata/*/repo/*.yaml corpus/yaml_roundtrip/ 2>/dev/null || true
cp ../testdata/*/repo/*.yaml corpus/parse_cache/ 2>/dev/null || true
cp ../testdata/*/repo/*.yaml ../testdata/bad-input/*/repo/*.yaml ../testdata/karmada-api/*.yaml corpus/validate/ 2>/dev/null || true
for target in yaml_roundtrip patch overriders parse_cache validate; do
  echo "== $target (${seconds}s)"
  RUSTC_BOOTSTRAP=1 cargo fuzz run "$target" -- -max_total_time="$seconds" -rss_limit_mb=2048
done

#!/usr/bin/env bash
# Builds and runs main.rs as a scratch project that depends on the wrapper
# by path and pins its own rusqlite, once per release given (default: both
# ends of the supported range), so the wrapper works with the rusqlite a
# project already has. Shares one target folder across releases.
#
#   bash tests/rusqlite/run.sh [0.31 0.43 ...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$root/target/rusqlite-compat
releases=("$@")
[ ${#releases[@]} -gt 0 ] || releases=(0.31 0.43)
for release in "${releases[@]}"; do
  project=$work/$release
  mkdir -p "$project/src"
  cp "$root/tests/rusqlite/main.rs" "$project/src/main.rs"
  cat >"$project/Cargo.toml" <<TOML
[package]
name = "uses-rusqlite-${release/./-}"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
rusqlite = { version = "~$release", features = ["bundled"] }
session-search = { path = "$root/wrapper" }

[workspace]
TOML
  echo "rusqlite ~$release:"
  CARGO_TARGET_DIR=$work/target cargo run --quiet --manifest-path "$project/Cargo.toml"
  grep -A1 '^name = "rusqlite"$' "$project/Cargo.lock" | sed -n 2p
done

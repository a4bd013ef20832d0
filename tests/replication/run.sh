#!/bin/bash
# Runs the replication tests with the Python given as $1 (a venv with
# litestream on PATH): the dqlite cluster test, which mostly waits for
# leader elections, alongside the others; its output follows theirs.
set -u
python=$1
cd "$(dirname "$0")"
log=$(mktemp)
"$python" -m unittest -v test_dqlite > "$log" 2>&1 &
dqlite=$!
"$python" -m unittest -v test_determinism test_litestream test_wal
status=$?
wait "$dqlite"
dqlite_status=$?
cat "$log"
rm -f "$log"
[ "$status" = 0 ] && [ "$dqlite_status" = 0 ]

#!/usr/bin/env bash
# Runs every tests/shell/*.sql through a sqlite3 shell and diffs its output
# (stdout and stderr, in order) against the .expected file next to it.
#
#   bash tests/shell/run.sh [path/to/sqlite3]
#
# Runs from the repository root, so `.load dist/session_search` finds the
# extension. Prints one line per file and a final `shell: N passed, M failed`;
# exits non-zero if any file failed. To rewrite the expected output of the
# files whose name contains NAME after a deliberate change (then read every
# changed line): REGENERATE=NAME bash tests/shell/run.sh
set -u

sqlite3=${1:-sqlite3}
cd "$(dirname "$0")/../.." || exit 2

if ! command -v "$sqlite3" >/dev/null 2>&1; then
  echo "shell: no sqlite3 shell at '$sqlite3'" >&2
  exit 2
fi
if [ ! -f dist/session_search.so ]; then
  echo "shell: dist/session_search.so is missing; run make build" >&2
  exit 2
fi

# The shell buffers stdout when it is not a terminal but not stderr; line
# buffering keeps error messages next to the statement that caused them.
run_sql() {
  if command -v stdbuf >/dev/null 2>&1; then
    stdbuf -oL "$sqlite3" -batch :memory: <"$1" 2>&1
  else
    "$sqlite3" -batch :memory: <"$1" 2>&1
  fi
}

passed=0
failed=0
actual=$(mktemp)
trap 'rm -f "$actual"' EXIT

for sql in tests/shell/*.sql; do
  expected=${sql%.sql}.expected
  run_sql "$sql" >"$actual"
  if [ -n "${REGENERATE:-}" ] && [[ $sql == *"$REGENERATE"* ]]; then
    cp "$actual" "$expected"
  fi
  if [ ! -f "$expected" ]; then
    echo "FAIL $sql (no $expected)"
    failed=$((failed + 1))
  elif diff -u "$expected" "$actual" >/dev/null; then
    echo "ok   $sql"
    passed=$((passed + 1))
  else
    echo "FAIL $sql"
    diff -u --label expected --label actual "$expected" "$actual" | head -n 60 | cut -c1-300 | sed 's/^/    /'
    failed=$((failed + 1))
  fi
done

echo "shell: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

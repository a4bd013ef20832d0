#!/usr/bin/env bash
# make test-dist: every artifact of dist/ against SHA256SUMS, then the CLI
# installed offline from dist/ (or the source) by each package manager, as
# a user would, and used: --version, an import of a real transcript and a
# search. The extension's wheel and tarball are tested by
# test-python-package and test-npm-package.
#   PYTHON   Debian's python3, for the venv pip installs into
#   SQLITE3  the sqlite3 shell, to load the extension
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
work=$root/target/dist-test
rm -rf "$work"
mkdir -p "$work"
version=$(target/release/session-search --version | cut -d' ' -f2)
transcript=$root/../shared/fixtures/claude-code/4b2030ed-5563-49ea-b703-6a002f2d3cc8.jsonl
only() { # the one file of dist/ matching a pattern
  local found=(dist/$1)
  [ ${#found[@]} = 1 ] && [ -f "${found[0]}" ] || { echo "expected one dist/$1, found: ${found[*]}" >&2; exit 1; }
  echo "$root/${found[0]}"
}

echo "== dist/SHA256SUMS: every file, each sum right"
(cd dist && sha256sum --check --quiet SHA256SUMS)
listed=$(cut -d' ' -f3 dist/SHA256SUMS | LC_ALL=C sort)
present=$(ls dist | grep -v '^SHA256SUMS$' | LC_ALL=C sort)
[ "$listed" = "$present" ] || { echo "SHA256SUMS lists: $listed; dist/ holds: $present" >&2; exit 1; }
for artifact in session_search.so "session-search-linux-$(uname -m)" "sqlite_session_search-$version-py3-none-manylinux_*.whl" \
    "sqlite_session_search_cli-$version-py3-none-manylinux_*.whl" "sqlite-session-search-$version.tgz" \
    "sqlite-session-search-cli-$version.tgz"; do
  only "$artifact" >/dev/null
done
"$SQLITE3" :memory: ".load dist/session_search" "SELECT sessions_tokenize('Deploy 東京')" | grep -q '"token":"deploy"'

# uses NAME COMMAND...: the command is session-search $version, imports the
# transcript and finds a word of it.
uses() {
  local name=$1
  shift
  local db=$work/$name.db
  [ "$("$@" --version)" = "session-search $version" ] || { echo "$name: $* --version says $("$@" --version)" >&2; exit 1; }
  "$@" --db "$db" import --quiet "$transcript"
  "$@" --db "$db" search --json curry | grep -q '"sessionKey":"claude-code:4b2030ed-5563-49ea-b703-6a002f2d3cc8"' \
    || { echo "$name: the search found nothing" >&2; exit 1; }
  echo "ok: $name"
}

uses "the binary" "$(only "session-search-linux-$(uname -m)")"

echo "== pip install sqlite-session-search-cli, offline, into a venv"
"$PYTHON" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index --find-links dist sqlite-session-search-cli
uses "pip" "$work/venv/bin/session-search"

echo "== npm install and npx, offline, of the tarball"
tarball=$(only "sqlite-session-search-cli-$version.tgz")
npm install --prefix "$work/npm" --offline --no-audit --no-fund --loglevel=error "$tarball"
uses "npm" "$work/npm/node_modules/.bin/session-search"
mkdir -p "$work/npx"
(cd "$work/npx" && uses "npx" npx --offline --yes --package "$tarball" -- session-search)

echo "== cargo install --locked, offline, of the CLI crate"
CARGO_TARGET_DIR=$root/target cargo install --quiet --locked --offline --force --path cli --root "$work/cargo"
uses "cargo install" "$work/cargo/bin/session-search"

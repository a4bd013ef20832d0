#!/usr/bin/env bash
# The npm package as a project gets it: the tarball that `make npm` packed
# is installed offline into a scratch project (with a registry address that
# answers nothing, so only the tarball can serve it), and the tests there
# import it by name:
#   - under this machine's node, with tests/node's compiled better-sqlite3
#     linked into the scratch node_modules (ES module and CommonJS);
#   - under Node 22.16.0 (the oldest node:sqlite with FTS5) and 22.15.0
#     (loadExtension but no FTS5), binaries from the npm registry;
#   - tsc --noEmit over an ES module and a CommonJS consumer of the types.
# The Node binaries and TypeScript are installed once from the lockfile of
# tests/npm/tools into target/npm/tools, again only when that lockfile changes.
#
#   bash tests/npm/run.sh dist/sqlite-session-search-0.1.0.tgz
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tarball=$(realpath "$1")
better_sqlite3=$root/tests/node/node_modules/better-sqlite3
work=$root/target/npm
tools=$work/tools
consumer=$work/consumer
[ -f "$tarball" ] || { echo "no tarball $tarball: run make npm" >&2; exit 1; }
[ -d "$better_sqlite3/build/Release" ] || { echo "no compiled better-sqlite3 in tests/node: run make test-node" >&2; exit 1; }

if ! cmp -s "$root/tests/npm/tools/package-lock.json" "$tools/package-lock.json" ||
   [ ! -f "$tools/node_modules/.package-lock.json" ]; then
  rm -rf "$tools"
  mkdir -p "$tools"
  cp "$root/tests/npm/tools/package.json" "$root/tests/npm/tools/package-lock.json" "$tools/"
  (cd "$tools" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=warn)
fi

rm -rf "$consumer"
mkdir -p "$consumer"
cat >"$consumer/package.json" <<'JSON'
{ "name": "session-search-npm-consumer", "private": true }
JSON
(cd "$consumer" && npm install --offline --registry=http://127.0.0.1:9/ --no-audit --no-fund --loglevel=warn "$tarball")
ln -s "$better_sqlite3" "$consumer/node_modules/better-sqlite3"
ln -s "$tools/node_modules/@types" "$consumer/node_modules/@types"
cp "$root"/tests/npm/*.test.mjs "$root"/tests/npm/*.test.cjs "$consumer/"
cp -R "$root/tests/npm/types" "$consumer/types"
cd "$consumer"
export SESSION_SEARCH_ROOT=$root SESSION_SEARCH_TARBALL=$tarball

echo "node $(node --version), better-sqlite3 $(node -p 'require("better-sqlite3/package.json").version'):"
node --test better-sqlite3.test.mjs require.test.cjs

for name in node-sqlite-fts5 node-sqlite-no-fts5; do
  node=$tools/node_modules/$name/bin/node
  echo "node:sqlite of node $("$node" --version):"
  "$node" --disable-warning=ExperimentalWarning --test node-sqlite.test.mjs
done

echo "tsc $(node "$tools/node_modules/typescript/bin/tsc" --version):"
node "$tools/node_modules/typescript/bin/tsc" -p types/tsconfig.json
echo "types: esm.mts and cjs.cts check"

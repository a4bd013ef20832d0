# session-search: `make demo` shows it working, `make test` runs every test.
# Targets are exactly what CI runs (.ci/run calls `make test`).

CARGO   ?= cargo
SQLITE3 ?= sqlite3
PYTHON  ?= /usr/bin/python3
EXT      = dist/session_search.so

.PHONY: build demo test test-rust test-sql test-python lint bench deps clean

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

$(EXT): deps $(shell find engine ext -name '*.rs' -o -name Cargo.toml) Cargo.toml
	$(CARGO) build --release -p session-search-ext
	mkdir -p dist
	cp target/release/libsession_search_ext.so $(EXT)

demo: build
	$(SQLITE3) < demo/tokenizer.sql
	$(SQLITE3) < demo/search.sql

test: lint test-rust test-sql test-python

lint: deps
	$(CARGO) fmt --all --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings

test-rust: build
	$(CARGO) test --release --workspace

test-sql: build
	bash tests/shell/run.sh $(SQLITE3)

test-python: build
	$(PYTHON) -m unittest discover -s tests/python -v

bench: build
	$(CARGO) run --release -p session-search-bench

clean:
	$(CARGO) clean
	rm -rf dist

# The Python packages: `make python` builds the wheels into dist/ (the
# extension, its two plugins and the CLI),
# `make test-python-package` installs and tests them. Included by the Makefile,
# which defines EXT and PYTHON (Debian's /usr/bin/python3, whose sqlite3 can
# load extensions).
#
# Venvs live under target/python and are made again only when their
# requirements file changes; the fresh venv of the install test is made anew
# on every run (without pip, so it takes milliseconds).

PY_DIR     = bindings/python
PY_OUT     = target/python
PY_PACKAGES = sqlite-session-search sqlite-session-search-cli sqlite-utils-plugin datasette-plugin
PY_SRC     = $(shell find $(addprefix $(PY_DIR)/,$(PY_PACKAGES)) -type f -not -path '*/__pycache__/*') $(PY_DIR)/platform_wheel.py
# A Python whose sqlite3 may lack extension loading: the first python3 on PATH
# (pyenv's on CI). When it can load them, the test checks that instead.
PYTHON_OTHER ?= $(shell command -v python3)

BUILD_VENV   = $(PY_OUT)/venv-build
PLUGIN_VENV  = $(PY_OUT)/venv-plugins
OTHER_VENV   = $(PY_OUT)/venv-other
FRESH_VENV   = $(PY_OUT)/venv-fresh
PY_WHEELS    = $(PY_OUT)/wheels.stamp

.PHONY: python test-python-package

python: $(PY_WHEELS)

# venv DIR, INTERPRETER, REQUIREMENTS: a venv with the requirements installed.
# Debian's Python makes venvs with pip only with python3-venv, installed here
# when missing and run as root.
define py_venv
	rm -rf $(1)
	$(2) -m venv $(1) || { \
	  if [ "$$(id -u)" = 0 ] && [ "$(2)" = "$(PYTHON)" ]; then \
	    rm -rf $(1) && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null && $(2) -m venv $(1); \
	  else echo "$(2) cannot make a venv (Debian: apt-get install python3-venv)" >&2; exit 1; fi; }
	$(1)/bin/python -m pip install --quiet --disable-pip-version-check -r $(3)
	touch $(1)/.stamp
endef

$(BUILD_VENV)/.stamp: $(PY_DIR)/requirements-build.txt
	$(call py_venv,$(BUILD_VENV),$(PYTHON),$<)

$(PLUGIN_VENV)/.stamp: $(PY_DIR)/requirements-plugins.txt
	$(call py_venv,$(PLUGIN_VENV),$(PYTHON),$<)

$(OTHER_VENV)/.stamp: $(PY_DIR)/requirements-alternatives.txt
	$(call py_venv,$(OTHER_VENV),$(PYTHON_OTHER),$<)

# The packages are built from a copy (so the source tree gets no build
# folders), the extension and the CLI binary copied into theirs with
# platform_wheel.py as their setup.py. `auditwheel repair` gives those two
# wheels the manylinux tag that their glibc symbol versions allow; the
# plugins are pure Python.
$(PY_WHEELS): $(EXT) $(CLI) $(PY_SRC) $(BUILD_VENV)/.stamp
	rm -rf $(PY_OUT)/stage $(PY_OUT)/raw
	mkdir -p $(PY_OUT)/stage dist
	cp -r $(addprefix $(PY_DIR)/,$(PY_PACKAGES)) $(PY_OUT)/stage/
	cp $(EXT) $(PY_OUT)/stage/sqlite-session-search/src/sqlite_session_search/session_search.so
	mkdir -p $(PY_OUT)/stage/sqlite-session-search-cli/src/sqlite_session_search_cli/bin
	cp $(CLI) $(PY_OUT)/stage/sqlite-session-search-cli/src/sqlite_session_search_cli/bin/session-search
	for p in sqlite-session-search sqlite-session-search-cli; do cp $(PY_DIR)/platform_wheel.py $(PY_OUT)/stage/$$p/setup.py; done
	for p in $(PY_PACKAGES); do \
	  $(BUILD_VENV)/bin/python -m build --wheel --no-isolation --outdir $(PY_OUT)/raw $(PY_OUT)/stage/$$p >$(PY_OUT)/build-$$p.log 2>&1 \
	    || { cat $(PY_OUT)/build-$$p.log >&2; exit 1; }; \
	done
	rm -f dist/sqlite_session_search-*.whl dist/sqlite_session_search_cli-*.whl dist/sqlite_utils_sqlite_session_search-*.whl dist/datasette_sqlite_session_search-*.whl
	for wheel in $(PY_OUT)/raw/*-linux_x86_64.whl; do \
	  PATH=$(CURDIR)/$(BUILD_VENV)/bin:$$PATH $(BUILD_VENV)/bin/auditwheel repair --wheel-dir dist $$wheel || exit 1; \
	done
	cp $(PY_OUT)/raw/*-py3-none-any.whl dist/
	@ls dist/*.whl
	touch $@

test-python-package: $(PY_WHEELS) $(PLUGIN_VENV)/.stamp $(OTHER_VENV)/.stamp
	BUILD_VENV=$(BUILD_VENV) PLUGIN_VENV=$(PLUGIN_VENV) OTHER_VENV=$(OTHER_VENV) \
	  FRESH_VENV=$(FRESH_VENV) PYTHON=$(PYTHON) bash $(PY_DIR)/tests/run.sh

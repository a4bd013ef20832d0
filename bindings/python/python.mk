# The Python packages: `make python` builds the wheels into dist/,
# `make test-python-package` installs and tests them. Included by the Makefile,
# which defines EXT and PYTHON (Debian's /usr/bin/python3, whose sqlite3 can
# load extensions).
#
# Venvs live under target/python and are made again only when their
# requirements file changes; the fresh venv of the install test is made anew
# on every run (without pip, so it takes milliseconds).

PY_DIR     = bindings/python
PY_OUT     = target/python
PY_SRC     = $(shell find $(PY_DIR)/sqlite-session-search $(PY_DIR)/sqlite-utils-plugin $(PY_DIR)/datasette-plugin -type f -not -path '*/__pycache__/*')
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
# folders), the extension copied into the main one. `auditwheel repair` gives
# that wheel the manylinux tag that the extension's glibc symbol versions
# allow; the plugins are pure Python.
$(PY_WHEELS): $(EXT) $(PY_SRC) $(BUILD_VENV)/.stamp
	rm -rf $(PY_OUT)/stage $(PY_OUT)/raw
	mkdir -p $(PY_OUT)/stage dist
	cp -r $(PY_DIR)/sqlite-session-search $(PY_DIR)/sqlite-utils-plugin $(PY_DIR)/datasette-plugin $(PY_OUT)/stage/
	cp $(EXT) $(PY_OUT)/stage/sqlite-session-search/src/sqlite_session_search/session_search.so
	for p in sqlite-session-search sqlite-utils-plugin datasette-plugin; do \
	  $(BUILD_VENV)/bin/python -m build --wheel --no-isolation --outdir $(PY_OUT)/raw $(PY_OUT)/stage/$$p >$(PY_OUT)/build-$$p.log 2>&1 \
	    || { cat $(PY_OUT)/build-$$p.log >&2; exit 1; }; \
	done
	rm -f dist/sqlite_session_search-*.whl dist/sqlite_utils_sqlite_session_search-*.whl dist/datasette_sqlite_session_search-*.whl
	PATH=$(CURDIR)/$(BUILD_VENV)/bin:$$PATH $(BUILD_VENV)/bin/auditwheel repair --wheel-dir dist $(PY_OUT)/raw/sqlite_session_search-*-linux_x86_64.whl
	cp $(PY_OUT)/raw/*-py3-none-any.whl dist/
	@ls dist/*.whl
	touch $@

test-python-package: $(PY_WHEELS) $(PLUGIN_VENV)/.stamp $(OTHER_VENV)/.stamp
	BUILD_VENV=$(BUILD_VENV) PLUGIN_VENV=$(PLUGIN_VENV) OTHER_VENV=$(OTHER_VENV) \
	  FRESH_VENV=$(FRESH_VENV) PYTHON=$(PYTHON) bash $(PY_DIR)/tests/run.sh

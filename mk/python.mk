# Python tooling in private venvs under .run/, each pinned with its dependencies and installed
# with --no-deps, so exactly these versions are used. Part of `make test`:
# - .run/py: the official RavenDB Python client (ravendb 7.2.7 from PyPI, test/python/requirements.txt)
#   for the fidelity test test/fidelity/ravendb-python.test.mjs;
# - .run/otava: mk/otava.mk.
.PHONY: python-deps
TEST_DEPS += python-deps
PY_VENV := .run/py

# $(call python-venv,<venv dir>,<requirements file>,<make target name>): the recipe of a venv.
define python-venv
	@command -v python3 >/dev/null || { echo "make $(3): python3 is required (Debian: apt-get install python3 python3-venv)" >&2; exit 1; }
	@python3 -m venv --clear $(1) 2>/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    (apt-get install -y --no-install-recommends python3-venv >/dev/null || { apt-get update >/dev/null && apt-get install -y --no-install-recommends python3-venv >/dev/null; }) && python3 -m venv --clear $(1); \
	  else echo "make $(3): python3 cannot create a venv: install python3-venv" >&2; exit 1; fi; }
	$(1)/bin/pip install --quiet --disable-pip-version-check --no-deps -r $(2)
	@touch $(1)/.installed
endef

python-deps: $(PY_VENV)/.installed
$(PY_VENV)/.installed: test/python/requirements.txt
	$(call python-venv,$(PY_VENV),test/python/requirements.txt,python-deps)

# The official RavenDB Python client (ravendb 7.2.7 from PyPI, pinned with its dependencies in
# test/python/requirements.txt) in a private venv under .run/py, for the fidelity test
# test/fidelity/ravendb-python.test.mjs. Part of `make test`.
.PHONY: python-deps
TEST_DEPS += python-deps
PY_VENV := .run/py

## the official RavenDB Python client in .run/py (pinned; part of make test)
python-deps: $(PY_VENV)/.installed
$(PY_VENV)/.installed: test/python/requirements.txt
	@command -v python3 >/dev/null || { echo "make python-deps: python3 is required (Debian: apt-get install python3 python3-venv)" >&2; exit 1; }
	@python3 -m venv --clear $(PY_VENV) 2>/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    (apt-get install -y --no-install-recommends python3-venv >/dev/null || { apt-get update >/dev/null && apt-get install -y --no-install-recommends python3-venv >/dev/null; }) && python3 -m venv --clear $(PY_VENV); \
	  else echo "make python-deps: python3 cannot create a venv: install python3-venv" >&2; exit 1; fi; }
	$(PY_VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps -r test/python/requirements.txt
	@touch $@

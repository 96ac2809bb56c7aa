# Results users can see (docs/results.md): dashboards, HTML report test deps, comparisons.

.PHONY: test-deps-results dashboards compare

TEST_DEPS += test-deps-results

# Headless Chromium for the HTML report test: Debian package `chromium`;
# a prerequisite of `make test` (the test itself installs nothing)
test-deps-results:
	@command -v $${CHROMIUM:-chromium} >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get install -y --no-install-recommends chromium >/dev/null || { apt-get update >/dev/null && apt-get install -y --no-install-recommends chromium >/dev/null; }; \
	  else echo "make test-deps-results: chromium is missing: sudo apt-get install chromium (or set CHROMIUM=/path/to/chrome)" >&2; exit 1; fi; }

## regenerate grafana/provisioning/dashboards/*.json from grafana/src/ (a unit test checks they match)
dashboards: node-deps
	node grafana/src/k6-writepath.mjs > grafana/provisioning/dashboards/k6-writepath.json

## side by side (E3's shape + chart); COMPARE= scenarios or result folders
# make compare COMPARE="scenarios/postgres/insert-vs-overwrite.js scenarios/arangodb/insert-vs-overwrite.js"
#   or COMPARE="results/<id1> results/<id2>"; K6_ARGS="-e DOCS=50000" applies to every run
COMPARE ?= scenarios/postgres/insert-vs-overwrite.js scenarios/postgres/insert-vs-overwrite.js
compare: bin/k6 up
	@scripts/lib/make-exit.sh compare scripts/compare $(COMPARE_ARGS) $(K6_ARGS) $(COMPARE)

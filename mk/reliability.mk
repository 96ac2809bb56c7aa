# Reliability (docs/reliability.md): the PostgreSQL fault matrix, the bad-input table and the
# data-safety checks on their own. `make test` runs them too (they live under test/).

RELIABILITY_TESTS := test/integration/bad-input.test.mjs test/integration/data-safety.test.mjs \
  test/integration/pg-faults.test.mjs test/integration/pg-hidden-failure.test.mjs test/integration/pg-retry-deadline.test.mjs

.PHONY: test-reliability
## fault matrix (PostgreSQL rows), bad-input table and data-safety tests only
# The restart test uses a
# private PostgreSQL on a free port of 127.0.0.1 under .run/reliability/ (never the shared one)
test-reliability: bin/k6 up
	node --test --test-concurrency=1 --test-reporter=spec $(RELIABILITY_TESTS)

.PHONY: hostile
## the hostile set as a user runs it (every scenario, entry point, fault, forgery, secret path); table in results/hostile-trial.md
# Minutes, not part of make test: the integration tests hold each class one case at a time.
hostile: bin/k6 testservers up node-deps
	node test/hostile/trial.mjs --out results/hostile-trial.md

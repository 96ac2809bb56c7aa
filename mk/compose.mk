# The docker-compose stack (docs/compose.md): ArangoDB, RavenDB, PostgreSQL, InfluxDB, Grafana, k6.
#   make compose DO=up                   .env with random passwords (once), then docker compose up -d
#   make compose DO=run SCENARIO=scenarios/arangodb/insert-vs-overwrite.js K6_ARGS="-e DOCS=100000"
#                                        compose when a Docker engine answers, else bin/k6 + make up
#   make compose DO=down                 stop the stack (COMPOSE_DOWN_ARGS=-v also drops its data)
#   make compose DO=config               validate docker-compose.yml (+ the constrained override)
#   make compose DO=env                  write .env with random passwords once (never overwrites)
#   COMPOSE_FILES="-f docker-compose.yml -f docker-compose.constrained.yml"  E1's memory budget
# compose-up, compose-run, compose-down, compose-config and compose-env (the names the docs
# use) are the same targets.
.PHONY: compose test-deps-compose compose-env compose-up compose-run compose-down compose-config
COMPOSE_DOS := up run down config env

## the docker-compose stack (docs/compose.md): DO=up|run|down|config|env (run: SCENARIO, K6_ARGS; without Docker bin/k6 + make up)
compose: $(if $(filter $(DO),$(COMPOSE_DOS)),compose-$(DO),compose-bad-do)
compose-bad-do:
	@echo "make compose: DO=$(DO) is not allowed: one of $(COMPOSE_DOS)" >&2; exit 107

# `docker compose` (v2 plugin) when present, else docker-compose (v1.29, Debian).
COMPOSE ?= $(shell docker compose version >/dev/null 2>&1 && echo 'docker compose' || echo docker-compose)
COMPOSE_FILES ?= -f docker-compose.yml
SCENARIO ?= scenarios/postgres/insert-vs-overwrite.js

# Debian's docker-compose 1.29 for test/integration/compose.test.mjs: it validates the compose
# files offline (no engine needed). A prerequisite of `make test`; the test installs nothing.
TEST_DEPS += test-deps-compose

test-deps-compose:
	@command -v docker-compose >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker-compose >/dev/null 2>&1 || \
	    { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker-compose >/dev/null; }; \
	  else echo "make test-deps-compose: docker-compose is missing: sudo apt-get install docker-compose" >&2; exit 1; fi; }
	@docker-compose version --short >/dev/null

compose-env:
	@scripts/compose-env.sh

# Without a container engine docker-compose 1.29 ends in a Python traceback: say it in one
# line instead, before anything is written (.env included).
need_engine = docker info >/dev/null 2>&1 || { echo "make $@: no Docker engine answers (docker info): the compose stack needs one; without Docker use make up and scripts/run, or make compose-run" >&2; exit 1; }

compose-up:
	@$(need_engine)
	@scripts/compose-env.sh
	$(COMPOSE) $(COMPOSE_FILES) up -d

# Results belong to the calling user, not to root inside the container.
compose-run:
	@if docker info >/dev/null 2>&1; then \
	  scripts/compose-env.sh 2>/dev/null; \
	  scripts/lib/make-exit.sh compose-run $(COMPOSE) $(COMPOSE_FILES) run --rm --user "$$(id -u):$$(id -g)" k6 run $(SCENARIO) $(K6_ARGS); \
	else \
	  echo "compose-run: no Docker engine answers; running $(SCENARIO) with bin/k6 against make up's services" >&2; \
	  $(MAKE) --no-print-directory bin/k6 up && scripts/lib/make-exit.sh compose-run scripts/run $(SCENARIO) $(K6_ARGS); \
	fi

compose-down:
	@$(need_engine)
	$(COMPOSE) $(COMPOSE_FILES) down $(COMPOSE_DOWN_ARGS)

compose-config: test-deps-compose compose-env
	docker-compose -f docker-compose.yml config -q
	docker-compose -f docker-compose.yml -f docker-compose.constrained.yml config -q
	@echo "compose-config: docker-compose.yml and docker-compose.constrained.yml are valid"

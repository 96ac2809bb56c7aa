# Scale-out (docs/scale-out.md): k6 archives of the scenarios, the k6-operator runner image
# and TestRun manifests rendered with your values.
#   make k8s-archives                      .run/k8s/archives/<family>.tar (lib/ and thresholds/ inside)
#   make k8s-image K8S_IMAGE=reg/k6-writepath-runner:1.8.1
#   make k8s-manifests PARALLELISM=6 RUN_ID=e1_0412 K8S_IMAGE=… K8S_INFLUX_URL=http://influxdb:8086/k6
.PHONY: k8s-archives k8s-image k8s-manifests

K8S_IMAGE ?= k6-writepath-runner:local
PARALLELISM ?= 3
K8S_RUN_ID ?= $(or $(RUN_ID),k8s_$(shell date -u +%Y%m%d%H%M%S))
K8S_INFLUX_URL ?= http://influxdb.monitoring.svc:8086/k6
K8S_FAMILIES := e1-postgres=scenarios/postgres/insert-vs-overwrite.js e4-ravendb=scenarios/ravendb/bulk-insert.js

# Secrets never go into an archive: k6 stores -e values in it, so PG_URL gets a placeholder
# here and the real value from the runners' environment (a Secret), which overrides it.
## k6 archives of the scenarios (lib/ and thresholds inside) under .run/k8s/archives
k8s-archives: bin/k6
	@mkdir -p .run/k8s/archives
	@for f in $(K8S_FAMILIES); do name=$${f%%=*}; script=$${f#*=}; \
	  bin/k6 archive --quiet -e PG_URL=set-at-run-time -O .run/k8s/archives/$$name.tar $$script && echo ".run/k8s/archives/$$name.tar"; done

## the k6-operator runner image (needs Docker)
k8s-image: k8s-archives
	docker build -f docker/k6.Dockerfile -t k6-writepath-k6:local .
	docker build -f deploy/k8s/runner.Dockerfile --build-arg K6_IMAGE=k6-writepath-k6:local -t $(K8S_IMAGE) .run/k8s

## TestRun manifests with PARALLELISM and RUN_ID filled in, under .run/k8s
k8s-manifests:
	@mkdir -p .run/k8s
	@for f in deploy/k8s/testrun-*.yaml; do out=.run/k8s/$$(basename $$f); \
	  sed -e 's/parallelism: 3/parallelism: $(PARALLELISM)/' -e 's/k8s_e[14]_run1/$(K8S_RUN_ID)/g' \
	      -e 's#registry.example.com/k6-writepath-runner:1.8.1#$(K8S_IMAGE)#' -e 's#http://influxdb.monitoring.svc:8086/k6#$(K8S_INFLUX_URL)#' $$f > $$out; echo $$out; done

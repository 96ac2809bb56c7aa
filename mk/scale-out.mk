# Scale-out (docs/scale-out.md): k6 archives of the scenarios, the k6-operator runner image
# and TestRun manifests rendered with your values.
#   make k8s DO=archives [K8S_KNOBS="-e DOCS=… -e VUS=…"]   .run/k8s/archives/<testrun>.tar, built with the TestRun's knobs
#   make k8s DO=image K8S_IMAGE=reg/k6-writepath-runner:1.1.0-api1
#   make k8s DO=manifests PARALLELISM=6 RUN_ID=e1_0412 K8S_IMAGE=… K8S_INFLUX_URL=http://influxdb:8086/k6
# k8s-archives, k8s-image and k8s-manifests (the names the docs use) are the same targets.
.PHONY: k8s k8s-archives k8s-image k8s-manifests
K8S_DOS := manifests archives image

## k6-operator scale-out (docs/scale-out.md): DO=manifests (TestRuns with PARALLELISM, RUN_ID) | archives (k6 archives with their knobs) | image (runner image; Docker)
k8s: $(if $(filter $(DO),$(K8S_DOS)),k8s-$(DO),k8s-bad-do)
k8s-bad-do:
	@echo "make k8s: DO=$(DO) is not allowed: one of $(K8S_DOS)" >&2; exit 107

K8S_IMAGE ?= k6-writepath-runner:local
PARALLELISM ?= 3
K8S_RUN_ID ?= $(or $(RUN_ID),k8s_$(shell date -u +%Y%m%d%H%M%S))
K8S_INFLUX_URL ?= http://influxdb.monitoring.svc:8086/k6
# Extra -e knobs appended to every TestRun's arguments (and so built into its archive).
K8S_KNOBS ?=

# One archive per rendered TestRun, built with the -e knobs of its arguments (an archive
# freezes the run's shape); secrets never go into one (scripts/k8s-archives).
k8s-archives: bin/k6 k8s-manifests
	@scripts/k8s-archives .run/k8s .run/k8s/archives

k8s-image: k8s-archives
	docker build -f docker/k6.Dockerfile -t k6-writepath-k6:local .
	docker build -f deploy/k8s/runner.Dockerfile --build-arg K6_IMAGE=k6-writepath-k6:local -t $(K8S_IMAGE) .run/k8s

k8s-manifests:
	@mkdir -p .run/k8s
	@for f in deploy/k8s/testrun-*.yaml; do out=.run/k8s/$$(basename $$f); \
	  sed -e 's/parallelism: 3/parallelism: $(PARALLELISM)/' -e 's/k8s_e[14]_run1/$(K8S_RUN_ID)/g' \
	      -e '/^    -e DISTRIBUTED=/s|$$|$(if $(K8S_KNOBS), $(K8S_KNOBS))|' \
	      -e 's#registry.example.com/k6-writepath-runner:1.1.0-api1#$(K8S_IMAGE)#' -e 's#http://influxdb.monitoring.svc:8086/k6#$(K8S_INFLUX_URL)#' $$f > $$out; echo $$out; done

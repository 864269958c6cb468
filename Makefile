# listkeeper — kubebuilder-style Makefile. `make help` lists the targets.

# Where the tool and test binaries go. Everything under bin/ is ignored by git.
LOCALBIN ?= $(CURDIR)/bin
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen
GOLANGCI_LINT ?= $(LOCALBIN)/golangci-lint
# The kube-apiserver and etcd that envtest runs, built from pinned Go modules
# in hack/tools (setup-envtest cannot download binaries here). A
# KUBEBUILDER_ASSETS that is already set in the environment wins.
ENVTEST_ASSETS ?= $(LOCALBIN)/k8s
KUBEBUILDER_ASSETS ?= $(ENVTEST_ASSETS)
export KUBEBUILDER_ASSETS
# The oldest supported Kubernetes, for 'make test-compat': kube-apiserver
# 1.$(COMPAT_KUBE_MINOR) built from hack/tools/kube-apiserver-1.$(COMPAT_KUBE_MINOR)
# into COMPAT_ASSETS, beside a copy of bin/k8s's etcd (3.6 serves 1.31 too).
# A COMPAT_KUBEBUILDER_ASSETS that is already set wins, and nothing is built.
COMPAT_KUBE_MINOR ?= 31
COMPAT_ASSETS ?= $(LOCALBIN)/k8s-1.$(COMPAT_KUBE_MINOR)
COMPAT_KUBEBUILDER_ASSETS ?= $(COMPAT_ASSETS)
# The packages whose tests start envtest (internal/testenv); test-compat
# runs the test/chart and test/monitoring modules' tests too. Left out:
# test/e2e (manager processes, minutes of churn and failover on a control
# plane of its own) and the packages that never talk to a kube-apiserver.
COMPAT_PKGS ?= ./api/... ./config/... ./internal/testenv/... ./internal/controller/... \
	./internal/membership/... ./cmd/kubectl-listkeeper/...
# Azurite (Azure Blob Storage emulator) for the object-store tests, installed
# with npm from hack/azurite/package-lock.json.
AZURITE_DIR ?= hack/azurite

GO ?= go
# Tools and test suites whose dependencies the operator does not use are Go
# modules of their own, so that the root module requires only what the
# operator builds with: test/chart (the Helm SDK), test/monitoring
# (Prometheus's rule and PromQL parsers), hack/apidocs, hack/release
# (cosign, go-containerregistry). Each but hack/release replaces the root
# module with ../.., so it tests this tree's packages; ./... in the root
# leaves them out, and vet, lint, test and verify.sh visit each.

# Packages whose tests are concurrency-heavy run under the race detector.
RACE_PKGS ?= ./internal/... ./cmd/... ./test/... ./bench/...
# Arguments passed through to demo, bench, soak and fuzz (e.g. ARGS=--keep).
ARGS ?=

# The manager's image. The default tag is that of the unreleased tree: the
# chart's appVersion (charts/listkeeper/Chart.yaml), which config/manager
# names too; hack/release's tests check that they agree. make release tags
# the images with VERSION instead.
IMG ?= ghcr.io/listkeeper/listkeeper:0.2.0-dev
# The image of the bundled fake list server (config/fakeapi, the in-cluster quick start).
IMG_FAKEAPI ?= ghcr.io/listkeeper/listkeeper-fakeapi:0.2.0-dev

# The build's version and revision, stamped into internal/version (printed by
# --version, exported as listkeeper_build_info).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
LDFLAGS ?= -X github.com/listkeeper/listkeeper/internal/version.Version=$(VERSION) -X github.com/listkeeper/listkeeper/internal/version.Revision=$(REVISION)
# Where make image and make release write; each empties it first, so that
# make push pushes what the last of them built.
DIST ?= dist
# Every timestamp in the images, SBOMs and chart archive: the commit's time,
# so that the same commit gives the same bytes.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)

FUZZTIME ?= 30s
FUZZ_TARGETS ?= ./internal/etagclient:FuzzParsePointer ./internal/etagclient:FuzzDocumentEdit \
	./internal/etagclient:FuzzParseETag ./internal/fakeapi:FuzzIfMatchHeader ./internal/fakeapi:FuzzServeHTTP

.DEFAULT_GOAL := help

##@ General

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"; printf "\nUsage:\n  make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ Development

.PHONY: manifests
manifests: controller-gen ## Generate the CRDs (config/crd/bases) and the RBAC role (config/rbac/role.yaml), and copy both into the Helm chart.
	$(CONTROLLER_GEN) rbac:roleName=manager-role crd:allowDangerousTypes=false webhook paths="./api/..." paths="./internal/..." output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac
	@$(MAKE) --no-print-directory -s chart-crds chart-rbac

# The Helm chart carries copies of generated files, since templates read
# files only from inside the chart. Its CRDs are templates (templates/crds.yaml
# renders files/crds), not crds/, which helm never upgrades.
CHART_DIR ?= charts/listkeeper

.PHONY: chart-crds
chart-crds: ## Copy the CRDs of config/crd/bases into the Helm chart's files/crds, which templates/crds.yaml renders (part of manifests).
	mkdir -p $(CHART_DIR)/files/crds
	rm -f $(CHART_DIR)/files/crds/*.yaml
	cp config/crd/bases/*.yaml $(CHART_DIR)/files/crds/

.PHONY: chart-rbac
chart-rbac: ## Copy the manager's generated role (config/rbac/role.yaml) into the Helm chart (part of manifests).
	cp config/rbac/role.yaml $(CHART_DIR)/files/manager-role.yaml

.PHONY: generate
generate: controller-gen ## Generate the DeepCopy methods (api/v1alpha1/zz_generated.deepcopy.go).
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./api/..."

.PHONY: monitoring
monitoring: ## Generate the alert rules, ServiceMonitor and Grafana dashboard (config/prometheus, config/grafana, charts/listkeeper/files) from internal/monitoring.
	$(GO) run ./hack/monitoring

.PHONY: api-docs
api-docs: ## Write the API reference docs/api.md from the Go types, doc comments and markers of api/v1alpha1 (hack/apidocs).
	$(GO) -C hack/apidocs build -o $(LOCALBIN)/apidocs .
	$(LOCALBIN)/apidocs -api api/v1alpha1 -out docs/api.md

.PHONY: fmt
fmt: ## Run gofmt -w on the module.
	git ls-files --cached --others --exclude-standard '*.go' | while read -r f; do [ -f "$$f" ] && echo "$$f"; done | xargs -r gofmt -w

.PHONY: vet
vet: ## Run go vet on every module.
	$(GO) vet ./...
	cd test/chart && $(GO) vet ./...
	cd test/monitoring && $(GO) vet ./...
	cd hack/apidocs && $(GO) vet ./...
	cd hack/release && $(GO) vet ./...

.PHONY: lint
lint: golangci-lint ## Run golangci-lint (pinned in hack/tools) on every module.
	$(GOLANGCI_LINT) run --timeout 10m ./...
	cd test/chart && $(GOLANGCI_LINT) run --timeout 10m ./...
	cd test/monitoring && $(GOLANGCI_LINT) run --timeout 10m ./...
	cd hack/apidocs && $(GOLANGCI_LINT) run --timeout 10m ./...
	cd hack/release && $(GOLANGCI_LINT) run --timeout 10m ./...

.PHONY: verify
verify: controller-gen ## Fail when gofmt would change a file or the committed generated files are stale.
	@hack/verify.sh "$(CONTROLLER_GEN)"

.PHONY: test
test: verify vet lint envtest-assets build azurite ## Run every test (unit, envtest against a real kube-apiserver, race detector).
	$(GO) test -race -count=1 -timeout 25m $(RACE_PKGS)
	cd test/chart && $(GO) test -race -count=1 -timeout 25m ./...
	$(GO) test -count=1 -timeout 25m $$($(GO) list ./... | grep -v -e /internal/ -e /cmd/ -e /test/ -e /bench)
	cd hack/apidocs && $(GO) test -count=1 -timeout 10m ./...
	cd test/monitoring && $(GO) test -count=1 -timeout 10m ./...
	cd hack/release && $(GO) test -count=1 -timeout 25m ./...

# The compat assets are built unless the user named their own. A relative
# path is made absolute: go test runs each package in its own directory.
COMPAT_DEPS := $(if $(filter file,$(origin COMPAT_KUBEBUILDER_ASSETS)),compat-assets)

.PHONY: test-compat
test-compat: $(COMPAT_DEPS) azurite ## Run the envtest suites (COMPAT_PKGS, test/chart, test/monitoring) against the oldest supported Kubernetes, kube-apiserver 1.31, without -race; not test/e2e.
	KUBEBUILDER_ASSETS="$(abspath $(COMPAT_KUBEBUILDER_ASSETS))" LISTKEEPER_WANT_KUBE_MINOR=$(COMPAT_KUBE_MINOR) \
		$(GO) test -count=1 -timeout 25m $(COMPAT_PKGS)
	cd test/chart && KUBEBUILDER_ASSETS="$(abspath $(COMPAT_KUBEBUILDER_ASSETS))" LISTKEEPER_WANT_KUBE_MINOR=$(COMPAT_KUBE_MINOR) \
		$(GO) test -count=1 -timeout 25m ./...
	cd test/monitoring && KUBEBUILDER_ASSETS="$(abspath $(COMPAT_KUBEBUILDER_ASSETS))" LISTKEEPER_WANT_KUBE_MINOR=$(COMPAT_KUBE_MINOR) \
		$(GO) test -count=1 -timeout 10m ./...

.PHONY: soak
soak: ## Run torture rounds back to back and print totals (ARGS="--duration 10m [--seed N]"); fails on any violation.
	$(GO) run ./test/torture/cmd/soak $(ARGS)

.PHONY: fuzz
fuzz: ## Run every fuzz target for FUZZTIME (default 30s); a crasher lands in the package's testdata/fuzz.
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "== $$name ($$pkg, $(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg; \
	done

.PHONY: bench
bench: ## Compare update strategies against the fake list server; tables and chart in bench/results/ (ARGS=--quick for a smoke run).
	$(GO) run ./bench/cmd/listbench $(ARGS)

##@ Build

.PHONY: build
build: ## Build the manager and fakeapi binaries into bin/.
	$(GO) build -ldflags "$(LDFLAGS)" -o $(LOCALBIN)/manager ./cmd/manager
	$(GO) build -ldflags "$(LDFLAGS)" -o $(LOCALBIN)/fakeapi ./cmd/fakeapi
	$(GO) build -ldflags "$(LDFLAGS)" -o $(LOCALBIN)/kubectl-listkeeper ./cmd/kubectl-listkeeper

.PHONY: run
run: ## Run the manager against the cluster of the current kubeconfig.
	$(GO) run ./cmd/manager $(ARGS)

.PHONY: demo
demo: envtest-assets build ## Run the operator end to end: kube-apiserver, fake list server (or ARGS=--store=s3: an in-process S3; ARGS=--store=wafv2: an in-process AWS WAF IP-set API), 3 manager replicas (ARGS=--keep to stay up).
	$(GO) run ./hack/demo --bin $(LOCALBIN) --assets "$(KUBEBUILDER_ASSETS)" $(ARGS)

.PHONY: bench-e2e
bench-e2e: envtest-assets build ## End to end on a real control plane: 1,000 entries with 1, 3 and 5 manager replicas; results in bench/results/latest-e2e (ARGS="--entries N --replicas 1,3,5 --latency 2ms").
	$(GO) run ./bench/e2e --bin $(LOCALBIN) --assets "$(KUBEBUILDER_ASSETS)" $(ARGS)

.PHONY: docker-build
docker-build: ## Build the manager's container image IMG (needs a Docker engine).
	docker build --target manager --build-arg VERSION=$(VERSION) --build-arg REVISION=$(REVISION) -t $(IMG) .

.PHONY: docker-build-fakeapi
docker-build-fakeapi: ## Build the fake list server's container image IMG_FAKEAPI (needs a Docker engine).
	docker build --target fakeapi --build-arg VERSION=$(VERSION) --build-arg REVISION=$(REVISION) -t $(IMG_FAKEAPI) .

##@ Release

# The flags of hack/release: the binaries get the same -ldflags as make
# build, and -s. hack/release is a Go module of its own (so that the root
# module neither requires nor compiles cosign's dependencies): it runs in
# hack/release, so every path it gets is absolute.
RELEASE_FLAGS = --root "$(CURDIR)" --version "$(VERSION)" --revision "$(REVISION)" --ldflags "-s $(LDFLAGS)" \
	--source-date-epoch "$(SOURCE_DATE_EPOCH)" --manager-image "$(IMG)" --fakeapi-image "$(IMG_FAKEAPI)" --out "$(abspath $(DIST))"
# The cosign private key (cosign generate-key-pair) that signs a release,
# its password in COSIGN_PASSWORD. Empty: a throwaway key signs it, and
# make release says so.
SIGNING_KEY ?=

.PHONY: image
image: ## Build the images IMG and IMG_FAKEAPI for linux/amd64 and linux/arm64 without a container engine: OCI layouts (.oci.tar) and CycloneDX SBOMs in dist/.
	rm -rf "$(DIST)"
	$(GO) -C hack/release run . image $(RELEASE_FLAGS)

.PHONY: release
release: ## Build release VERSION=vX.Y.Z into dist/, signed with SIGNING_KEY (password COSIGN_PASSWORD; none: a throwaway key): signed images with SLSA provenance and SBOMs, the Helm chart, install.yaml, cosign.pub, SHA256SUMS and SHA256SUMS.sig.
	rm -rf "$(DIST)"
	$(GO) -C hack/release run . release $(RELEASE_FLAGS) --signing-key "$(if $(SIGNING_KEY),$(abspath $(SIGNING_KEY)))"

.PHONY: push
push: ## Push the images in dist/ (from make image or make release), with their signatures and attestations, to the references they name, as docker login, podman login or skopeo login allow.
	$(GO) -C hack/release run . push --out "$(abspath $(DIST))"

##@ Deployment

.PHONY: install
install: ## Install the CRDs into the cluster of the current kubeconfig.
	kubectl apply -k config/crd

.PHONY: uninstall
uninstall: ## Remove the CRDs from the cluster of the current kubeconfig.
	kubectl delete --ignore-not-found -k config/crd

.PHONY: deploy
deploy: ## Deploy the operator (config/default, image IMG) to the cluster of the current kubeconfig.
	kubectl kustomize config/default | sed 's#image: ghcr.io/listkeeper/listkeeper:0.2.0-dev#image: $(IMG)#' | kubectl apply -f -

.PHONY: undeploy
undeploy: ## Remove the operator from the cluster of the current kubeconfig.
	kubectl delete --ignore-not-found -k config/default

.PHONY: deploy-fakeapi
deploy-fakeapi: ## Deploy the fake list server (config/fakeapi, image IMG_FAKEAPI) into namespace listkeeper-demo.
	kubectl kustomize config/fakeapi | sed 's#image: ghcr.io/listkeeper/listkeeper-fakeapi:0.2.0-dev#image: $(IMG_FAKEAPI)#' | kubectl apply -f -

.PHONY: undeploy-fakeapi
undeploy-fakeapi: ## Remove the fake list server and namespace listkeeper-demo.
	kubectl delete --ignore-not-found -k config/fakeapi

##@ Tools

.PHONY: controller-gen
controller-gen: $(CONTROLLER_GEN) ## Build the pinned controller-gen into bin/.
$(CONTROLLER_GEN): hack/tools/controller-gen/go.mod
	cd hack/tools/controller-gen && $(GO) build -o $(CONTROLLER_GEN) sigs.k8s.io/controller-tools/cmd/controller-gen

.PHONY: golangci-lint
golangci-lint: $(GOLANGCI_LINT) ## Build the pinned golangci-lint into bin/ (first build takes minutes).
$(GOLANGCI_LINT): hack/tools/golangci-lint/go.mod
	cd hack/tools/golangci-lint && $(GO) build -o $(GOLANGCI_LINT) github.com/golangci/golangci-lint/v2/cmd/golangci-lint

.PHONY: envtest-assets
envtest-assets: $(ENVTEST_ASSETS)/kube-apiserver $(ENVTEST_ASSETS)/etcd ## Build the pinned kube-apiserver and etcd into bin/k8s (first build takes minutes).
$(ENVTEST_ASSETS)/kube-apiserver: hack/tools/kube-apiserver/go.mod
	$(call build-kube-apiserver,hack/tools/kube-apiserver)
$(ENVTEST_ASSETS)/etcd: hack/tools/etcd/go.mod hack/tools/etcd/main.go
	cd hack/tools/etcd && $(GO) build -o $@ .

.PHONY: compat-assets
compat-assets: $(COMPAT_ASSETS)/kube-apiserver $(COMPAT_ASSETS)/etcd ## Build kube-apiserver 1.31 (hack/tools/kube-apiserver-1.31) into bin/k8s-1.31, beside bin/k8s's etcd (first build takes minutes).
$(COMPAT_ASSETS)/kube-apiserver: hack/tools/kube-apiserver-1.$(COMPAT_KUBE_MINOR)/go.mod
	$(call build-kube-apiserver,hack/tools/kube-apiserver-1.$(COMPAT_KUBE_MINOR))
$(COMPAT_ASSETS)/etcd: $(ENVTEST_ASSETS)/etcd
	mkdir -p $(@D)
	cp $< $@

# build-kube-apiserver builds the kube-apiserver of the tool module in
# directory $(1) into the target, with the version of its k8s.io/kubernetes
# stamped in: a plain go build reports v0.0.0-master on GET /version, and
# internal/testenv reads the minor version there (LISTKEEPER_WANT_KUBE_MINOR).
define build-kube-apiserver
cd $(1) && v=$$($(GO) list -m -f '{{.Version}}' k8s.io/kubernetes) && \
	$(GO) build -o $@ -ldflags "-X k8s.io/component-base/version.gitVersion=$$v \
		-X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$$(echo $$v | cut -d. -f2) \
		-X k8s.io/component-base/version.gitTreeState=clean" k8s.io/kubernetes/cmd/kube-apiserver
endef

.PHONY: azurite
azurite: $(AZURITE_DIR)/node_modules/.installed ## Install Azurite 3.35.0 (npm) into hack/azurite for the object-store tests.
$(AZURITE_DIR)/node_modules/.installed: $(AZURITE_DIR)/package.json $(AZURITE_DIR)/package-lock.json $(AZURITE_DIR)/install.sh
	$(AZURITE_DIR)/install.sh
	touch $@

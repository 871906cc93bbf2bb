# The only entry point of the repository. `make help` lists the targets.

# Karpenter v1.15.0 needs go >= 1.26.9 and machines here default to GOTOOLCHAIN=local with an
# older go: the toolchain pinned in go.work is selected for every go command below, and the go
# command downloads it through the module proxy on first use.
GO_TOOLCHAIN := $(shell sed -n 's/^toolchain //p' go.work)
export GOTOOLCHAIN := $(GO_TOOLCHAIN)
GO ?= go

ROOT := $(CURDIR)
BIN := $(ROOT)/bin
export PATH := $(BIN):$(PATH)

# Modules of the workspace (tools/ nested modules are built with GOWORK=off, see tools/tools.mk).
MODULES := provider fakecloudstack e2e benchmarks tools

.DEFAULT_GOAL := help

include tools/tools.mk

.PHONY: help
help: ## List the targets
	@grep -hE '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 16

## ---- build ---------------------------------------------------------------------------------

.PHONY: build
build: ## Build the provider and the fake cloud into ./bin
	$(GO) build -o $(BIN)/karpenter-cloudstack ./provider/cmd/controller
	$(GO) build -o $(BIN)/fakecloudstack ./fakecloudstack/cmd/fakecloudstack

CRDS_DIR := charts/karpenter-cloudstack/crds

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Regenerate deepcopy code and CRDs into charts/
	cd provider && GOWORK=off $(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt \
		crd output:crd:artifacts:config=$(ROOT)/$(CRDS_DIR) paths=./pkg/apis/...
	cd provider && GOWORK=off $(GO) run ./hack/copycrds -to $(ROOT)/$(CRDS_DIR)

# Generated files that must be committed exactly as `make generate` writes them.
GENERATED := ':(glob)provider/pkg/apis/**/zz_generated.*.go' '$(CRDS_DIR)/*.yaml'

.PHONY: verify-generate
verify-generate: generate ## Fail when generated files are not committed as generated
	@untracked=$$(git ls-files --others --exclude-standard -- $(GENERATED)); \
	if ! git diff --quiet -- $(GENERATED) || [ -n "$$untracked" ]; then \
		git --no-pager diff --stat -- $(GENERATED); \
		[ -z "$$untracked" ] || echo "untracked: $$untracked"; \
		echo "generated files are out of date: run 'make generate' and commit the result"; exit 1; \
	fi

## ---- tests ---------------------------------------------------------------------------------

# Unit and integration tests of every module. Tests that need kube-apiserver/etcd or the fake
# cloud binary find them in ./bin through these variables.
TEST_ENV := KUBE_BIN_DIR=$(BIN) FAKECLOUDSTACK_BIN=$(BIN)/fakecloudstack
GO_TEST_FLAGS ?= -count=1 -timeout 20m

.PHONY: test
test: test-tools build verify-generate unit e2e-smoke ## Unit tests of every module and the e2e smoke suite

.PHONY: unit
unit: ## Unit and integration tests of every module (needs `make tools build`)
	$(TEST_ENV) $(GO) test $(GO_TEST_FLAGS) $(addprefix ./,$(addsuffix /...,$(filter-out e2e,$(MODULES))))
	# The fake's lifecycle stress test again under the race detector (about a minute).
	$(TEST_ENV) $(GO) test $(GO_TEST_FLAGS) -race -run '^TestStress' ./fakecloudstack/pkg/server
	$(TEST_ENV) $(GO) test $(GO_TEST_FLAGS) $$($(GO) list ./e2e/... | grep -v /suites/)
	$(MAKE) kubelet-parity

# A module outside the workspace, so that k8s.io/kubernetes never joins the provider's build
# list; compiling the kubelet's packages takes minutes when the build cache is cold.
.PHONY: kubelet-parity
kubelet-parity: ## Judge provider/pkg/nodeallocatable against the pinned kubelet's own code
	cd tools/kubeletparity && GOWORK=off $(GO) test $(GO_TEST_FLAGS) ./...

# Suite packages run one at a time (-p 1): each brings up its own cluster, and two at once on a
# 2-core machine only make both slower. Ginkgo's timeout fires before go test's, so an overrun
# still runs AfterSuite and leaves no process or cluster behind.
E2E_FLAGS := -count=1 -p 1 ./e2e/suites/... -ginkgo.v

.PHONY: e2e-smoke
e2e-smoke: test-tools build ## The e2e smoke subset (under 5 minutes)
	$(TEST_ENV) $(GO) test -timeout 15m $(E2E_FLAGS) -ginkgo.timeout 12m -ginkgo.label-filter=smoke

.PHONY: e2e
e2e: test-tools $(CLOUDSTACK_CCM) build ## All e2e suites on a KWOK cluster (E2E_RUNTIME=binary|kind|kubeconfig)
	$(TEST_ENV) $(GO) test -timeout 90m $(E2E_FLAGS) -ginkgo.timeout 85m

MODULE_PATTERNS := $(addprefix ./,$(addsuffix /...,$(MODULES)))

.PHONY: lint
lint: $(STATICCHECK) ## go vet and staticcheck on every module
	$(GO) vet $(MODULE_PATTERNS)
	$(STATICCHECK) $(MODULE_PATTERNS)

## ---- benchmarks ----------------------------------------------------------------------------

# Each run brings up its own KWOK cluster; -baseline repeats the scenario with Karpenter's KWOK
# provider on an identical cluster, for ratios measured in the same run. -nodes is the
# scenario's size and -timeout bounds each scale-out (benchmarks/README.md explains every
# setting). Each run replaces its scenario and size's JSON in benchmarks/results, renders its
# Markdown and plots into .bench/results (git-ignored) and writes benchmarks/RESULTS.md again
# from the latest result of each; run logs go to .bench/runs.
BENCH_RESULTS := -out benchmarks/results -summary benchmarks/RESULTS.md
BENCH := $(TEST_ENV) $(GO) run ./benchmarks/cmd/bench $(BENCH_RESULTS)
# Thousands of nodes: kwokctl's own heartbeat factor of 5 and 32 kwok node-lease workers.
BENCH_SCALE := $(BENCH) -heartbeat-factor 5 -node-lease-parallelism 32
# S2's burst of 2,000 pods, on both providers: Karpenter core's batch window makes one scheduling
# round of it instead of several, each simulated against the nodes of the last; kwok then gets
# 2,000 nodes within a minute and needs more than its 4 node-stage workers to make them Ready.
BATCH_WINDOW := BATCH_MAX_DURATION=60s,BATCH_IDLE_DURATION=5s
BENCH_BURST := -core-env $(BATCH_WINDOW) -node-stage-parallelism 16

.PHONY: bench-fake
bench-fake: ## The fake cloud's Go benchmarks on 2 cores, written to fakecloudstack/benchmarks.md
	$(GO) run ./benchmarks/cmd/benchreport -out fakecloudstack/benchmarks.md

.PHONY: bench
bench: tools build ## Small scale: S0 at 200 nodes, S1 at 100 pods, S2 at 200 nodes, 3 paired runs with the baseline
	$(BENCH) -scenario S0 -nodes 200 -timeout 3m
	$(BENCH) -scenario S1 -nodes 100 -baseline -repeat 3 -timeout 3m
	$(BENCH) -scenario S2 -nodes 200 -baseline -repeat 3 -timeout 3m

.PHONY: bench-launch
bench-launch: tools build ## Launch latency and memory at default settings: S1 at 1000 pods, S2 at 500 nodes, 3 paired runs with the baseline
	$(BENCH_SCALE) -scenario S1 -nodes 1000 -baseline -repeat 3 -timeout 10m
	$(BENCH_SCALE) -scenario S2 -nodes 500 -baseline -repeat 3 -timeout 10m

.PHONY: bench-scale
bench-scale: tools build ## Thousands of nodes: S0 at 2000, S2 at 2000 (3 paired runs), S3 at 60, S4 at 1000, S5 at 1000
	$(BENCH_SCALE) -scenario S0 -nodes 2000 -timeout 10m
	$(BENCH_SCALE) $(BENCH_BURST) -scenario S2 -nodes 2000 -baseline -repeat 3 -timeout 20m
	$(BENCH_SCALE) -scenario S3 -nodes 60 -baseline -timeout 10m
	$(BENCH_SCALE) -scenario S4 -nodes 1000 -timeout 15m
	$(BENCH_SCALE) -scenario S5 -nodes 1000 -baseline -timeout 15m

# S2 at 5,000 on both providers: heartbeats ten times a kubelet's interval, 32 kwok workers of
# each kind, the burst's batch window, and core's cluster-state metrics off: at 5,000
# NodeClaims, deleting their series on every condition change takes most of a provider's CPU.
.PHONY: bench-5000
bench-5000: tools build ## S2 at 5000 nodes with the baseline, core's cluster-state metrics off (more than 2 cores: benchmarks/README.md)
	$(BENCH) -heartbeat-factor 10 -node-lease-parallelism 32 -node-stage-parallelism 32 -core-env $(BATCH_WINDOW),DISABLE_CLUSTER_STATE_OBSERVABILITY=true -scenario S2 -nodes 5000 -baseline -timeout 20m

# The launch benchmarks on the kind cluster (tools/kind/README.md): both providers and the fake
# cloud installed with their charts, kwok in the cluster. kind-up loads the images just built.
BENCH_KIND_S1 ?= 1000
BENCH_KIND_S2 ?= 500

.PHONY: bench-kind
bench-kind: kind-up ## S1 at 1000 pods and S2 at 500 nodes with the baseline on the kind cluster (BENCH_KIND_S1, BENCH_KIND_S2)
	$(BENCH) -runtime kind -scenario S1 -nodes $(BENCH_KIND_S1) -baseline -timeout 10m
	$(BENCH) -runtime kind -scenario S2 -nodes $(BENCH_KIND_S2) -baseline -timeout 10m

.PHONY: bench-results
bench-results: ## Render every result in benchmarks/results into .bench/results and write benchmarks/RESULTS.md, without running
	$(GO) run ./benchmarks/cmd/bench $(BENCH_RESULTS) -summarize

## ---- kind ------------------------------------------------------------------------------------

# A kind cluster built without any registry (tools/kind/README.md): the node image and every
# image it runs come from Debian packages, the Go module proxy and this repository. Not part of
# `make test`. Everything generated lives in .kind/ (git-ignored).
# KIND_NODE_IMAGE=kindest/node:<version> pulls kind's own node image instead (where a registry
# is reachable), and needs none of the node's binaries.
KIND_IMAGE_BINARIES := $(KUBECTL) $(KWOK) $(KARPENTER_KWOK) $(CLOUDSTACK_CCM) $(KIND) $(BIN)/capshim
ifeq ($(KIND_NODE_IMAGE),)
KIND_IMAGE_BINARIES += $(KUBEADM) $(KUBE_APISERVER) $(KUBE_CONTROLLER_MANAGER) $(KUBE_SCHEDULER) $(ETCD) \
	$(KIND_NODE_TOOLS) $(BIN)/pause
endif

# capshim runs on the host and in the node, pause in an image FROM scratch: both static.
$(BIN)/capshim $(BIN)/pause: $(BIN)/%: $(wildcard tools/cmd/*/*.go)
	cd tools && GOWORK=off CGO_ENABLED=0 $(GO) build -trimpath -ldflags="-s -w" -o $@ ./cmd/$*

.PHONY: kind-image
kind-image: $(KIND_IMAGE_BINARIES) ## Build the kind node image and the images it runs, from no registry (cached)
	@tools/kind/docker.sh up
	@tools/kind/node-image.sh
	@tools/kind/app-images.sh

.PHONY: kind-up
kind-up: kind-image ## Start docker if needed and a kind cluster with kwok in it; kubeconfig in .kind/kubeconfig
	@tools/kind/cluster.sh up

# Karpenter's own e2e suites from the karpenter module (e2e/README.md#karpenters-own-suites),
# unmodified, against the provider and the fake cloud on the kind cluster; writes
# e2e/UPSTREAM.md. Not part of `make test`: the three suites take hours.
# Each suite's result is committed in e2e/upstream/results/; e2e/UPSTREAM.md counts every spec
# with the outcome of the newest run that ran it, so runs of parts of a suite add up.
UPSTREAM_SUITES ?= regression disruption performance
UPSTREAM_FOCUS ?=
UPSTREAM_SKIP ?=
UPSTREAM_TIMEOUT ?= 3h

.PHONY: e2e-upstream
e2e-upstream: kind-up ## Karpenter's own regression, disruption and performance suites on kind; writes e2e/UPSTREAM.md (UPSTREAM_SUITES, UPSTREAM_FOCUS, UPSTREAM_SKIP, UPSTREAM_TIMEOUT)
	$(GO) run ./e2e/cmd/upstream -suites "$(UPSTREAM_SUITES)" -focus "$(UPSTREAM_FOCUS)" -skip "$(UPSTREAM_SKIP)" -timeout $(UPSTREAM_TIMEOUT)

# Real kubelets in VMs the fake cloud boots as containers of the node image built here (it
# carries cloud-init; kind's own node image does not), both bootstrap modes, with the CCM.
# Its template that never joins waits out core's registration timeout, a fixed 15 minutes.
.PHONY: e2e-realnode
e2e-realnode: kind-up ## The realnode suite on the kind cluster: VMs booted for real, kubeadm join, real pods
	E2E_RUNTIME=kind $(TEST_ENV) $(GO) test -count=1 -timeout 75m ./e2e/suites/realnode -ginkgo.v -ginkgo.timeout 70m

.PHONY: kind-down
kind-down: ## Delete the kind cluster and stop the dockerd kind-up started
	@tools/kind/cluster.sh down

## ---- local environment ---------------------------------------------------------------------

# Its tools, our two binaries and the launcher build side by side: a single go build leaves a
# core idle while it links or waits on a large package, and the tools' modules share no package
# with the workspace.
.PHONY: up
up: ## Local demo: KWOK cluster + fake cloud + provider; kubeconfig in .up/kubeconfig
	@start=$$(date +%s); $(MAKE) --no-print-directory -j2 up-tools build devenv && \
		echo "up: built what the demo runs in $$(( $$(date +%s) - start ))s"
	$(BIN)/devenv up --dir $(ROOT)/.up

# The launcher behind `make up`.
.PHONY: devenv
devenv:
	$(GO) build -o $(BIN)/devenv ./e2e/cmd/devenv

.PHONY: down
down: ## Stop everything `make up` started and remove .up/
	$(GO) run ./e2e/cmd/devenv down --dir $(ROOT)/.up

.PHONY: clean
clean: ## Remove build output (not the pinned tools)
	rm -f $(BIN)/karpenter-cloudstack $(BIN)/fakecloudstack $(BIN)/devenv

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
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 16

## ---- build ---------------------------------------------------------------------------------

.PHONY: build
build: ## Build the provider and the fake cloud into ./bin
	$(GO) build -o $(BIN)/karpenter-cloudstack ./provider/cmd/controller
	$(GO) build -o $(BIN)/fakecloudstack ./fakecloudstack/cmd/fakecloudstack

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Regenerate deepcopy code and CRDs into charts/
	cd provider && $(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths=./pkg/apis/...
	cd provider && $(CONTROLLER_GEN) crd paths=./pkg/apis/... output:crd:artifacts:config=$(ROOT)/charts/karpenter-cloudstack/crds
	$(GO) run ./provider/hack/copycrds $(ROOT)/charts/karpenter-cloudstack/crds

.PHONY: verify-generate
verify-generate: generate ## Fail when generated files are not committed as generated
	@git diff --exit-code -- provider/pkg/apis charts || \
		{ echo "generated files are out of date: run 'make generate' and commit the result"; exit 1; }

## ---- tests ---------------------------------------------------------------------------------

# Unit and integration tests of every module. Tests that need kube-apiserver/etcd or the fake
# cloud binary find them in ./bin through these variables.
TEST_ENV := KUBE_BIN_DIR=$(BIN) FAKECLOUDSTACK_BIN=$(BIN)/fakecloudstack
GO_TEST_FLAGS ?= -count=1 -timeout 20m

.PHONY: test
test: tools build verify-generate unit e2e-smoke ## Unit tests of every module and the e2e smoke suite

.PHONY: unit
unit: ## Unit and integration tests of every module (needs `make tools build`)
	$(TEST_ENV) $(GO) test $(GO_TEST_FLAGS) $(addprefix ./,$(addsuffix /...,$(filter-out e2e,$(MODULES))))
	$(TEST_ENV) $(GO) test $(GO_TEST_FLAGS) $$($(GO) list ./e2e/... | grep -v /suites/)

.PHONY: e2e-smoke
e2e-smoke: ## The e2e smoke subset (under 5 minutes)
	$(TEST_ENV) $(GO) test -count=1 -timeout 15m ./e2e/suites/... -ginkgo.label-filter=smoke -ginkgo.v

.PHONY: e2e
e2e: tools build ## All e2e suites on a KWOK cluster (E2E_RUNTIME=binary|kind)
	$(TEST_ENV) $(GO) test -count=1 -timeout 90m ./e2e/suites/... -ginkgo.v

.PHONY: lint
lint: $(STATICCHECK) ## go vet and staticcheck on every module
	$(GO) vet $(addprefix ./,$(addsuffix /...,$(MODULES)))
	$(STATICCHECK) $(addprefix ./,$(addsuffix /...,$(MODULES)))

## ---- benchmarks ----------------------------------------------------------------------------

.PHONY: bench
bench: tools build ## Small scale scenarios: S1 at 100 nodes, S2 at 200 nodes (under 10 minutes)
	$(GO) run ./benchmarks/cmd/bench -scenario S1 -nodes 100 -baseline -out .bench
	$(GO) run ./benchmarks/cmd/bench -scenario S2 -nodes 200 -out .bench

.PHONY: bench-scale
bench-scale: tools build ## Thousands of nodes: S1 at 1000, S2 at 2000, S4 at 1000, S5
	$(GO) run ./benchmarks/cmd/bench -scenario S1 -nodes 1000 -baseline -out .bench
	$(GO) run ./benchmarks/cmd/bench -scenario S2 -nodes 2000 -out .bench
	$(GO) run ./benchmarks/cmd/bench -scenario S4 -nodes 1000 -out .bench
	$(GO) run ./benchmarks/cmd/bench -scenario S5 -nodes 1000 -out .bench

## ---- local environment ---------------------------------------------------------------------

.PHONY: up
up: tools build ## Local demo: KWOK cluster + fake cloud + provider; kubeconfig in .up/kubeconfig
	$(GO) run ./e2e/cmd/devenv up --dir $(ROOT)/.up

.PHONY: down
down: ## Stop everything `make up` started and remove .up/
	$(GO) run ./e2e/cmd/devenv down --dir $(ROOT)/.up

.PHONY: clean
clean: ## Remove build output (not the pinned tools)
	rm -f $(BIN)/karpenter-cloudstack $(BIN)/fakecloudstack

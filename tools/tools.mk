# Pinned tools, built into $(BIN) from the nested modules under tools/ (one go.mod per tool,
# built with GOWORK=off so their dependencies never join the workspace). Each binary is rebuilt
# only when its nested go.mod, go.work (the toolchain) or the builder changes, and even then
# toolbuild skips it when bin/.stamps says it was built from exactly the same pin.

TOOLS_DIR := $(ROOT)/tools
TOOLBUILD_SRC := $(filter-out %_test.go,$(wildcard $(TOOLS_DIR)/cmd/toolbuild/*.go))
TOOLBUILD = cd $(TOOLS_DIR) && GOWORK=off $(GO) run ./cmd/toolbuild -tools $(TOOLS_DIR) -bin $(BIN)

ETCD := $(BIN)/etcd
KUBE_APISERVER := $(BIN)/kube-apiserver
KUBE_CONTROLLER_MANAGER := $(BIN)/kube-controller-manager
KUBE_SCHEDULER := $(BIN)/kube-scheduler
KUBECTL := $(BIN)/kubectl
KUBEADM := $(BIN)/kubeadm
KWOK := $(BIN)/kwok
KWOKCTL := $(BIN)/kwokctl
CONTROLLER_GEN := $(BIN)/controller-gen
KIND := $(BIN)/kind
KARPENTER_KWOK := $(BIN)/karpenter-kwok
STATICCHECK := $(BIN)/staticcheck
CLOUDSTACK_CCM := $(BIN)/cloudstack-ccm

# etcd and kube-apiserver come first: envtest needs only those two.
TOOLS := $(ETCD) $(KUBE_APISERVER) $(KUBE_CONTROLLER_MANAGER) $(KUBE_SCHEDULER) $(KUBECTL) $(KUBEADM) \
	$(KWOK) $(KWOKCTL) $(CONTROLLER_GEN) $(KIND) $(KARPENTER_KWOK) $(STATICCHECK) $(CLOUDSTACK_CCM)

# The targets below hand toolbuild their whole list at once: it builds the binaries of one
# module in one go build. Each tool's own file target serves the targets that need only it.
.PHONY: tools
tools: cloud-init ## Build the pinned cluster tools into ./bin (skips the ones already built)
	@$(TOOLBUILD) $(notdir $(TOOLS))

# What `make test` runs: the tools above less kind, the KWOK provider (benchmark baseline),
# staticcheck and the CloudStack CCM (only the ccm suite, outside the smoke subset, runs it),
# which would add minutes to a cold CI run for nothing.
TEST_TOOLS := $(ETCD) $(KUBE_APISERVER) $(KUBE_CONTROLLER_MANAGER) $(KUBE_SCHEDULER) $(KUBECTL) $(KUBEADM) \
	$(KWOK) $(KWOKCTL) $(CONTROLLER_GEN)

# What `make up` runs: the cluster's own binaries, kwok and the CCM, nothing only tests use.
UP_TOOLS := $(ETCD) $(KUBE_APISERVER) $(KUBE_CONTROLLER_MANAGER) $(KUBE_SCHEDULER) $(KUBECTL) \
	$(KWOK) $(KWOKCTL) $(CLOUDSTACK_CCM)

.PHONY: test-tools
test-tools: cloud-init ## Build only the tools `make test` needs and check for cloud-init
	@$(TOOLBUILD) $(notdir $(TEST_TOOLS))

.PHONY: up-tools
up-tools: ## Build only the tools `make up` runs
	@$(TOOLBUILD) $(notdir $(UP_TOOLS))

# cloud-init is Debian's package, not a Go module: installed with apt where this runs as root,
# otherwise the script prints the command and fails. kubeadm and cloud-init judge the rendered
# userdata in the bootstrap package's oracle tests, which never skip.
CLOUD_INIT ?= cloud-init
export CLOUD_INIT

.PHONY: cloud-init
cloud-init: ## Check for Debian's cloud-init, installing it with apt when root
	@$(TOOLS_DIR)/cloud-init/ensure.sh

# Only the kind node image needs these (make kind-image).
KIND_NODE_TOOLS := $(BIN)/kubelet $(BIN)/kube-proxy $(BIN)/crictl $(BIN)/coredns

# Any nested go.mod change sends every tool through toolbuild, which skips the unchanged ones
# in well under a second each.
$(TOOLS) $(KIND_NODE_TOOLS): $(filter-out $(TOOLS_DIR)/kubeletparity/%,$(wildcard $(TOOLS_DIR)/*/go.mod $(TOOLS_DIR)/*/go.sum)) $(ROOT)/go.work $(TOOLBUILD_SRC)
	@$(TOOLBUILD) $(notdir $@)

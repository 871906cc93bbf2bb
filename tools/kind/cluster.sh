#!/usr/bin/env bash
# cluster.sh up|down: the kind cluster the kind runtime of the e2e suites and benchmarks uses.
#
# up: starts the container engine (docker.sh up), creates the cluster from the node image
# node-image.sh built (a control plane and KIND_WORKERS workers, none by default; kubeconfig in
# .kind/kubeconfig), waits for CoreDNS, loads the locally built application images
# (app-images.sh) and installs kwok's controller and its fast stages in the cluster, as kwok
# documents for an existing cluster. Running it again keeps a cluster that exists and only
# loads images and applies kwok again.
# down: deletes the cluster, then stops the dockerd that up started (none if docker already ran).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KIND=$BIN/kind
KUBECTL=$BIN/kubectl

cluster_exists() { "$KIND" get clusters 2>/dev/null | grep -qx "$CLUSTER_NAME"; }

# A cluster whose node containers stopped (the machine or its dockerd restarted) does not come
# back by starting them: kind's nodes are not made to survive a restart of their engine.
cluster_stopped() {
	[[ -n $(docker ps -a --filter "label=io.x-k8s.kind.cluster=$CLUSTER_NAME" --filter status=exited --format '{{.Names}}') ]]
}

# docker_socket is the engine's socket on this machine, which the kind node offers at
# /var/run/docker-host.sock: only the fake cloud's chart with realVMs.enabled mounts it into a
# pod, to run its real VMs as containers next to the node.
docker_socket() {
	local host=${DOCKER_HOST:-unix:///var/run/docker.sock}
	[[ $host == unix://* ]] || die "DOCKER_HOST=$host: the kind node needs the engine's unix socket"
	echo "${host#unix://}"
}

# The kind cluster configuration: no default CNI where the node image brings a one-node bridge
# (node-image.sh's; kind's own image runs kindnet), a kubelet that runs on cgroup v1 hosts too
# (1.36 refuses them by default), the API server's audit log, with the e2e framework's policy,
# in .kind/audit on the host (suites that check the provider's identity read it there), and
# kube-scheduler started from Karpenter's own KubeSchedulerConfiguration, as the module's
# hack/kind/cluster.yaml does: its second profile carries the default topology spread
# constraints Karpenter's upstream DefaultTopologySpreadConstraints specs need (make
# e2e-upstream); the default-scheduler profile is kube-scheduler's own; the engine's socket.
cluster_config() {
	local scheduler_config
	scheduler_config=$(module_dir karpenter-kwok sigs.k8s.io/karpenter)/test/suites/regression/testdata
	cat <<-EOF
		kind: Cluster
		apiVersion: kind.x-k8s.io/v1alpha4
		networking:
		  disableDefaultCNI: $1
		nodes:
		  - role: control-plane
		    extraMounts:
		      - hostPath: $ROOT/e2e/environment/audit/policy.yaml
		        containerPath: /etc/kubernetes/audit/policy.yaml
		        readOnly: true
		      - hostPath: $STATE/audit
		        containerPath: /var/log/kubernetes/audit
		      - hostPath: $scheduler_config
		        containerPath: /etc/kubernetes/karpenter-scheduler-config
		        readOnly: true
		      - hostPath: $(docker_socket)
		        containerPath: /var/run/docker-host.sock
		$(for ((i = 0; i < WORKERS; i++)); do echo "  - role: worker"; done)
		kubeadmConfigPatches:
		  - |
		    kind: KubeletConfiguration
		    failCgroupV1: false
		  - |
		    kind: ClusterConfiguration
		    apiServer:
		      extraArgs:
		        - name: audit-policy-file
		          value: /etc/kubernetes/audit/policy.yaml
		        - name: audit-log-path
		          value: /var/log/kubernetes/audit/audit.log
		      extraVolumes:
		        - name: audit-policy
		          hostPath: /etc/kubernetes/audit/policy.yaml
		          mountPath: /etc/kubernetes/audit/policy.yaml
		          readOnly: true
		          pathType: File
		        - name: audit-log
		          hostPath: /var/log/kubernetes/audit
		          mountPath: /var/log/kubernetes/audit
		          pathType: DirectoryOrCreate
		    scheduler:
		      extraArgs:
		        - name: config
		          value: /etc/kubernetes/karpenter-scheduler-config/kube-scheduler-config.yaml
		      extraVolumes:
		        - name: karpenter-scheduler-config
		          hostPath: /etc/kubernetes/karpenter-scheduler-config
		          mountPath: /etc/kubernetes/karpenter-scheduler-config
		          readOnly: true
		          pathType: Directory
	EOF
}

# The one real node runs only the cluster's own pods: the tests' workloads must wait for
# Karpenter's nodes, as in a cluster where every other node is Karpenter's. CriticalAddonsOnly
# is what the provider's chart and CoreDNS already tolerate.
SYSTEM_TAINT=CriticalAddonsOnly=true:NoSchedule

# Workers beside the control plane. With any, kind leaves the control plane its
# node-role.kubernetes.io/control-plane taint, so that only its own pods and CoreDNS run there.
WORKERS=${KIND_WORKERS:-0}
[[ $WORKERS =~ ^[0-9]+$ ]] || die "KIND_WORKERS=$WORKERS: want a count of workers"

nodes() { "$KUBECTL" --kubeconfig "$KUBECONFIG_PATH" get nodes -o jsonpath="{range .items[*]}{.metadata.name} {.spec.podCIDR} {.status.addresses[?(@.type=='InternalIP')].address}{'\n'}{end}"; }

# The node image's bridge hands out addresses of the whole pod range on every node, which only
# one node can do. With workers, each node's bridge gets the node's own podCIDR and a route to
# every other node's through that node's address, on kind's shared docker network (what kindnet
# does where its image can be pulled). CoreDNS restarts to take addresses of its node's range.
route_pods() {
	local name cidr ip peer peer_cidr peer_ip
	step "routing pods between the nodes"
	while read -r name cidr ip; do
		sed "s|10.244.0.0/16|$cidr|" "$KIND_DIR/node/10-bridge.conflist" |
			docker exec -i "$name" sh -c 'cat >/etc/cni/net.d/10-bridge.conflist'
		while read -r peer peer_cidr peer_ip; do
			[[ $peer == "$name" ]] || docker exec "$name" ip route replace "$peer_cidr" via "$peer_ip"
		done < <(nodes)
	done < <(nodes)
	"$KUBECTL" --kubeconfig "$KUBECONFIG_PATH" -n kube-system rollout restart deployment/coredns >/dev/null
}

up() {
	"$KIND_DIR/docker.sh" up
	source "$KIND_DIR/lib.sh" # picks up the socket of the dockerd just started
	local image
	image=$(cat "$STATE/node-image" 2>/dev/null) || die "no node image: run 'make kind-image' first"
	if cluster_exists && cluster_stopped; then
		step "cluster $CLUSTER_NAME has stopped nodes: deleting it to create it again"
		"$KIND" delete cluster --name "$CLUSTER_NAME" --kubeconfig "$KUBECONFIG_PATH"
	fi
	if cluster_exists; then
		step "cluster $CLUSTER_NAME exists"
		"$KIND" export kubeconfig --name "$CLUSTER_NAME" --kubeconfig "$KUBECONFIG_PATH" >/dev/null 2>&1
	else
		step "creating cluster $CLUSTER_NAME from $image"
		mkdir -p "$STATE/audit"
		local own_cni=false
		[[ -z $(docker image inspect -f "{{index .Config.Labels \"$CNI_LABEL\"}}" "$image" 2>/dev/null) ]] || own_cni=true
		cluster_config "$own_cni" | "$KIND" create cluster --name "$CLUSTER_NAME" --image "$image" \
			--kubeconfig "$KUBECONFIG_PATH" --config - --wait 2m
		"$KUBECTL" --kubeconfig "$KUBECONFIG_PATH" taint nodes --all "$SYSTEM_TAINT" >/dev/null
		if [[ $own_cni == true ]] && ((WORKERS > 0)); then
			route_pods
		fi
	fi
	# kind waits for the node only; suites rely on DNS.
	"$KUBECTL" --kubeconfig "$KUBECONFIG_PATH" -n kube-system rollout status deployment/coredns --timeout 120s >/dev/null
	step "loading the application images"
	local name
	for name in $(cat "$STATE/app-images"); do
		"$KIND" load docker-image --name "$CLUSTER_NAME" "$name" >/dev/null
	done
	"$KIND_DIR/kwok.sh" apply "$KUBECONFIG_PATH"
	step "ready: KUBECONFIG=${KUBECONFIG_PATH#"$ROOT"/}"
}

down() {
	if [[ -x $KIND ]] && docker_answers && cluster_exists; then
		step "deleting cluster $CLUSTER_NAME"
		"$KIND" delete cluster --name "$CLUSTER_NAME" --kubeconfig "$KUBECONFIG_PATH"
	fi
	# kind's bridge network goes with the engine that made it, when that engine is ours.
	if [[ -S $OWN_DOCKER_SOCK ]] && docker network inspect kind >/dev/null 2>&1; then
		docker network rm kind >/dev/null
	fi
	"$KIND_DIR/docker.sh" down
	rm -f "$KUBECONFIG_PATH"
}

case ${1:-} in
up) up ;;
down) down ;;
*) die "usage: cluster.sh up|down" ;;
esac

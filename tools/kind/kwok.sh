#!/usr/bin/env bash
# kwok.sh apply|delete KUBECONFIG [NAMESPACE [LABEL]]: kwok's controller and its fast stages
# from the pinned module (tools/kwok), with the image app-images.sh built, a toleration of
# CriticalAddonsOnly and Karpenter's own stages, as kwok documents for an existing
# cluster. They go to kube-system unless NAMESPACE names another (which must exist); LABEL
# (key=value) marks every object. delete removes what apply applies, Stages and CRDs included,
# and waits until they are gone.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KUBECTL=$BIN/kubectl
# How long after it registers a simulated node turns Ready: drawn between these, as kwok draws a
# stage's delay.
NODE_READY_MIN_MS=5000
NODE_READY_MAX_MS=10000

# stages DIR FAST writes into DIR a kustomization of kwok's fast stages (FAST, relative to DIR)
# with every Stage of Karpenter's hack/kwok/stages, from the module its suites come from, as
# Karpenter's kwok install applies them over the fast ones: one of a fast stage's name
# replaces it (pod-delete: a pod goes after the preStop sleep its annotation states;
# node-heartbeat-with-lease: a heartbeat keeps injected conditions), the others are added
# (pod-unhealthy: a pod labelled unhealthy never gets Ready, for the specs whose
# PodDisruptionBudgets must stay unhealthy).
stages() {
	local dir=$1 fast=$2 karpenter file name
	karpenter=$(module_dir karpenter-kwok sigs.k8s.io/karpenter)/hack/kwok/stages
	mkdir -p "$dir"
	local -A replaces=()
	for name in $("$KUBECTL" kustomize "$dir/$fast" | sed -n 's/^  name: //p'); do replaces[$name]=1; done
	{
		printf 'resources:\n  - %s\n' "$fast"
		for file in "$karpenter"/*.yaml; do
			name=$(sed -n 's/^  name: //p' "$file" | head -1)
			[[ -n ${replaces[$name]:-} ]] || { cp "$file" "$dir/" && echo "  - $(basename "$file")"; }
		done
		echo "patches:"
		# A kubelet registers its Node NotReady and posts Ready once its runtime and network are
		# up, seconds later; kwok's fast stage would make it Ready at once.
		cat <<-EOF
			  - target: {kind: Stage, name: node-initialize}
			    patch: |
			      - op: add
			        path: /spec/delay
			        value: {durationMilliseconds: $NODE_READY_MIN_MS, jitterDurationMilliseconds: $NODE_READY_MAX_MS}
		EOF
		for file in "$karpenter"/*.yaml; do
			name=$(sed -n 's/^  name: //p' "$file" | head -1)
			[[ -n ${replaces[$name]:-} ]] || continue
			printf '  - target: {kind: Stage, name: %s}\n    patch: |\n' "$name"
			sed 's/^/      /' "$file"
		done
	} >"$dir/kustomization.yaml"
}

# render KUBECONFIG NAMESPACE LABEL prints the manifest.
render() {
	local kubeconfig=$1 namespace=$2 label=$3 dir version base
	version=$(module_version kwok sigs.k8s.io/kwok)
	dir=$(mktemp -d "${TMPDIR:-/tmp}/kwok.XXXXXX")
	# kustomize takes bases by relative path only.
	base=$(realpath --relative-to="$dir" "$(module_dir kwok sigs.k8s.io/kwok)/kustomize")
	stages "$dir/stages" "../$base/stage/fast"
	{
		cat <<-EOF
			apiVersion: kustomize.config.k8s.io/v1beta1
			kind: Kustomization
			resources:
			  - $base/kwok
			  - stages
			images:
			  - name: registry.k8s.io/kwok/kwok
			    newTag: $version
			patches:
			  - target: {kind: Deployment, name: kwok-controller}
			    patch: |
			      - op: add
			        path: /spec/template/spec/tolerations
			        value: [{key: CriticalAddonsOnly, operator: Exists}]
		EOF
		# The binding's subject moves with the ServiceAccount.
		[[ $namespace == kube-system ]] || cat <<-EOF
			transformers:
			  - |-
			    apiVersion: builtin
			    kind: NamespaceTransformer
			    metadata: {name: kwok-namespace, namespace: $namespace}
			    setRoleBindingSubjects: allServiceAccounts
		EOF
		[[ -z $label ]] || cat <<-EOF
			labels:
			  - pairs: {${label%%=*}: "${label#*=}"}
		EOF
	} >"$dir/kustomization.yaml"
	"$KUBECTL" --kubeconfig "$kubeconfig" kustomize "$dir"
	rm -rf "$dir"
}

apply() {
	local manifest
	manifest=$(render "$@")
	step "installing kwok $(module_version kwok sigs.k8s.io/kwok) in $2"
	# The Stage CRD must exist before the stages: apply twice, the first may refuse the stages.
	"$KUBECTL" --kubeconfig "$1" apply --server-side -f - <<<"$manifest" >/dev/null 2>&1 || true
	"$KUBECTL" --kubeconfig "$1" wait --for condition=Established crd/stages.kwok.x-k8s.io --timeout 60s >/dev/null
	"$KUBECTL" --kubeconfig "$1" apply --server-side -f - <<<"$manifest" >/dev/null
	"$KUBECTL" --kubeconfig "$1" -n "$2" rollout status deployment/kwok-controller --timeout 120s >/dev/null
}

delete() {
	step "removing kwok from $2"
	render "$@" | "$KUBECTL" --kubeconfig "$1" delete --ignore-not-found --wait -f - >/dev/null
}

[[ $# -ge 2 ]] || die "usage: kwok.sh apply|delete KUBECONFIG [NAMESPACE [LABEL]]"
case $1 in
apply | delete) "$1" "$2" "${3:-kube-system}" "${4:-}" ;;
*) die "usage: kwok.sh apply|delete KUBECONFIG [NAMESPACE [LABEL]]" ;;
esac

#!/usr/bin/env bash
# kwok.sh apply|delete KUBECONFIG [NAMESPACE [LABEL]]: kwok's controller and its fast stages
# from the pinned module (tools/kwok), with the image app-images.sh built, a toleration of
# CriticalAddonsOnly and Karpenter's pod-delete stage, as kwok documents for an existing
# cluster. They go to kube-system unless NAMESPACE names another (which must exist); LABEL
# (key=value) marks every object. delete removes what apply applies, Stages and CRDs included,
# and waits until they are gone.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KUBECTL=$BIN/kubectl

# render KUBECONFIG NAMESPACE LABEL prints the manifest.
render() {
	local kubeconfig=$1 namespace=$2 label=$3 dir version base
	version=$(module_version kwok sigs.k8s.io/kwok)
	dir=$(mktemp -d "${TMPDIR:-/tmp}/kwok.XXXXXX")
	# kustomize takes bases by relative path only.
	base=$(realpath --relative-to="$dir" "$(module_dir kwok sigs.k8s.io/kwok)/kustomize")
	{
		cat <<-EOF
			apiVersion: kustomize.config.k8s.io/v1beta1
			kind: Kustomization
			resources:
			  - $base/kwok
			  - $base/stage/fast
			images:
			  - name: registry.k8s.io/kwok/kwok
			    newTag: $version
			patches:
			  - target: {kind: Deployment, name: kwok-controller}
			    patch: |
			      - op: add
			        path: /spec/template/spec/tolerations
			        value: [{key: CriticalAddonsOnly, operator: Exists}]
			  - target: {kind: Stage, name: pod-delete}
			    patch: |
		EOF
		# Karpenter's own pod-delete stage, from the module its suites come from, over kwok's fast
		# one, as Karpenter's kwok install does: a pod goes after the delay its annotation states,
		# the preStop sleep of Karpenter's test pods, as a kubelet waits for the hook; every other
		# pod at once. Its termination specs count on pods that stay terminating.
		sed 's/^/      /' "$(module_dir karpenter-kwok sigs.k8s.io/karpenter)/hack/kwok/stages/pod-delete.yaml"
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

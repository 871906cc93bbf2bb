# Shared by the kind scripts of this folder: paths under the repository, pins read from the
# nested modules, and the docker every script talks to. Sourced, never run.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KIND_DIR=$ROOT/tools/kind
BIN=$ROOT/bin
# Everything generated (docker's data-root, pid, logs, the image cache) lives here, git-ignored.
STATE=${KIND_STATE:-$ROOT/.kind}
CACHE=$STATE/cache
DOCKER_STATE=$STATE/docker
OWN_DOCKER_SOCK=$DOCKER_STATE/docker.sock
CLUSTER_NAME=${KIND_CLUSTER_NAME:-karpenter-cloudstack}
KUBECONFIG_PATH=$STATE/kubeconfig
# Label of node images built here: they bring a one-node bridge CNI instead of kind's kindnet.
CNI_LABEL=karpenter-cloudstack.kind.cni

step() { printf 'kind: %s\n' "$*" >&2; }
die() { printf 'kind: error: %s\n' "$*" >&2; exit 1; }

# module_version DIR MODULE prints the version tools/DIR/go.mod pins for MODULE.
module_version() {
	(cd "$ROOT/tools/$1" && GOWORK=off go list -m -f '{{.Version}}' "$2")
}

# module_dir DIR MODULE prints where the module cache holds MODULE as pinned by tools/DIR.
module_dir() {
	(cd "$ROOT/tools/$1" && GOWORK=off go mod download "$2" && GOWORK=off go list -m -f '{{.Dir}}' "$2")
}

# The docker of this repository's own dockerd when it runs, otherwise whatever DOCKER_HOST or
# docker's default names (docker.sh up decides which).
if [[ -S $OWN_DOCKER_SOCK && -z ${DOCKER_HOST:-} ]]; then
	export DOCKER_HOST=unix://$OWN_DOCKER_SOCK
fi

# quietly runs a command and shows its output only when it fails (docker's client prints
# notices on every build).
quietly() {
	local out
	out=$("$@" 2>&1) || { printf '%s\n' "$out" >&2; return 1; }
}

docker_answers() { docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }

need_docker() {
	docker_answers || die "no docker answers${DOCKER_HOST:+ at $DOCKER_HOST}: run 'make kind-up' (or tools/kind/docker.sh up) first"
}

# sha256 of the given files' contents and of the extra words, for content-addressed caching.
content_key() {
	local words=$1; shift
	{ printf '%s\n' "$words"; cat "$@"; } | sha256sum | cut -c1-16
}

# with_libraries DIR BINARY copies BINARY's shared libraries and loader into DIR (nothing for
# a static binary), so that it runs in an image FROM scratch.
with_libraries() {
	local lib
	for lib in $(ldd "$2" 2>/dev/null | grep -oE '/[^ ]+' || true); do
		mkdir -p "$1$(dirname "$lib")"
		cp -L "$lib" "$1$lib"
	done
}

# build_image NAME FROM ENTRYPOINT BINARY... builds NAME from FROM with each BINARY in
# /usr/local/bin (and its libraries); ENTRYPOINT is a JSON array or empty.
build_image() {
	local name=$1 from=$2 entrypoint=$3 context b
	shift 3
	context=$(mktemp -d "$CACHE/context.XXXXXX")
	mkdir -p "$context/rootfs/usr/local/bin" "$context/rootfs/tmp"
	chmod 1777 "$context/rootfs/tmp"
	for b in "$@"; do
		cp "$BIN/$b" "$context/rootfs/usr/local/bin/"
		[[ $from != scratch ]] || with_libraries "$context/rootfs" "$BIN/$b"
	done
	{
		echo "FROM $from"
		echo "COPY rootfs/ /"
		echo "ENV PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
		[[ -z $entrypoint ]] || echo "ENTRYPOINT $entrypoint"
	} >"$context/Dockerfile"
	quietly docker build -q -t "$name" "$context" || die "building image $name failed"
	rm -rf "$context"
}

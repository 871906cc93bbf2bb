#!/usr/bin/env bash
# app-images.sh: the images the kind cluster runs besides Kubernetes' own, built locally and
# listed in .kind/app-images for cluster.sh to load:
#
#   the provider and the fake cloud, under the names and tags the charts default to: the
#   binaries built as the Dockerfile builds them (GOWORK=off CGO_ENABLED=0 -trimpath
#   -ldflags="-s -w", so /app is the same file), FROM scratch with Debian's CA certificates
#   and a passwd entry for the non-root user 65532 (distroless' nonroot), running as that user;
#   kwok's controller, Karpenter's KWOK provider and the CloudStack CCM, from bin/, with the
#   libraries they link.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_docker
APP=$CACHE/app
mkdir -p "$APP"
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
[[ -f $CA_BUNDLE ]] || die "$CA_BUNDLE is missing: install Debian's ca-certificates"
chart_version() { sed -n 's/^appVersion: "\(.*\)"/\1/p' "$ROOT/charts/$1/Chart.yaml"; }
chart_repository() { sed -n '/^image:/,/repository:/s/^ *repository: //p' "$ROOT/charts/$1/values.yaml"; }

# static_image NAME MODULE PACKAGE builds PACKAGE of MODULE as the Dockerfile does into NAME.
static_image() {
	local name=$1 module=$2 package=$3 context
	context=$(mktemp -d "$CACHE/context.XXXXXX")
	(cd "$ROOT/$module" && GOWORK=off CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$context/app" "$package") ||
		die "building $module/$package failed"
	mkdir -p "$context/etc/ssl/certs"
	cp "$CA_BUNDLE" "$context/etc/ssl/certs/ca-certificates.crt"
	printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$context/passwd"
	cat >"$context/Dockerfile" <<-DOCKERFILE
		FROM scratch
		COPY etc/ /etc/
		COPY passwd /etc/passwd
		COPY app /app
		USER 65532:65532
		ENTRYPOINT ["/app"]
	DOCKERFILE
	quietly docker build -q -t "$name" "$context" || die "building image $name failed"
	rm -rf "$context"
	echo "$name"
}

# binary_image NAME BINARY builds NAME from bin/BINARY and the libraries it links.
binary_image() {
	[[ -x $BIN/$2 ]] || die "bin/$2 is missing: run 'make tools'"
	build_image "$1" scratch "[\"/usr/local/bin/$2\"]" "$2"
	echo "$1"
}

step "app images: provider, fake cloud, kwok, Karpenter's KWOK provider, CloudStack CCM"
{
	static_image "$(chart_repository karpenter-cloudstack):$(chart_version karpenter-cloudstack)" provider ./cmd/controller
	static_image "$(chart_repository fakecloudstack):$(chart_version fakecloudstack)" fakecloudstack ./cmd/fakecloudstack
	binary_image "registry.k8s.io/kwok/kwok:$(module_version kwok sigs.k8s.io/kwok)" kwok
	binary_image "karpenter-cloudstack.local/karpenter-kwok:$(module_version karpenter-kwok sigs.k8s.io/karpenter)" karpenter-kwok
	binary_image "karpenter-cloudstack.local/cloudstack-ccm:$(module_version cloudstack-ccm github.com/apache/cloudstack-kubernetes-provider)" cloudstack-ccm
} >"$STATE/app-images.tmp"
mv "$STATE/app-images.tmp" "$STATE/app-images"

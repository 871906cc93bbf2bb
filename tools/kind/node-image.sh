#!/usr/bin/env bash
# node-image.sh: builds the kind node image for the pinned Kubernetes and kind versions with
# nothing pulled from a registry, and names it in .kind/node-image. Three stages, each cached
# by the content of its inputs, so that a second run only checks hashes:
#
#   base    Debian bookworm (debootstrap --variant=minbase from the mirror apt uses) with the
#           packages a kind node runs: systemd, containerd, runc, iptables, CNI plugins, ...
#   images  the control-plane images kubeadm names for the pinned version, built locally
#           from bin/ (FROM scratch with the binary and the libraries it links; kube-proxy,
#           which runs iptables, from the base)
#   node    the base plus kind's own files (from the pinned kind module), kubelet, kubeadm,
#           kubectl, crictl, capshim, containerd and CNI configuration, cloud-init's services
#           (they run only where a NoCloud seed is, as on the fake cloud's real VMs), and the
#           images above preloaded into containerd's k8s.io namespace
#
# The binaries come from bin/ (make kind-image builds them first). Needs docker (docker.sh up).
#
# Where a registry is reachable, KIND_NODE_IMAGE=kindest/node:<version> pulls kind's own node
# image instead of building one (the GitHub workflow does).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# kind's base image installs these (images/base/Dockerfile), less what rootless and storage
# tests need; jq is for kind's hooks, socat and conntrack for port-forwards and kube-proxy;
# cloud-init boots the fake cloud's real VMs (containers of this image) from their userdata
# (python3-cffi-backend provides a virtual package of its dependencies debootstrap cannot pick).
PACKAGES=systemd,containerd,runc,iptables,nftables,iproute2,containernetworking-plugins,jq,kmod,ethtool,socat,conntrack,mount,util-linux,procps,libseccomp2,ca-certificates,cloud-init,python3-cffi-backend
SUITE=bookworm
NAME_PREFIX=karpenter-cloudstack.local/kind
# The image of the real VMs' test pods: the pause binary, which sleeps until it is stopped.
WORKLOAD_IMAGE=karpenter-cloudstack.local/sleep:1

need_docker
K8S_VERSION=$(module_version kubernetes k8s.io/kubernetes)
KIND_VERSION=$(module_version kind sigs.k8s.io/kind)
KIND_FILES=$(module_dir kind sigs.k8s.io/kind)/images/base/files
mkdir -p "$CACHE"

need_bins() {
	local b
	for b in "$@"; do
		[[ -x $BIN/$b ]] || die "bin/$b is missing: 'make kind-image' builds it"
	done
}

image_exists() { docker image inspect "$1" >/dev/null 2>&1; }

# unmount_under DIR unmounts what a failed debootstrap may have left mounted in DIR (/proc,
# /sys), deepest first, before DIR is archived or removed.
unmount_under() {
	local dir mount
	dir=$(realpath "$1")
	for mount in $(awk -v d="$dir/" 'index($2, d) == 1 {print $2}' /proc/mounts | sort -r); do
		umount "$mount"
	done
}

# apt_mirror is the first Debian mirror apt is configured with.
apt_mirror() {
	local mirror
	mirror=$(grep -hoE '^(URIs:|deb) +https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null |
		awk '{print $2}' | head -1)
	echo "${mirror:-http://deb.debian.org/debian}"
}

# ---- base ---------------------------------------------------------------------------------

base_stage() {
	local mirror key tar rootfs
	mirror=$(apt_mirror)
	key=$(content_key "$SUITE $PACKAGES $mirror")
	BASE_IMAGE=$NAME_PREFIX/base:$key
	tar=$CACHE/base-$key.tar
	BASE_TAR=$tar
	if image_exists "$BASE_IMAGE" && [[ -f $tar ]]; then
		step "base: $BASE_IMAGE cached"
		return
	fi
	if [[ ! -f $tar ]]; then
		command -v debootstrap >/dev/null || {
			[[ $(id -u) == 0 ]] && command -v apt-get >/dev/null ||
				die "debootstrap is missing: 'sudo apt-get install -y debootstrap'"
			step "base: installing debootstrap with apt"
			DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends debootstrap >"$STATE/apt-debootstrap.log" 2>&1 ||
				die "apt-get install debootstrap failed, see $STATE/apt-debootstrap.log"
		}
		rootfs=$CACHE/base-$key.rootfs
		[[ ! -d $rootfs ]] || { unmount_under "$rootfs"; rm -rf "$rootfs"; }
		step "base: debootstrap $SUITE from $mirror (about 2 minutes; log .kind/cache/base-$key.log)"
		debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$rootfs" "$mirror" >"$CACHE/base-$key.log" 2>&1 ||
			{ unmount_under "$rootfs"; die "debootstrap failed (is $mirror reachable?), see $CACHE/base-$key.log"; }
		unmount_under "$rootfs"
		# As kind's base Dockerfile: no unit starts but the ones the node enables.
		rm -f "$rootfs"/lib/systemd/system/multi-user.target.wants/* "$rootfs"/etc/systemd/system/*.wants/* \
			"$rootfs"/lib/systemd/system/local-fs.target.wants/* "$rootfs"/lib/systemd/system/sockets.target.wants/*udev* \
			"$rootfs"/lib/systemd/system/sockets.target.wants/*initctl* "$rootfs"/lib/systemd/system/basic.target.wants/* \
			"$rootfs"/lib/systemd/system/sysinit.target.wants/systemd-tmpfiles-setup.service
		echo "ReadKMsg=no" >>"$rootfs/etc/systemd/journald.conf"
		ln -sf /lib/systemd/systemd "$rootfs/sbin/init"
		rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
		tar --numeric-owner --xattrs -C "$rootfs" -cf "$tar.tmp" . && mv "$tar.tmp" "$tar"
		rm -rf "$rootfs"
	fi
	step "base: importing $BASE_IMAGE"
	docker import "$tar" "$BASE_IMAGE" >/dev/null
}

# ---- control-plane images -----------------------------------------------------------------

images_stage() {
	local names key n
	need_bins kubeadm kube-apiserver kube-controller-manager kube-scheduler kube-proxy etcd coredns pause
	names=$("$BIN/kubeadm" config images list --kubernetes-version "$K8S_VERSION" 2>/dev/null) ||
		die "bin/kubeadm config images list failed"
	names="$names $WORKLOAD_IMAGE"
	key=$(content_key "$names $BASE_IMAGE" "${BASH_SOURCE[0]}" "$KIND_DIR/lib.sh" "$BIN"/{kube-apiserver,kube-controller-manager,kube-scheduler,kube-proxy,etcd,coredns,pause})
	IMAGES_TAR=$CACHE/images-$key.tar
	PRELOADED=$names
	if [[ -f $IMAGES_TAR ]]; then
		step "images: cached"
		return
	fi
	for n in $names; do
		step "images: building $n"
		case $n in
		*/kube-apiserver:* | */kube-controller-manager:* | */kube-scheduler:*)
			b=${n##*/}; build_image "$n" scratch '' "${b%%:*}" ;;
		*/kube-proxy:*) build_image "$n" "$BASE_IMAGE" '' kube-proxy ;;
		*/etcd:*) build_image "$n" scratch '' etcd ;;
		# CoreDNS runs as root here: kubeadm's Deployment grants NET_BIND_SERVICE for :53, and
		# the file capability the upstream image gives its non-root binary would not survive
		# docker 20.10's build.
		*/coredns:*) build_image "$n" scratch '["/usr/local/bin/coredns"]' coredns ;;
		*/pause:* | "$WORKLOAD_IMAGE") build_image "$n" scratch '["/usr/local/bin/pause"]' pause ;;
		*) die "kubeadm names an image this script cannot build: $n" ;;
		esac
	done
	# shellcheck disable=SC2086
	docker save -o "$IMAGES_TAR.tmp" $names && mv "$IMAGES_TAR.tmp" "$IMAGES_TAR"
	# Archives of earlier inputs are never used again.
	find "$CACHE" -maxdepth 1 -name 'images-*.tar' ! -path "$IMAGES_TAR" -delete
}

# ---- node ---------------------------------------------------------------------------------

# preload imports the image archive into the containerd store under ROOTFS/var/lib/containerd,
# with the host's containerd (the same Debian package the node runs) on a private socket.
preload() {
	local rootfs=$1 state sock config pid n
	state=$(mktemp -d /tmp/kind-preload.XXXXXX)
	sock=$state/containerd.sock
	config=$state/config.toml
	cat >"$config" <<-EOF
		version = 2
		root = "$rootfs/var/lib/containerd"
		state = "$state/state"
		disabled_plugins = ["io.containerd.grpc.v1.cri"]
		[grpc]
		  address = "$sock"
	EOF
	containerd --config "$config" >"$state/containerd.log" 2>&1 &
	pid=$!
	for _ in $(seq 30); do
		ctr --address "$sock" version >/dev/null 2>&1 && break
		sleep 1
	done
	ctr --address "$sock" -n k8s.io images import --no-unpack "$IMAGES_TAR" >/dev/null ||
		{ kill "$pid"; die "importing the control-plane images into the node's containerd failed, see $state/containerd.log"; }
	for n in $PRELOADED; do
		ctr --address "$sock" -n k8s.io images label "$n" io.cri-containerd.pinned=pinned >/dev/null
	done
	kill "$pid"
	wait "$pid" || true
	rm -rf "$state"
}

node_stage() {
	local key rootfs image context
	need_bins kubelet kubeadm kubectl crictl capshim
	key=$(content_key "$K8S_VERSION $KIND_VERSION $BASE_IMAGE $IMAGES_TAR" "${BASH_SOURCE[0]}" "$KIND_DIR/lib.sh" \
		"$KIND_DIR"/node/* "$BIN"/{kubelet,kubeadm,kubectl,crictl,capshim})
	NODE_IMAGE=$NAME_PREFIX/node:$K8S_VERSION-$key
	if image_exists "$NODE_IMAGE"; then
		step "node: $NODE_IMAGE cached"
		return
	fi
	rootfs=$CACHE/node-$key.rootfs
	rm -rf "$rootfs" && mkdir -p "$rootfs"
	step "node: assembling the root file system"
	tar -C "$rootfs" -xf "$BASE_TAR"
	# kind's own files, as its base Dockerfile copies them.
	install -m 0755 "$KIND_FILES/usr/local/bin/entrypoint" "$rootfs/usr/local/bin/entrypoint"
	mkdir -p "$rootfs/kind/bin" "$rootfs/etc/systemd/system/kubelet.service.d" "$rootfs/etc/kubernetes/manifests" \
		"$rootfs/etc/containerd" "$rootfs/etc/cni/net.d" "$rootfs/etc/sysctl.d" "$rootfs/etc/default"
	install -m 0755 "$KIND_FILES"/kind/bin/*.sh "$rootfs/kind/bin/"
	install -m 0644 "$KIND_FILES"/etc/systemd/system/*.service "$KIND_FILES"/etc/systemd/system/*.slice "$rootfs/etc/systemd/system/"
	install -m 0644 "$KIND_FILES"/etc/systemd/system/kubelet.service.d/* "$rootfs/etc/systemd/system/kubelet.service.d/"
	install -m 0644 "$KIND_FILES"/etc/sysctl.d/* "$rootfs/etc/sysctl.d/"
	install -m 0644 "$KIND_FILES"/etc/default/kubelet "$rootfs/etc/default/kubelet"
	install -m 0644 "$KIND_FILES"/etc/crictl.yaml "$rootfs/etc/crictl.yaml"
	# kind's unit starts /usr/local/bin/containerd; Debian's is in /usr/bin.
	ln -sf /usr/bin/containerd "$rootfs/usr/local/bin/containerd"
	install -m 0755 "$BIN"/{kubelet,kubeadm,kubectl} "$rootfs/usr/bin/"
	install -m 0755 "$BIN"/{crictl,capshim} "$rootfs/usr/local/bin/"
	install -m 0644 "$KIND_DIR/node/containerd.toml" "$rootfs/etc/containerd/config.toml"
	install -m 0644 "$KIND_DIR/node/10-bridge.conflist" "$rootfs/etc/cni/net.d/10-bridge.conflist"
	install -m 0644 "$KIND_DIR/node/cloud-init.cfg" "$rootfs/etc/cloud/cloud.cfg.d/90-kind.cfg"
	# The runtime spec every container starts from, with kind's product_uuid hook, as kind's
	# base Dockerfile generates it.
	ctr oci spec | jq '.hooks.createContainer[.hooks.createContainer | length] |= . + {"path": "/kind/bin/mount-product-files.sh"}' |
		jq 'del(.process.rlimits)' >"$rootfs/etc/containerd/cri-base.json"
	echo "$K8S_VERSION" >"$rootfs/kind/version"
	chroot "$rootfs" systemctl enable kubelet.service containerd.service undo-mount-hacks.service \
		cloud-init-local.service cloud-init.service cloud-config.service cloud-final.service >/dev/null 2>&1
	chroot "$rootfs" systemctl mask systemd-binfmt.service >/dev/null 2>&1
	step "node: preloading $(echo "$PRELOADED" | wc -w) images"
	preload "$rootfs"
	step "node: importing $NODE_IMAGE"
	image=$NAME_PREFIX/node-rootfs:$key
	tar --numeric-owner --xattrs -C "$rootfs" -c . | docker import \
		--change 'ENV container=docker' \
		--change 'ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]' - "$image" >/dev/null
	# docker 20.10's import refuses STOPSIGNAL: one build step on top sets it.
	# The label tells cluster.sh that the image brings its own CNI configuration.
	context=$(mktemp -d "$CACHE/context.XXXXXX")
	printf 'FROM %s\nSTOPSIGNAL SIGRTMIN+3\nLABEL %s=bridge\n' "$image" "$CNI_LABEL" >"$context/Dockerfile"
	quietly docker build -q -t "$NODE_IMAGE" "$context" || die "building $NODE_IMAGE failed"
	rm -rf "$context"
	docker rmi "$image" >/dev/null
	rm -rf "$rootfs"
	# Node images of earlier inputs are never used again.
	docker images --format '{{.Repository}}:{{.Tag}}' "$NAME_PREFIX/node" | grep -vxF "$NODE_IMAGE" | xargs -r docker rmi >/dev/null 2>&1 || true
}

if [[ -n ${KIND_NODE_IMAGE:-} ]]; then
	step "node: pulling $KIND_NODE_IMAGE"
	docker pull -q "$KIND_NODE_IMAGE" >/dev/null || die "pulling $KIND_NODE_IMAGE failed: unset KIND_NODE_IMAGE to build the node image here"
	NODE_IMAGE=$KIND_NODE_IMAGE
else
	base_stage
	images_stage
	node_stage
fi
echo "$NODE_IMAGE" >"$STATE/node-image"
step "node image: $NODE_IMAGE"

#!/bin/sh
# Makes Debian's cloud-init available to the bootstrap oracle tests, which run its schema,
# devel render and query subcommands on every userdata shape the provider renders. cloud-init is
# a Python program packaged by Debian, not a Go module, so it is installed with apt where that
# is possible (root on Debian or Ubuntu) and otherwise this says exactly how, and fails.
set -eu

CLOUD_INIT=${CLOUD_INIT:-cloud-init}
INSTALL="mkdir -p /etc/cloud && touch /etc/cloud/cloud-init.disabled && apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends cloud-init"

if command -v "$CLOUD_INIT" >/dev/null 2>&1; then
	echo "tools: cloud-init               $("$CLOUD_INIT" --version 2>&1 | awk '{print $2}') found ($(command -v "$CLOUD_INIT"))"
	exit 0
fi

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "cloud-init is missing: the bootstrap oracle tests run Debian's cloud-init." >&2
	echo "Install it as root on Debian or Ubuntu with:" >&2
	echo "  $INSTALL" >&2
	echo "or point CLOUD_INIT at a cloud-init executable." >&2
	exit 1
fi

# The package enables cloud-init's boot units; the marker keeps its systemd generator from
# starting them, so installing the tool never reconfigures this machine's hostname, users or
# network at the next boot. A machine that already runs cloud-init never gets here.
echo "tools: cloud-init               installing Debian's package (boot units disabled by /etc/cloud/cloud-init.disabled)"
mkdir -p /etc/cloud
[ -e /etc/cloud/cloud-init.disabled ] || touch /etc/cloud/cloud-init.disabled
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends cloud-init >/dev/null
echo "tools: cloud-init               $(cloud-init --version 2>&1 | awk '{print $2}') installed"

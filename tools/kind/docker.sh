#!/usr/bin/env bash
# docker.sh up|down: the container engine kind runs on.
#
# up: installs Debian's docker.io with apt when dockerd is missing (as root; otherwise prints
# the command and fails); uses a docker that already answers (DOCKER_HOST or docker's default
# socket); otherwise starts this repository's own dockerd with its data-root, exec-root,
# socket, pid file and log under .kind/docker. Where the host's capability bounding set lacks
# capabilities, that dockerd runs containers through bin/capshim (its default runtime,
# registered with --add-runtime), since --privileged asks for every capability.
# down: stops that dockerd, and only that one, by its pid file.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PIDFILE=$DOCKER_STATE/dockerd.pid
LOG=$DOCKER_STATE/dockerd.log

install_docker() {
	if command -v dockerd >/dev/null && command -v containerd >/dev/null; then
		return
	fi
	if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null; then
		die "dockerd is missing: install Debian's docker.io ('sudo apt-get install -y docker.io') or set DOCKER_HOST to a running docker"
	fi
	step "installing docker.io with apt"
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends docker.io >"$STATE/apt-docker.log" 2>&1 ||
		die "apt-get install docker.io failed, see $STATE/apt-docker.log"
}

# full_bounding_set tells whether this process may hold every capability the kernel knows.
full_bounding_set() {
	local last mask
	last=$(cat /proc/sys/kernel/cap_last_cap)
	mask=$((16#$(awk '/^CapBnd:/ {print $2}' /proc/self/status)))
	(( mask == (1 << (last + 1)) - 1 ))
}

own_dockerd_running() {
	[[ -f $PIDFILE ]] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null &&
		[[ $(readlink "/proc/$(cat "$PIDFILE")/exe") == "$(command -v dockerd)" ]]
}

up() {
	mkdir -p "$DOCKER_STATE"
	if own_dockerd_running || { [[ ! -S $OWN_DOCKER_SOCK ]] && docker_answers; }; then
		step "docker answers${DOCKER_HOST:+ at $DOCKER_HOST}"
		return
	fi
	install_docker
	local args=(
		--data-root "$DOCKER_STATE/data" --exec-root "$DOCKER_STATE/exec"
		--pidfile "$PIDFILE" --host "unix://$OWN_DOCKER_SOCK"
		# Nothing on the host's network but kind's own bridge: no docker0, no iptables rules,
		# no ip_forward sysctl. The API server's published port goes through docker-proxy.
		--bridge none --iptables=false --ip-forward=false --ip-masq=false
	)
	if ! full_bounding_set; then
		[[ -x $BIN/capshim ]] || die "bin/capshim is missing: run 'make kind-up' (it builds it)"
		args+=(--add-runtime "capshim=$BIN/capshim" --default-runtime capshim)
	fi
	step "starting dockerd (data in ${DOCKER_STATE#"$ROOT"/}, log ${LOG#"$ROOT"/})"
	setsid dockerd "${args[@]}" >>"$LOG" 2>&1 </dev/null &
	export DOCKER_HOST=unix://$OWN_DOCKER_SOCK
	for _ in $(seq 60); do
		docker_answers && return
		sleep 1
	done
	tail -20 "$LOG" >&2
	die "dockerd did not answer within 60 s, see ${LOG#"$ROOT"/}"
}

down() {
	if ! own_dockerd_running; then
		step "no dockerd of this repository runs"
		return
	fi
	local pid
	pid=$(cat "$PIDFILE")
	step "stopping dockerd (pid $pid)"
	kill -TERM "$pid"
	for _ in $(seq 30); do
		kill -0 "$pid" 2>/dev/null || { rm -f "$PIDFILE"; return; }
		sleep 1
	done
	die "dockerd (pid $pid) still runs 30 s after SIGTERM, see ${LOG#"$ROOT"/}"
}

case ${1:-} in
up) up ;;
down) down ;;
*) die "usage: docker.sh up|down" ;;
esac

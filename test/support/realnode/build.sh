#!/usr/bin/env bash
# Builds what a real node adds to the test control plane: kubelet and kube-proxy from the same
# pinned k8s.io/kubernetes module (the wrapper-module recipe in ../controlplane/k8s-module.sh),
# crictl (Debian bookworm has no cri-tools), CoreDNS (the cluster's DNS) and the static pause
# binary, into a cache outside the repo keyed by version, so only the first run on a machine pays.
# Prints the bin directory. Run it under `nice`: it shares the machine.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-v1.36.3}"
CRICTL_VERSION="${CRICTL_VERSION:-v1.34.0}"
COREDNS_VERSION="${COREDNS_VERSION:-v1.15.0}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PAUSE_KEY="$(sha256sum "$HERE/pause.c" | cut -c1-12)"
CACHE_ROOT="${EDGESHIFU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/edgeshifu}"
BIN="$CACHE_ROOT/realnode/k8s-${K8S_VERSION}_crictl-${CRICTL_VERSION}_pause-${PAUSE_KEY}/bin"
K8S_BINS=(kubelet kube-proxy)

have() { for b in "$@"; do [ -x "$BIN/$b" ] || return 1; done; }
COREDNS="coredns-${COREDNS_VERSION}"
if have "${K8S_BINS[@]}" crictl pause "$COREDNS"; then echo "$BIN"; exit 0; fi

log() { echo "[realnode] $*" >&2; }
for tool in go gcc; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    log "$tool is missing: the real node's kubelet and kube-proxy are built with Go, its pause binary with gcc."
    exit 3
  fi
done
if [ ! -e /usr/lib/x86_64-linux-gnu/libc.a ] && [ ! -e /usr/lib/libc.a ]; then
  log "libc.a is missing: the pause binary is linked statically. Install it with 'apt-get install libc6-dev'."
  exit 3
fi

mkdir -p "$BIN"
WORK="$(mktemp -d "$BIN/../.build.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
export GOFLAGS="-mod=mod -buildvcs=false"
export GOTOOLCHAIN=local
# shellcheck source=../controlplane/k8s-module.sh
source "$HERE/../controlplane/k8s-module.sh"
# shellcheck source=./coredns-module.sh
source "$HERE/coredns-module.sh"

PHASES=()
have "${K8S_BINS[@]}" || read -ra PHASES <<<"$(k8s_phases "${K8S_BINS[@]}")"
have crictl || PHASES+=(crictl)
have "$COREDNS" || PHASES+=(coredns)
have pause || PHASES+=(pause)
plan "${PHASES[@]}"
if ! have "${K8S_BINS[@]}"; then
  log "building kubelet and kube-proxy $K8S_VERSION into $BIN (first run on this machine only: about 2 min with the control plane's Go cache warm)"
  build_k8s_commands "$K8S_VERSION" "$WORK" "$BIN" "${K8S_BINS[@]}"
fi
if ! have crictl; then
  phase crictl
  log "building crictl $CRICTL_VERSION"
  GOBIN="$WORK" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/cri-tools/cmd/crictl@${CRICTL_VERSION}"
  mv "$WORK/crictl" "$BIN/crictl"
fi
if ! have "$COREDNS"; then
  phase coredns
  log "building CoreDNS $COREDNS_VERSION (its cluster-DNS plugins only)"
  build_coredns "$COREDNS_VERSION" "$WORK/coredns" "$BIN/$COREDNS"
fi
if ! have pause; then
  phase pause
  gcc -static -O2 -s -o "$WORK/pause" "$HERE/pause.c"
  mv "$WORK/pause" "$BIN/pause"
fi
log "done: $BIN"
echo "$BIN"

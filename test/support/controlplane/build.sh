#!/usr/bin/env bash
# Builds the test control plane (kube-apiserver, kube-controller-manager, kube-scheduler, kubectl,
# kine, kwok) from the Go module proxy at pinned versions, into a cache outside the repo keyed by
# those versions, so only the first run on a machine pays for it. Prints the bin directory.
# kube-apiserver cannot be `go install`ed: k8s-module.sh says why and builds it another way.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-v1.36.3}"
KINE_VERSION="${KINE_VERSION:-v0.17.5}"
KWOK_VERSION="${KWOK_VERSION:-v0.8.0}"
CACHE_ROOT="${EDGESHIFU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/edgeshifu}"
KEY="k8s-${K8S_VERSION}_kine-${KINE_VERSION}_kwok-${KWOK_VERSION}"
OUT="$CACHE_ROOT/controlplane/$KEY"
BIN="$OUT/bin"
K8S_BINS=(kube-apiserver kube-controller-manager kube-scheduler kubectl)

STAGES="$BIN/kwok-stages.yaml"
have() { for b in "$@"; do [ -x "$BIN/$b" ] || return 1; done; }
if have "${K8S_BINS[@]}" kine kwok && [ -s "$STAGES" ]; then echo "$BIN"; exit 0; fi

log() { echo "[controlplane] $*" >&2; }
if ! command -v go >/dev/null 2>&1; then
  log "Go is missing: the test control plane is built from the Go module proxy with the go command."
  log "Install Go >= 1.26 (the official tarball unpacked to /usr/local/go, then"
  log "'export PATH=/usr/local/go/bin:\$PATH'), and run the tests again."
  exit 3
fi
if ! command -v gcc >/dev/null 2>&1; then
  log "gcc is missing: kine's sqlite driver needs cgo. Install it with 'apt-get install gcc'."
  exit 3
fi

mkdir -p "$BIN"
WORK="$(mktemp -d "$OUT/.build.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/bin"
export GOFLAGS="-mod=mod -buildvcs=false"
export GOTOOLCHAIN=local

# shellcheck source=k8s-module.sh
source "$(dirname "${BASH_SOURCE[0]}")/k8s-module.sh"

build_kubernetes() {
  log "building Kubernetes $K8S_VERSION into $BIN (first run on this machine only: about 8 min on 2 cores)"
  build_k8s_commands "$K8S_VERSION" "$WORK" "$BIN" "${K8S_BINS[@]}"
}

build_kine() {
  log "building kine $KINE_VERSION (cgo, sqlite)"
  GOBIN="$WORK/bin" CGO_ENABLED=1 go install -trimpath -ldflags "-s -w" "github.com/k3s-io/kine@${KINE_VERSION}"
  mv "$WORK/bin/kine" "$BIN/kine"
}

build_kwok() {
  log "building kwok $KWOK_VERSION"
  GOBIN="$WORK/bin" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@${KWOK_VERSION}"
  mv "$WORK/bin/kwok" "$BIN/kwok"
}

# KWOK's own "fast" profile (node-initialize, heartbeat with lease, pod ready/complete/delete),
# taken from the kwok module the build just used; they stay in the cache, not in the repo.
collect_kwok_stages() {
  local dir
  dir="$(go mod download -json "sigs.k8s.io/kwok@${KWOK_VERSION}" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')"
  local out="$WORK/kwok-stages.yaml"
  : > "$out"
  for f in "$dir"/kustomize/stage/node/fast/node-initialize.yaml \
           "$dir"/kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
           "$dir"/kustomize/stage/pod/fast/pod-ready.yaml \
           "$dir"/kustomize/stage/pod/fast/pod-complete.yaml \
           "$dir"/kustomize/stage/pod/fast/pod-delete.yaml; do
    printf -- '---\n' >> "$out"
    cat "$f" >> "$out"
  done
  mv "$out" "$STAGES"
}

PHASES=()
have "${K8S_BINS[@]}" || read -ra PHASES <<<"$(k8s_phases "${K8S_BINS[@]}")"
have kine || PHASES+=(kine)
have kwok || PHASES+=(kwok)
[ -s "$STAGES" ] || PHASES+=(kwok-stages)
plan "${PHASES[@]}"
have "${K8S_BINS[@]}" || build_kubernetes
have kine || { phase kine; build_kine; }
have kwok || { phase kwok; build_kwok; }
[ -s "$STAGES" ] || { phase kwok-stages; collect_kwok_stages; }
log "done: $BIN"
echo "$BIN"

# Sourced by build.sh here and by ../realnode/build.sh: builds commands of k8s.io/kubernetes at one version.
# kube-apiserver and its siblings cannot be `go install`ed (k8s.io/kubernetes replaces its staging
# modules with ./staging paths), so a small wrapper module requires k8s.io/kubernetes and pins each
# staging module k8s.io/<m> to the published v0.X.Y of the same release instead.
#
# Progress markers on stderr (read by test/support/build-progress.ts): `::plan <phase>...` once,
# then `::phase <phase>` as each starts; the rest of stderr is Go's output, kept in a log file.
plan() { echo "::plan $*" >&2; }
phase() { echo "::phase $1" >&2; }

# The phases build_k8s_commands goes through for these commands.
k8s_phases() { echo download-kubernetes "$@"; }

# build_k8s_commands <version> <work dir> <bin dir> <command>...
build_k8s_commands() {
  local version="$1" work="$2" bin="$3"
  shift 3
  local minor="${version#v1.}"
  minor="${minor%%.*}"
  local staging_version="v0.${version#v1.}"
  mkdir -p "$work/k8s" "$work/out"
  (
    cd "$work/k8s"
    printf 'module edgeshifu.local/controlplane\n\ngo 1.26\n' > go.mod
    {
      printf '//go:build tools\n\npackage tools\n\nimport (\n'
      for b in "$@"; do printf '\t_ "k8s.io/kubernetes/cmd/%s"\n' "$b"; done
      printf ')\n'
    } > tools.go
    phase download-kubernetes
    go mod edit -require="k8s.io/kubernetes@${version}"
    go mod download "k8s.io/kubernetes@${version}"
    local modfile m
    modfile="$(go env GOMODCACHE)/cache/download/k8s.io/kubernetes/@v/${version}.mod"
    for m in $(sed -n 's#^\s*\(k8s\.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$modfile"); do
      go mod edit -replace="${m}=${m}@${staging_version}"
    done
    go mod tidy -e 2>"$work/tidy.log" || { cat "$work/tidy.log" >&2; exit 1; }
    local pkg="k8s.io/component-base/version"
    local ldflags="-s -w -X ${pkg}.gitVersion=${version} -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=${minor} -X ${pkg}.gitTreeState=clean"
    local b
    # one command at a time, so progress names each; Go's build cache shares their packages
    for b in "$@"; do
      phase "$b"
      go build -trimpath -ldflags "$ldflags" -o "$work/out/" "k8s.io/kubernetes/cmd/$b"
    done
  )
  local b
  for b in "$@"; do mv "$work/out/$b" "$bin/$b"; done
}

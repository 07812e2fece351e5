# Sourced by build.sh: builds CoreDNS at one version from its Go module, with the plugins a
# cluster DNS uses (the stock binary also links the Route 53, Azure and Cloud DNS backends, whose
# SDKs the node never needs). CoreDNS's own main is coremain.Run() plus a blank import per
# plugin; its directive order (dnsserver.Directives) stays the stock one, so a Corefile means
# what it means in any CoreDNS. Static (CGO off): the image holds this one file.
#
# build_coredns <version> <work dir> <output file>
COREDNS_PLUGINS=(errors health ready kubernetes hosts metrics forward cache loop reload loadbalance log whoami)
build_coredns() {
  local version="$1" work="$2" out="$3"
  mkdir -p "$work"
  (
    cd "$work"
    printf 'module edgeshifu.local/coredns\n\ngo 1.26\n' > go.mod
    {
      printf 'package main\n\nimport (\n\t"github.com/coredns/coredns/coremain"\n'
      for p in "${COREDNS_PLUGINS[@]}"; do printf '\t_ "github.com/coredns/coredns/plugin/%s"\n' "$p"; done
      printf ')\n\nfunc main() { coremain.Run() }\n'
    } > main.go
    go mod edit -require="github.com/coredns/coredns@${version}"
    go mod tidy 2>"$work/tidy.log" || { cat "$work/tidy.log" >&2; exit 1; }
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X github.com/coredns/coredns/coremain.GitCommit=${version}" -o "$out.tmp" .
  )
  mv "$out.tmp" "$out"
}

#!/usr/bin/env bash
# Writes the wrapper modules that scripts/provision.sh builds a kube-apiserver and an etcd from:
#   scripts/kube/pin.sh 1.37.2 3.7.0
# makes scripts/kube/kubernetes-v1.37/ (requires k8s.io/kubernetes v1.37.2) and
# scripts/kube/etcd-v3.7.0/ (requires go.etcd.io/etcd/server/v3 v3.7.0), each with a tidy go.sum.
# Take etcd's version from the release's build/dependencies.yaml (the "etcd" entry).
#
# k8s.io/kubernetes requires its staging modules (k8s.io/api, k8s.io/apiserver, ...) at v0.0.0 and
# replaces them with ./staging/..., which holds only inside its own tree; the wrapper replaces each
# with the matching published v0.Y.Z (the workaround of kubernetes/kubernetes#79384).
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 KUBERNETES_VERSION ETCD_VERSION (e.g. 1.37.2 3.7.0)" >&2; exit 2; }
kube=$1 etcd=$2
minor=${kube%.*}
staging=v0.${kube#1.}
here="$(cd "$(dirname "$0")" && pwd)"

mod_file="$(go mod download -json "k8s.io/kubernetes@v$kube" | sed -n 's/^\s*"GoMod": "\(.*\)",$/\1/p')"
go_line="$(grep -m1 '^go ' "$mod_file")"

dir="$here/kubernetes-v$minor"
rm -rf "$dir" && mkdir -p "$dir"
{
  echo "// kube-apiserver v$kube, built by scripts/provision.sh; written by scripts/kube/pin.sh."
  echo "module pier.dev/kube/kubernetes-v$minor"
  echo
  echo "$go_line"
  echo
  echo "require k8s.io/kubernetes v$kube"
  echo
  echo "replace ("
  grep -oE '^\s+k8s.io/[a-z0-9-]+ => ./staging' "$mod_file" |
    awk -v v="$staging" '{print "\t" $1 " => " $1 " " v}'
  echo ")"
} >"$dir/go.mod"
cat >"$dir/tools.go" <<'GO'
//go:build tools

// Package tools keeps in go.mod the commands that scripts/provision.sh builds from this module.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
(cd "$dir" && go mod tidy)

dir="$here/etcd-v$etcd"
rm -rf "$dir" && mkdir -p "$dir"
cat >"$dir/go.mod" <<GO
// etcd v$etcd, built by scripts/provision.sh; written by scripts/kube/pin.sh.
module pier.dev/kube/etcd-v$etcd

go 1.24

require go.etcd.io/etcd/server/v3 v$etcd
GO
cat >"$dir/main.go" <<'GO'
// Command etcd is etcd's server at the version this module pins.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
GO
(cd "$dir" && go mod tidy)
echo "pinned kube-apiserver v$kube ($here/kubernetes-v$minor) and etcd v$etcd ($here/etcd-v$etcd)"

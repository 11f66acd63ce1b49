//go:build tools

// Package tools keeps in go.mod the commands that scripts/provision.sh builds from this module.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)

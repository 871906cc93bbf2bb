/*
Copyright The Karpenter CloudStack Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package main

import "time"

// kubernetesModule is the pin of every Kubernetes binary: its staging modules are replaced in
// tools/kubernetes/go.mod by the releases published for the same version.
const kubernetesModule = "k8s.io/kubernetes"

// Tool is one binary of bin/, built from a nested module under tools/ with GOWORK=off so its
// dependencies never join the workspace's build list.
type Tool struct {
	// Name is the file name under bin/.
	Name string
	// Dir is the nested module's folder under tools/.
	Dir string
	// Package is what `go build` builds inside Dir.
	Package string
	// Pin is the required module whose version is the tool's version.
	Pin string
	// LDFlags adds version stamps for tools that cannot read them from their build info.
	LDFlags func(pin Module) []string
}

// catalog lists etcd and kube-apiserver first because envtest needs only those two.
func catalog() []Tool {
	kube := func(name string) Tool {
		return Tool{Name: name, Dir: "kubernetes", Package: "k8s.io/kubernetes/cmd/" + name,
			Pin: kubernetesModule, LDFlags: kubeVersionFlags}
	}
	return []Tool{
		{Name: "etcd", Dir: "etcd", Package: ".", Pin: "go.etcd.io/etcd/server/v3"},
		kube("kube-apiserver"),
		kube("kube-controller-manager"),
		kube("kube-scheduler"),
		kube("kubectl"),
		kube("kubeadm"),
		// Only the kind node image needs these (make kind-image), not make tools.
		kube("kubelet"),
		kube("kube-proxy"),
		{Name: "crictl", Dir: "cri-tools", Package: "sigs.k8s.io/cri-tools/cmd/crictl", Pin: "sigs.k8s.io/cri-tools",
			LDFlags: versionFlag("sigs.k8s.io/cri-tools/pkg/version.Version")},
		{Name: "coredns", Dir: "coredns", Package: "github.com/coredns/coredns", Pin: "github.com/coredns/coredns"},
		{Name: "kwok", Dir: "kwok", Package: "sigs.k8s.io/kwok/cmd/kwok", Pin: "sigs.k8s.io/kwok"},
		{Name: "kwokctl", Dir: "kwok", Package: "sigs.k8s.io/kwok/cmd/kwokctl", Pin: "sigs.k8s.io/kwok"},
		{Name: "controller-gen", Dir: "controller-gen", Package: "sigs.k8s.io/controller-tools/cmd/controller-gen",
			Pin: "sigs.k8s.io/controller-tools"},
		{Name: "kind", Dir: "kind", Package: "sigs.k8s.io/kind", Pin: "sigs.k8s.io/kind"},
		{Name: "karpenter-kwok", Dir: "karpenter-kwok", Package: "sigs.k8s.io/karpenter/kwok", Pin: "sigs.k8s.io/karpenter",
			LDFlags: versionFlag("sigs.k8s.io/karpenter/pkg/operator.Version")},
		{Name: "staticcheck", Dir: "staticcheck", Package: "honnef.co/go/tools/cmd/staticcheck", Pin: "honnef.co/go/tools"},
		// The Apache CloudStack CCM. Its release Makefile stamps k8s.io/kubernetes/pkg/version, which
		// the binary does not link, so there is nothing to stamp.
		{Name: "cloudstack-ccm", Dir: "cloudstack-ccm", Package: "github.com/apache/cloudstack-kubernetes-provider/cmd/cloudstack-ccm",
			Pin: "github.com/apache/cloudstack-kubernetes-provider"},
	}
}

// versionFlag stamps the pin into variable, for tools whose release builds set it with -X
// (Karpenter reports it in its build_info metric, which the benchmarks record).
func versionFlag(variable string) func(Module) []string {
	return func(pin Module) []string { return []string{"-X", variable + "=" + pin.Version} }
}

// kubeVersionFlags stamps what Kubernetes' own release scripts stamp from git: built from the
// module proxy the binaries would report v0.0.0-master, which clients and Karpenter reject
// as a server version. The build date is the pin's publication time so rebuilds are reproducible.
func kubeVersionFlags(pin Module) []string {
	major, minor := majorMinor(pin.Version)
	var flags []string
	for _, pkg := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		flags = append(flags,
			"-X", pkg+".gitVersion="+pin.Version,
			"-X", pkg+".gitMajor="+major,
			"-X", pkg+".gitMinor="+minor,
			"-X", pkg+".gitTreeState=clean",
			"-X", pkg+".buildDate="+pin.Time.UTC().Format(time.RFC3339),
		)
	}
	return flags
}

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

// Package kubeletparity judges provider/pkg/nodeallocatable against the kubelet's own code at
// the Kubernetes version tools/kubernetes pins: its default hard eviction thresholds, its
// reading of --eviction-hard, --kube-reserved and --system-reserved, and what the thresholds
// hold back from capacity; and the CRD the chart installs, whose validation rules, run by the
// API server's own CEL validator, must admit no threshold or reservation the kubelet refuses. It
// is a module of its own, outside the workspace, so that k8s.io/kubernetes never joins the
// provider's build list.
package kubeletparity

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

// Package v1 is the v1 API of karpenter.k8s.cloudstack.
// +k8s:deepcopy-gen=package,register
// +groupName=karpenter.k8s.cloudstack
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis"
)

// SchemeGroupVersion is the group and version of every type in this package.
var SchemeGroupVersion = schema.GroupVersion{Group: apis.Group, Version: "v1"}

// Karpenter core's operator reads and writes through client-go's scheme, so the types are
// registered there rather than in a scheme of our own.
func init() {
	metav1.AddToGroupVersion(scheme.Scheme, SchemeGroupVersion)
	scheme.Scheme.AddKnownTypes(SchemeGroupVersion, &CloudStackNodeClass{}, &CloudStackNodeClassList{})
}

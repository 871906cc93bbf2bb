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

package helm

import (
	"fmt"

	"k8s.io/client-go/rest"
)

// Impersonate returns a copy of cfg that acts as the ServiceAccount namespace/name. A
// controller run with it has exactly the permissions the chart's RBAC grants, so tests prove
// the RBAC without building an image.
func Impersonate(cfg *rest.Config, namespace, name string) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.Impersonate = ServiceAccountImpersonation(namespace, name)
	return out
}

// ServiceAccountImpersonation is the user namespace/name with the groups the API server gives
// that account's tokens.
func ServiceAccountImpersonation(namespace, name string) rest.ImpersonationConfig {
	return rest.ImpersonationConfig{
		UserName: fmt.Sprintf("system:serviceaccount:%s:%s", namespace, name),
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
	}
}

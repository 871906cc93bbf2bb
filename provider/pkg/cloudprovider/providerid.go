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

package cloudprovider

import (
	"fmt"
	"strings"
)

// ProviderIDPrefix is the CloudStack CCM's providerID form; it is the one the provider emits.
const ProviderIDPrefix = "external-cloudstack://"

// ProviderID of a VM.
func ProviderID(vmID string) string {
	return ProviderIDPrefix + vmID
}

// ParseProviderID returns the VM uuid of a providerID in any form CloudStack tools use:
// external-cloudstack://<uuid> (CCM), cloudstack:///<uuid> (Cluster API) and
// cloudstack://<zone>/<uuid>.
func ParseProviderID(providerID string) (string, error) {
	for _, prefix := range []string{ProviderIDPrefix, "cloudstack://"} {
		rest, ok := strings.CutPrefix(providerID, prefix)
		if !ok {
			continue
		}
		id := rest[strings.LastIndex(rest, "/")+1:]
		if id == "" {
			break
		}
		return id, nil
	}
	return "", fmt.Errorf("parsing providerID %q: want external-cloudstack://<uuid>, cloudstack:///<uuid> or cloudstack://<zone>/<uuid>", providerID)
}

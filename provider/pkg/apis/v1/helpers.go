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

package v1

// ZoneSelectors returns the zone names or UUIDs the spec asks for; empty means every enabled
// zone. The seed's single zone field and the list are one selector to every caller.
func (in *CloudStackNodeClass) ZoneSelectors() []string {
	if in.Spec.Zone != "" {
		return []string{in.Spec.Zone}
	}
	return in.Spec.Zones
}

// BootstrapMode returns the effective mode: the API server defaults it, objects built in
// memory may not have been through defaulting.
func (in *CloudStackNodeClass) BootstrapMode() BootstrapMode {
	if in.Spec.Bootstrap == nil || in.Spec.Bootstrap.Mode == "" {
		return BootstrapModeKubeadm
	}
	return in.Spec.Bootstrap.Mode
}

// KubeadmConfigVersion is the JoinConfiguration version kubeadm mode renders, v1beta4 unless
// spec.bootstrap.kubeadmConfigVersion says otherwise.
func (in *CloudStackNodeClass) KubeadmConfigVersion() KubeadmConfigVersion {
	if in.Spec.Bootstrap == nil || in.Spec.Bootstrap.KubeadmConfigVersion == "" {
		return KubeadmConfigV1beta4
	}
	return in.Spec.Bootstrap.KubeadmConfigVersion
}

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

package api

import (
	"slices"
	"strings"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
)

// CloudStackVersion is the version listCapabilities reports.
const CloudStackVersion = "4.20.1.0"

type apiResponse struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	IsAsync     bool            `json:"isasync"`
	Since       string          `json:"since"`
	Related     string          `json:"related"`
	Type        string          `json:"type"`
	Params      []paramResponse `json:"params"`
	Response    []Field         `json:"response"`
}

// paramResponse adds the length field cmk expects on every parameter.
type paramResponse struct {
	Param
	Length int `json:"length"`
}

type capabilityResponse struct {
	CloudStackVersion         string `json:"cloudstackversion"`
	AllowUserExpungeRecoverVM bool   `json:"allowuserexpungerecovervm"`
	AllowUserViewDestroyedVM  bool   `json:"allowuserviewdestroyedvm"`
	APILimitInterval          int    `json:"apilimitinterval"`
	APILimitMax               int    `json:"apilimitmax"`
	DefaultUIPageSize         int64  `json:"defaultuipagesize"`
	DynamicScalingEnabled     bool   `json:"dynamicscalingenabled"`
	KVMSnapshotEnabled        bool   `json:"kvmsnapshotenabled"`
	SecurityGroupsEnabled     bool   `json:"securitygroupsenabled"`
	UserPublicTemplateEnabled bool   `json:"userpublictemplateenabled"`
	SupportELB                string `json:"supportELB"`
	// KubernetesServiceEnabled is the global setting cloud.kubernetes.service.enabled: without
	// it the Kubernetes Service commands do not exist.
	KubernetesServiceEnabled bool `json:"kubernetesserviceenabled"`
}

func (b *Backend) discoveryCommands() []Command {
	return []Command{{
		Name: "listApis", Description: "lists all available apis on the server",
		Params:   []Param{{Name: "name", Type: "string", Description: "API name"}},
		Response: []Field{{Name: "name", Type: "string", Description: "the name of the api command"}, {Name: "isasync", Type: "boolean", Description: "true if api is asynchronous"}},
		Handle:   b.listApis,
	}, {
		Name: "listCapabilities", Description: "Lists capabilities",
		Response: []Field{{Name: "capability", Type: "capability", Description: "the capabilities of the cloud"}},
		Handle:   b.listCapabilities,
	}}
}

func (b *Backend) listApis(r *Request) (any, error) {
	commands := b.Commands()
	var out []apiResponse
	for _, name := range sortedKeys(commands) {
		c := commands[name]
		if (r.Has("name") && !strings.EqualFold(name, r.Get("name"))) || !c.AvailableTo(r.Account) {
			continue
		}
		params := make([]paramResponse, len(c.Params))
		for i, p := range c.Params {
			params[i] = paramResponse{Param: p, Length: 255}
		}
		out = append(out, apiResponse{Name: c.Name, Description: c.Description, IsAsync: c.Async,
			Related: related(c), Params: params, Response: c.Response})
	}
	if r.Has("name") && len(out) == 0 {
		// ListApisCmd: discovery answers nothing for a name the caller may not call.
		return nil, cserr.New(cserr.InternalError, cserr.CSGeneric, "Api Discovery plugin was unable to find an api by that name or process any apis")
	}
	return List{Key: "api", Count: len(out), Items: out}, nil
}

// related lists the commands the parameters point at, as the management server derives it.
func related(c Command) string {
	var out []string
	for _, p := range c.Params {
		if p.Related != "" && !slices.Contains(out, p.Related) {
			out = append(out, p.Related)
		}
	}
	return strings.Join(out, ",")
}

func (b *Backend) listCapabilities(_ *Request) (any, error) {
	throttle := b.Faults.Get().Throttle
	return map[string]capabilityResponse{"capability": {
		CloudStackVersion: CloudStackVersion, AllowUserExpungeRecoverVM: b.Settings.AllowUserExpunge,
		AllowUserViewDestroyedVM: true, APILimitInterval: int(throttle.Interval.Seconds()), APILimitMax: throttle.Max,
		DefaultUIPageSize: 20, DynamicScalingEnabled: true, KVMSnapshotEnabled: true, UserPublicTemplateEnabled: true,
		SupportELB: "false", KubernetesServiceEnabled: b.Settings.KubernetesServiceEnabled,
	}}, nil
}

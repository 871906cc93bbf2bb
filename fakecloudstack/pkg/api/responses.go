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
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

// DateLayout is how the management server prints dates.
const DateLayout = "2006-01-02T15:04:05-0700"

func date(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(DateLayout)
}

// tagResponse's field types follow cloudstack-go's Tags struct.
type tagResponse struct {
	Key          string `json:"key"`
	Value        string `json:"value"`
	ResourceType string `json:"resourcetype"`
	ResourceID   string `json:"resourceid"`
	Account      string `json:"account,omitempty"`
	DomainID     string `json:"domainid,omitempty"`
	Domain       string `json:"domain,omitempty"`
}

// staticTags renders the tags of a resource declared by the world.
func staticTags(resourceType, id string, tags map[string]string) []tagResponse {
	out := []tagResponse{}
	for _, k := range sortedKeys(tags) {
		out = append(out, tagResponse{Key: k, Value: tags[k], ResourceType: resourceType, ResourceID: id})
	}
	return out
}

func (b *Backend) tagResponses(tags []store.Tag) []tagResponse {
	out := make([]tagResponse, 0, len(tags))
	for _, t := range tags {
		acc, _ := b.Store.Accounts.Get(t.AccountID)
		out = append(out, tagResponse{Key: t.Key, Value: t.Value, ResourceType: t.ResourceType, ResourceID: t.ResourceID,
			Account: acc.Name, DomainID: acc.DomainID, Domain: acc.Domain})
	}
	return out
}

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

package store

import (
	"encoding/json"
	"fmt"
	"io"
)

// snapshot is the on-disk form of the world. Jobs are not part of it: the server's state file
// holds them beside it (server/persist.go).
type snapshot struct {
	Seq            int64               `json:"seq"`
	Accounts       []Account           `json:"accounts"`
	Projects       []Project           `json:"projects,omitempty"`
	Zones          []Zone              `json:"zones"`
	Offerings      []ServiceOffering   `json:"offerings"`
	Templates      []Template          `json:"templates"`
	Networks       []Network           `json:"networks"`
	DiskOfferings  []DiskOffering      `json:"diskOfferings"`
	AffinityGroups []AffinityGroup     `json:"affinityGroups"`
	KeyPairs       []SSHKeyPair        `json:"keyPairs"`
	Tariffs        []Tariff            `json:"tariffs,omitempty"`
	Clusters       []KubernetesCluster `json:"kubernetesClusters,omitempty"`
	VMs            []VM                `json:"vms"`
	Tags           []Tag               `json:"tags"`
	Expunged       []string            `json:"expunged"`
}

// Save writes the whole world as JSON.
func (s *Store) Save(w io.Writer) error {
	snap := snapshot{
		Accounts:       s.Accounts.List(),
		Projects:       s.Projects.List(),
		Zones:          s.Zones.List(),
		Offerings:      s.Offerings.List(),
		Templates:      s.Templates.List(),
		Networks:       s.Networks.List(),
		DiskOfferings:  s.DiskOfferings.List(),
		AffinityGroups: s.AffinityGroups.List(),
		KeyPairs:       s.KeyPairs.List(),
		Tariffs:        s.Tariffs.List(),
		Clusters:       s.KubernetesClusters.List(),
		VMs:            s.AllVMs(),
		Tags:           s.ListTags(TagFilter{}),
	}
	s.mu.RLock()
	snap.Seq = s.seq
	for id := range s.expunged {
		snap.Expunged = append(snap.Expunged, id)
	}
	s.mu.RUnlock()
	if err := json.NewEncoder(w).Encode(&snap); err != nil {
		return fmt.Errorf("encoding snapshot, %w", err)
	}
	return nil
}

// Load fills an empty store from a snapshot written by Save.
func (s *Store) Load(r io.Reader) error {
	var snap snapshot
	if err := json.NewDecoder(r).Decode(&snap); err != nil {
		return fmt.Errorf("decoding snapshot, %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq = snap.Seq
	s.Accounts.restore(snap.Accounts, func(a Account) string { return a.ID })
	s.Projects.restore(snap.Projects, func(p Project) string { return p.ID })
	s.Zones.restore(snap.Zones, func(z Zone) string { return z.ID })
	s.Offerings.restore(snap.Offerings, func(o ServiceOffering) string { return o.ID })
	s.Templates.restore(snap.Templates, func(t Template) string { return t.ID })
	s.Networks.restore(snap.Networks, func(n Network) string { return n.ID })
	s.DiskOfferings.restore(snap.DiskOfferings, func(d DiskOffering) string { return d.ID })
	s.AffinityGroups.restore(snap.AffinityGroups, func(g AffinityGroup) string { return g.ID })
	s.KeyPairs.restore(snap.KeyPairs, func(k SSHKeyPair) string { return KeyPairKey(k.AccountID, k.Name) })
	s.Tariffs.restore(snap.Tariffs, func(t Tariff) string { return t.ID })
	s.KubernetesClusters.restore(snap.Clusters, func(c KubernetesCluster) string { return c.ID })
	for i := range snap.VMs {
		s.insertLocked(&snap.VMs[i])
	}
	for _, t := range snap.Tags {
		s.tags[t.ResourceID] = append(s.tags[t.ResourceID], t)
		s.indexLocked(t.Key, t.Value, t.ResourceID)
	}
	for _, id := range snap.Expunged {
		s.expunged[id] = struct{}{}
	}
	return nil
}

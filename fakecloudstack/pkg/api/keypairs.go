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
	"crypto/md5"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

type keyPairResponse struct {
	Name        string `json:"name"`
	Fingerprint string `json:"fingerprint"`
	Account     string `json:"account"`
	DomainID    string `json:"domainid"`
}

func (b *Backend) keyPairCommands() []Command {
	nameParam := Param{Name: "name", Type: "string", Required: true, Description: "Name of the keypair"}
	return []Command{{
		Name: "listSSHKeyPairs", Description: "List registered keypairs",
		Params: append([]Param{
			{Name: "name", Type: "string", Description: "A key pair name to look for"},
			{Name: "fingerprint", Type: "string", Description: "A public key fingerprint to look for"},
			{Name: "listall", Type: "boolean", Description: "list resources of every account (admin only)"},
			{Name: "projectid", Type: "uuid", Description: "list objects by project; -1 for every project of the caller", Related: "listProjects"},
		}, pageParams()...),
		Response: []Field{{Name: "name", Type: "string", Description: "Name of the keypair"}, {Name: "fingerprint", Type: "string", Description: "Fingerprint of the public key"}},
		Handle:   b.listSSHKeyPairs,
	}, {
		Name: "registerSSHKeyPair", Description: "Register a public key in a keypair under a certain name",
		Params:   []Param{nameParam, {Name: "publickey", Type: "string", Required: true, Description: "Public key material of the keypair"}},
		Response: []Field{{Name: "name", Type: "string", Description: "Name of the keypair"}, {Name: "fingerprint", Type: "string", Description: "Fingerprint of the public key"}},
		Handle:   b.registerSSHKeyPair,
	}, {
		Name: "deleteSSHKeyPair", Description: "Deletes a keypair by name",
		Params:   []Param{nameParam},
		Response: []Field{{Name: "success", Type: "boolean", Description: "true if operation is executed successfully"}},
		Handle:   b.deleteSSHKeyPair,
	}}
}

func (b *Backend) listSSHKeyPairs(r *Request) (any, error) {
	owners, err := b.owners(r)
	if err != nil {
		return nil, err
	}
	return filterList(r, "sshkeypair", b.Store.KeyPairs.List(), func(k store.SSHKeyPair) bool {
		return slices.Contains(owners, k.AccountID) && (!r.Has("name") || k.Name == r.Get("name")) &&
			(!r.Has("fingerprint") || k.Fingerprint == r.Get("fingerprint")) && keywordMatch(r.Get("keyword"), k.Name)
	}, func(k store.SSHKeyPair) keyPairResponse {
		owner, _ := b.Store.Accounts.Get(k.AccountID)
		return keyPairResponse{Name: k.Name, Fingerprint: k.Fingerprint, Account: owner.Name, DomainID: owner.DomainID}
	})
}

func (b *Backend) registerSSHKeyPair(r *Request) (any, error) {
	name := r.Get("name")
	key := store.KeyPairKey(r.Account.ID, name)
	if _, exists := b.Store.KeyPairs.Get(key); exists {
		return nil, cserr.InvalidParam("A key pair with name '%s' already exists.", name)
	}
	fp, err := publicKeyFingerprint(r.Get("publickey"))
	if err != nil {
		return nil, err
	}
	kp := store.SSHKeyPair{Name: name, Fingerprint: fp, AccountID: r.Account.ID}
	b.Store.KeyPairs.Put(key, kp)
	return map[string]keyPairResponse{"keypair": {Name: name, Fingerprint: fp, Account: r.Account.Name, DomainID: r.Account.DomainID}}, nil
}

// publicKeyFingerprint is the MD5 fingerprint CloudStack shows for an OpenSSH public key.
func publicKeyFingerprint(publicKey string) (string, error) {
	fields := strings.Fields(publicKey)
	if len(fields) < 2 {
		return "", cserr.InvalidParam("Public key is invalid")
	}
	blob, err := base64.StdEncoding.DecodeString(fields[1])
	if err != nil {
		return "", cserr.InvalidParam("Public key is invalid")
	}
	sum := md5.Sum(blob)
	parts := make([]string, len(sum))
	for i, c := range sum {
		parts[i] = fmt.Sprintf("%02x", c)
	}
	return strings.Join(parts, ":"), nil
}

func (b *Backend) deleteSSHKeyPair(r *Request) (any, error) {
	name := r.Get("name")
	if !b.Store.KeyPairs.Delete(store.KeyPairKey(r.Account.ID, name)) {
		return nil, cserr.InvalidParam("A key pair with name '%s' does not exist for account %s in specified domain id", name, r.Account.Name)
	}
	return Success{Success: true}, nil
}

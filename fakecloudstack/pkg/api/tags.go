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
	"strings"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

func (b *Backend) tagCommands() []Command {
	target := []Param{
		{Name: "resourceids", Type: "list", Required: true, Description: "list of resources to create the tags for"},
		{Name: "resourcetype", Type: "string", Required: true, Description: "type of the resource (UserVm)"},
	}
	tagFields := []Field{{Name: "key", Type: "string", Description: "tag key name"}, {Name: "value", Type: "string", Description: "tag value"}}
	success := []Field{{Name: "success", Type: "boolean", Description: "true if operation is executed successfully"}}
	return []Command{{
		Name: "createTags", Description: "Creates resource tag(s)", Async: true,
		Params:   append(target, Param{Name: "tags", Type: "map", Required: true, Description: "Map of tags (key/value pairs)"}),
		Response: success,
		Handle:   b.createTags,
	}, {
		Name: "deleteTags", Description: "Deleting resource tag(s)", Async: true,
		Params:   append(target, Param{Name: "tags", Type: "map", Description: "Delete tags matching key/value pairs"}),
		Response: success,
		Handle:   b.deleteTags,
	}, {
		Name: "listTags", Description: "List resource tag(s)",
		Params: append([]Param{
			{Name: "resourceid", Type: "string", Description: "list by resource id"},
			{Name: "resourcetype", Type: "string", Description: "list by resource type"},
			{Name: "key", Type: "string", Description: "list by key"},
			{Name: "value", Type: "string", Description: "list by value"},
			{Name: "listall", Type: "boolean", Description: "list resources of every account (admin only)"},
		}, pageParams()...),
		Response: tagFields,
		Handle:   b.listTags,
	}}
}

// tagTargets validates resourcetype and resourceids.
func (b *Backend) tagTargets(r *Request) ([]string, error) {
	if !strings.EqualFold(r.Get("resourcetype"), store.ResourceTypeVM) {
		return nil, cserr.InvalidParam("Unsupported resource type: %s", r.Get("resourcetype"))
	}
	ids := r.List("resourceids")
	for _, id := range ids {
		if vm, ok := b.Store.VM(id); !ok || !b.canAccess(r, vm.AccountID) {
			return nil, cserr.InvalidParam("Unable to find resource by id %s and type %s", id, store.ResourceTypeVM)
		}
	}
	return ids, nil
}

func (b *Backend) createTags(r *Request) (any, error) {
	ids, err := b.tagTargets(r)
	if err != nil {
		return nil, err
	}
	pairs := r.Pairs("tags")
	if len(pairs) == 0 {
		return nil, cserr.MissingParam(strings.ToLower(r.Command), "tags")
	}
	for _, kv := range pairs {
		if kv.Value == "" {
			return nil, cserr.InvalidParam("Value for the key %s is either null or empty", kv.Key)
		}
	}
	job := b.submit(r, jobSpec{javaCmd: createTagsCmd, finish: func(injected *cserr.Error) (any, *cserr.Error) {
		return orInjected(injected, func() (any, *cserr.Error) {
			// A duplicate key, or a VM expunged while the job waited.
			if err := b.Store.AddTags(r.Account.ID, ids, pairs); err != nil {
				return nil, &cserr.Error{Code: cserr.InternalError, Text: err.Error()}
			}
			return Success{Success: true}, nil
		})
	}})
	return asyncStarted{JobID: job.ID}, nil
}

func (b *Backend) deleteTags(r *Request) (any, error) {
	ids, err := b.tagTargets(r)
	if err != nil {
		return nil, err
	}
	pairs := r.Pairs("tags")
	job := b.submit(r, jobSpec{javaCmd: deleteTagsCmd, finish: func(injected *cserr.Error) (any, *cserr.Error) {
		return orInjected(injected, func() (any, *cserr.Error) {
			b.Store.DeleteTags(ids, pairs)
			return Success{Success: true}, nil
		})
	}})
	return asyncStarted{JobID: job.ID}, nil
}

func (b *Backend) listTags(r *Request) (any, error) {
	if r.Has("resourcetype") && !strings.EqualFold(r.Get("resourcetype"), store.ResourceTypeVM) {
		return List{}, nil
	}
	tags := b.Store.ListTags(store.TagFilter{AccountID: r.Scope(), ResourceID: r.Get("resourceid"), Key: r.Get("key"), Value: r.Get("value")})
	return pagedList(r, "tag", b.tagResponses(tags))
}

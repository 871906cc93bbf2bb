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

// Package cache holds the provider's shared caches and their lifetimes.
package cache

import (
	"time"

	gocache "github.com/patrickmn/go-cache"
)

const (
	// UnavailableOfferingsTTL is how long an offering x zone that failed with insufficient
	// capacity is skipped: long enough for core to re-plan elsewhere at once, short enough that
	// capacity freed by other tenants is used again within minutes.
	UnavailableOfferingsTTL = 3 * time.Minute
	// InstanceTTL is how long a VM's state, as a launch, list or get last saw it, answers drift
	// checks: what drift compares (template, offering, networks) is fixed at launch, so the
	// cache only delays noticing changes made to the VM out of band.
	InstanceTTL = 5 * time.Minute
	// CleanupInterval is how often expired entries are dropped from go-cache instances.
	CleanupInterval = 10 * time.Minute
)

// NewInstances is the instance provider's cache of VM states by ID.
func NewInstances() *gocache.Cache { return gocache.New(InstanceTTL, CleanupInterval) }

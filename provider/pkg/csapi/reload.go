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

package csapi

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/recovery"
)

// CloudConfigPollInterval is how soon a rotated cloud-config Secret takes effect. Kubelet itself
// refreshes mounted Secrets only about once a minute, and polling survives the symlink swap it
// uses, which file notifications do not.
const CloudConfigPollInterval = 30 * time.Second

// CloudConfigReloader switches a Client to new credentials when the cloud-config file changes.
type CloudConfigReloader struct {
	path     string
	client   *Client
	interval time.Duration
	current  Credentials
}

// NewCloudConfigReloader watches path; current is what the client was built with.
func NewCloudConfigReloader(path string, client *Client, current Credentials, interval time.Duration) *CloudConfigReloader {
	return &CloudConfigReloader{path: path, client: client, current: current, interval: interval}
}

// Start polls until ctx ends (a manager.Runnable).
func (r *CloudConfigReloader) Start(ctx context.Context) error {
	wait.UntilWithContext(ctx, r.Reload, r.interval)
	return nil
}

// NeedLeaderElection is false: every replica calls CloudStack and needs fresh keys.
func (r *CloudConfigReloader) NeedLeaderElection() bool { return false }

// Reload applies the file's credentials if they differ from the current ones; a broken file
// keeps the old credentials.
func (r *CloudConfigReloader) Reload(ctx context.Context) {
	defer recovery.Log(ctx, "cloud-config reloader")
	creds, err := LoadCloudConfig(r.path)
	if err == nil {
		err = creds.Validate()
	}
	if err != nil {
		log.FromContext(ctx).Error(err, "reloading cloud-config, keeping the current credentials", "path", r.path)
		return
	}
	if creds == r.current {
		return
	}
	if err := r.client.SetCredentials(creds); err != nil {
		log.FromContext(ctx).Error(err, "applying reloaded cloud-config", "path", r.path)
		return
	}
	r.current = creds
	log.FromContext(ctx).Info("reloaded CloudStack credentials from cloud-config", "credentials", creds)
	WarnPlainHTTP(ctx, creds)
}

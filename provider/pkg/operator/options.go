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

package operator

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"time"

	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"
	"sigs.k8s.io/karpenter/pkg/utils/env"

	csapi "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudstack"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
)

func init() {
	coreoptions.Injectables = append(coreoptions.Injectables, &Options{})
}

type optionsKey struct{}

// Options of the CloudStack provider: flags, each defaulting to an environment variable.
type Options struct {
	APIURL    string
	APIKey    string
	SecretKey string
	VerifySSL bool
	// CloudConfig is the path of a CloudStack CCM cloud-config file; when set it supplies the
	// credentials and is re-read when it changes.
	CloudConfig string
	ClusterName string
	// Region is the topology.kubernetes.io/region of every node; empty means the zone name.
	Region string
	// RateLimit is the client-side limit in CloudStack calls per second, shared by all callers.
	RateLimit float64
	RateBurst int
	// JobPollInterval is how often the one shared job watcher polls listAsyncJobs.
	JobPollInterval time.Duration
	// PricingConfigMap holds user prices, in SystemNamespace.
	PricingConfigMap string
	SystemNamespace  string
	// APIServerEndpoint (host:port) overrides the endpoint nodes join.
	APIServerEndpoint string
}

func (o *Options) AddFlags(fs *coreoptions.FlagSet) {
	fs.StringVar(&o.APIURL, "cloudstack-api-url", env.WithDefaultString("CLOUDSTACK_API_URL", ""), "CloudStack API endpoint, e.g. https://cloud.example/client/api.")
	fs.StringVar(&o.APIKey, "cloudstack-api-key", env.WithDefaultString("CLOUDSTACK_API_KEY", ""), "CloudStack API key (prefer the environment variable).")
	fs.StringVar(&o.SecretKey, "cloudstack-secret-key", env.WithDefaultString("CLOUDSTACK_SECRET_KEY", ""), "CloudStack secret key (prefer the environment variable).")
	fs.BoolVarWithEnv(&o.VerifySSL, "cloudstack-verify-ssl", "CLOUDSTACK_VERIFY_SSL", true, "Verify the CloudStack API's TLS certificate.")
	fs.StringVar(&o.CloudConfig, "cloud-config", env.WithDefaultString("CLOUDSTACK_CLOUD_CONFIG", ""), "Path of a CloudStack CCM cloud-config INI file ([Global] api-url, api-key, secret-key, project-id, zone, ssl-no-verify); replaces the settings above and is reloaded when it changes.")
	fs.StringVar(&o.ClusterName, "cluster-name", env.WithDefaultString("CLUSTER_NAME", ""), "Name of this cluster, tagged on every VM; it keeps clusters sharing an account apart.")
	fs.StringVar(&o.Region, "region", env.WithDefaultString("CLOUDSTACK_REGION", ""), "Value of topology.kubernetes.io/region; empty uses each zone's name, as the CloudStack CCM does.")
	fs.Float64Var(&o.RateLimit, "cloudstack-rate-limit", envFloat("CLOUDSTACK_RATE_LIMIT", csapi.DefaultCallsPerSecond), "Client-side limit of CloudStack API calls per second.")
	fs.IntVar(&o.RateBurst, "cloudstack-rate-burst", env.WithDefaultInt("CLOUDSTACK_RATE_BURST", csapi.DefaultCallsPerSecond), "Calls that may start at once after a quiet period.")
	fs.DurationVar(&o.JobPollInterval, "cloudstack-job-poll-interval", env.WithDefaultDuration("CLOUDSTACK_JOB_POLL_INTERVAL", instance.DefaultPollInterval), "How often all pending CloudStack jobs are polled, with one listAsyncJobs call.")
	fs.StringVar(&o.PricingConfigMap, "pricing-configmap", env.WithDefaultString("PRICING_CONFIGMAP", "karpenter-cloudstack-pricing"), "ConfigMap of hourly prices keyed by service offering name or ID.")
	fs.StringVar(&o.SystemNamespace, "system-namespace", env.WithDefaultString("SYSTEM_NAMESPACE", "karpenter"), "Namespace of the controller (pricing ConfigMap, bootstrap token Secrets live in kube-system).")
	fs.StringVar(&o.APIServerEndpoint, "api-server-endpoint", env.WithDefaultString("API_SERVER_ENDPOINT", ""), "host:port nodes join; auto-detected from the kubernetes Service when empty.")
}

func (o *Options) Parse(fs *coreoptions.FlagSet, args ...string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("parsing flags, %w", err)
	}
	return o.Validate()
}

// Validate reports missing or impossible settings once, at start-up.
func (o *Options) Validate() error {
	var errs []error
	if o.ClusterName == "" {
		errs = append(errs, fmt.Errorf("CLUSTER_NAME (--cluster-name) is required"))
	}
	if o.CloudConfig == "" {
		if err := o.Credentials().Validate(); err != nil {
			errs = append(errs, fmt.Errorf("%w: set CLOUDSTACK_API_URL, CLOUDSTACK_API_KEY and CLOUDSTACK_SECRET_KEY, or CLOUDSTACK_CLOUD_CONFIG", err))
		}
	}
	if o.RateLimit <= 0 {
		errs = append(errs, fmt.Errorf("--cloudstack-rate-limit must be positive, got %v", o.RateLimit))
	}
	if o.JobPollInterval <= 0 {
		errs = append(errs, fmt.Errorf("--cloudstack-job-poll-interval must be positive, got %v", o.JobPollInterval))
	}
	return errors.Join(errs...)
}

// Credentials from the flags and environment (not the cloud-config file).
func (o *Options) Credentials() csapi.Credentials {
	return csapi.Credentials{APIURL: o.APIURL, APIKey: o.APIKey, SecretKey: o.SecretKey, VerifySSL: o.VerifySSL}
}

func (o *Options) ToContext(ctx context.Context) context.Context {
	return ToContext(ctx, o)
}

// ToContext stores the options in ctx.
func ToContext(ctx context.Context, o *Options) context.Context {
	return context.WithValue(ctx, optionsKey{}, o)
}

// FromContext returns the options stored by ToContext.
func FromContext(ctx context.Context) *Options {
	o, ok := ctx.Value(optionsKey{}).(*Options)
	if !ok {
		panic("cloudstack options are not in the context")
	}
	return o
}

func envFloat(key string, def float64) float64 {
	if v, err := strconv.ParseFloat(env.WithDefaultString(key, ""), 64); err == nil {
		return v
	}
	return def
}

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
	"cmp"
	"context"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/asyncjob"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudprovider"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
)

func init() {
	coreoptions.Injectables = append(coreoptions.Injectables, &Options{})
}

type optionsKey struct{}

// Options of the CloudStack provider: flags, each defaulting to an environment variable, both
// read by the same strict parser (settings.go).
type Options struct {
	APIURL    string
	APIKey    string
	SecretKey string
	VerifySSL bool
	// CAFile is a PEM bundle of the CAs that may sign the management server's certificate,
	// trusted beside the system's roots.
	CAFile string
	// CloudConfig is the path of a CloudStack CCM cloud-config file; when set it supplies the
	// credentials and is re-read when it changes.
	CloudConfig string
	// ClusterName may be empty when NodeName is set: the CKS cluster the node's VM belongs to
	// names it (NewOperator resolves it).
	ClusterName string
	// NodeName is the node the controller runs on; its VM tells which CloudStack Kubernetes
	// Service cluster this is.
	NodeName string
	// Region is the topology.kubernetes.io/region of every node; empty means the zone name.
	Region string
	// RateLimit is the ceiling of the client-side rate in CloudStack calls per second, shared
	// by all callers; the rate starts there and falls back after 429 answers.
	RateLimit float64
	RateBurst int
	// JobPollInterval is how often the one shared job watcher polls listAsyncJobs.
	JobPollInterval time.Duration
	// PricingConfigMap holds user prices, in SystemNamespace.
	PricingConfigMap string
	SystemNamespace  string
	// APIServerEndpoint (host:port) overrides the endpoint nodes join.
	APIServerEndpoint string
	// Repair holds the tolerations of the provider's repair policies.
	Repair cloudprovider.RepairTolerations

	settings []*setting
	// cloudConfigCredentials are read from CloudConfig when the options are parsed, so that a
	// bad file stops the start-up like any bad setting.
	cloudConfigCredentials csapi.Credentials
	// rootCAs are read from CAFile when the options are parsed, for the same reason.
	rootCAs *x509.CertPool
}

func (o *Options) AddFlags(fs *coreoptions.FlagSet) {
	o.settings = []*setting{
		{env: "CLOUDSTACK_API_URL", flag: "cloudstack-api-url", usage: "CloudStack API endpoint.",
			accepted: csapi.APIURLAccepted, parse: apiURL(&o.APIURL)},
		{env: "CLOUDSTACK_API_KEY", flag: "cloudstack-api-key", usage: "CloudStack API key (prefer the environment variable).",
			accepted: "the API key of the account", secret: true, parse: text(&o.APIKey)},
		{env: "CLOUDSTACK_SECRET_KEY", flag: "cloudstack-secret-key", usage: "CloudStack secret key (prefer the environment variable).",
			accepted: "the secret key of the account", secret: true, parse: text(&o.SecretKey)},
		{env: "CLOUDSTACK_VERIFY_SSL", flag: "cloudstack-verify-ssl", usage: "Verify the CloudStack API's TLS certificate.",
			accepted: booleanAccepted, def: "true", parse: boolean(&o.VerifySSL)},
		{env: "CLOUDSTACK_CA_FILE", flag: "cloudstack-ca-file", usage: "PEM bundle of the CAs that sign the CloudStack API's certificate, trusted beside the system's; read at start-up.",
			accepted: "the path of a readable PEM file of CA certificates", parse: text(&o.CAFile)},
		{env: "CLOUDSTACK_CLOUD_CONFIG", flag: "cloud-config", usage: "Path of a CloudStack CCM cloud-config INI file ([Global] api-url, api-key, secret-key, project-id, zone, ssl-no-verify), read as the CCM reads it; replaces the API URL, the keys and CLOUDSTACK_VERIFY_SSL, and is reloaded when it changes.",
			accepted: "the path of a readable cloud-config file", parse: text(&o.CloudConfig)},
		{env: "CLUSTER_NAME", flag: "cluster-name", usage: "Name of this cluster, tagged on every VM; it keeps clusters sharing an account apart. Defaults to the CloudStack Kubernetes Service cluster of NODE_NAME's VM.",
			accepted: labelValueAccepted, parse: name(&o.ClusterName, validation.IsValidLabelValue)},
		{env: "NODE_NAME", flag: "node-name", usage: "Node the controller runs on (the chart sets it from the pod's spec.nodeName): in a CloudStack Kubernetes Service cluster its VM names the cluster, which CLUSTER_NAME then defaults to, and launched VMs join an ExternalManaged one.",
			accepted: "a node name (lower-case letters, digits, '-' and '.'), or empty", parse: name(&o.NodeName, emptyOr(validation.IsDNS1123Subdomain))},
		{env: "CLOUDSTACK_REGION", flag: "region", usage: "Value of topology.kubernetes.io/region; empty uses each zone's name, as the CloudStack CCM does.",
			accepted: labelValueAccepted, parse: name(&o.Region, validation.IsValidLabelValue)},
		{env: "CLOUDSTACK_RATE_LIMIT", flag: "cloudstack-rate-limit", usage: "Most CloudStack API calls per second: the client starts there, halves its rate on a 429 answer and climbs back by 1 call/s every second without one.",
			accepted: "a positive number of calls per second, such as 25", def: strconv.Itoa(csapi.DefaultCallsPerSecond), parse: positive(&o.RateLimit, finiteFloat)},
		{env: "CLOUDSTACK_RATE_BURST", flag: "cloudstack-rate-burst", usage: "Calls that may start at once after a quiet period.",
			accepted: "a positive whole number of calls, such as 1", def: strconv.Itoa(csapi.DefaultBurst), parse: positive(&o.RateBurst, strconv.Atoi)},
		{env: "CLOUDSTACK_JOB_POLL_INTERVAL", flag: "cloudstack-job-poll-interval", usage: "How often all pending CloudStack jobs are polled, with one listAsyncJobs call.",
			accepted: "a positive duration, such as 2s", def: asyncjob.DefaultPollInterval.String(), parse: positive(&o.JobPollInterval, time.ParseDuration)},
		{env: "PRICING_CONFIGMAP", flag: "pricing-configmap", usage: "ConfigMap of hourly prices keyed by service offering name or ID, in the system namespace.",
			accepted: "a ConfigMap name (lower-case letters, digits, '-' and '.')", def: "karpenter-cloudstack-pricing", parse: name(&o.PricingConfigMap, validation.IsDNS1123Subdomain)},
		{env: "SYSTEM_NAMESPACE", flag: "system-namespace", usage: "Namespace of the controller and of the pricing ConfigMap.",
			accepted: "a namespace name (lower-case letters, digits and '-')", def: "karpenter", parse: name(&o.SystemNamespace, validation.IsDNS1123Label)},
		{env: "API_SERVER_ENDPOINT", flag: "api-server-endpoint", usage: "host:port nodes join; auto-detected from the kubernetes Service when empty.",
			accepted: "host:port with a port from 1 to 65535, such as 10.0.0.1:6443", parse: hostPort(&o.APIServerEndpoint)},
		{env: "REPAIR_NOT_READY_TOLERATION", flag: "repair-not-ready-toleration", usage: "How long a node may stay Ready=False or Ready=Unknown before node repair (core's NodeRepair feature gate) replaces it.",
			accepted: "a positive duration, such as 30m", def: cloudprovider.DefaultNotReadyToleration.String(), parse: positive(&o.Repair.NotReady, time.ParseDuration)},
		{env: "REPAIR_NODE_PROBLEM_TOLERATION", flag: "repair-node-problem-toleration", usage: "How long a node-problem-detector condition (KernelDeadlock, FrequentKubeletRestart, FrequentContainerdRestart, ReadonlyFilesystem) may stay True before node repair reboots or replaces the node, and how long after a reboot before the next.",
			accepted: "a positive duration, such as 5m", def: cloudprovider.DefaultNodeProblemToleration.String(), parse: positive(&o.Repair.NodeProblem, time.ParseDuration)},
	}
	for _, s := range o.settings {
		s.register(fs.FlagSet)
	}
}

// Parse reads every setting from its flag, else its environment variable, else its default,
// and refuses the options with one line per bad or missing setting.
func (o *Options) Parse(fs *coreoptions.FlagSet, args ...string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("parsing flags, %w", err)
	}
	var errs []error
	for _, s := range o.settings {
		if err := s.read(os.LookupEnv); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return o.Validate()
}

// Validate reports the settings that are missing or that contradict each other, once, at
// start-up, and reads the cloud-config file.
func (o *Options) Validate() error {
	var errs []error
	if o.ClusterName == "" && o.NodeName == "" {
		errs = append(errs, o.setting("CLUSTER_NAME").missing(" (or set NODE_NAME in a CloudStack Kubernetes Service cluster, whose name it then takes)"))
	}
	credentials := []string{"CLOUDSTACK_API_URL", "CLOUDSTACK_API_KEY", "CLOUDSTACK_SECRET_KEY"}
	if o.CloudConfig != "" {
		var both []string
		for _, env := range append(credentials, "CLOUDSTACK_VERIFY_SSL") {
			if s := o.setting(env); s.given {
				both = append(both, s.name())
			}
		}
		if len(both) > 0 {
			errs = append(errs, fmt.Errorf("%s is set and so is %s: the cloud-config file holds the credentials, set one or the other", o.setting("CLOUDSTACK_CLOUD_CONFIG").name(), strings.Join(both, ", ")))
		}
		creds, err := csapi.LoadCloudConfig(o.CloudConfig)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", o.setting("CLOUDSTACK_CLOUD_CONFIG").name(), err))
		}
		o.cloudConfigCredentials = creds
	} else {
		for _, env := range credentials {
			if s := o.setting(env); !s.given {
				errs = append(errs, s.missing(" (or set CLOUDSTACK_CLOUD_CONFIG)"))
			}
		}
	}
	if o.CAFile != "" {
		errs = append(errs, o.readCAFile())
	}
	return errors.Join(errs...)
}

// readCAFile loads the CA bundle and refuses it beside a choice to verify nothing, which would
// leave the bundle unused without a word.
func (o *Options) readCAFile() error {
	ca := o.setting("CLOUDSTACK_CA_FILE")
	pool, err := csapi.LoadCABundle(o.CAFile)
	if err != nil {
		return fmt.Errorf("%s: %w: want %s", ca.name(), err, ca.accepted)
	}
	o.rootCAs = pool
	switch {
	case o.CloudConfig == "" && !o.VerifySSL:
		return fmt.Errorf("%s is set and %s is false: the CA bundle verifies the API's certificate, drop one or the other", ca.name(), o.setting("CLOUDSTACK_VERIFY_SSL").name())
	// A cloud-config that did not load (no API URL) is refused on its own account.
	case o.CloudConfig != "" && o.cloudConfigCredentials.APIURL != "" && !o.cloudConfigCredentials.VerifySSL:
		return fmt.Errorf("%s is set and the cloud-config %s sets ssl-no-verify: the CA bundle verifies the API's certificate, drop one or the other", ca.name(), o.CloudConfig)
	}
	return nil
}

// RootCAs verify the API's certificate: the system's roots plus CLOUDSTACK_CA_FILE, or nil for
// the system's roots alone.
func (o *Options) RootCAs() *x509.CertPool {
	return o.rootCAs
}

// Credentials the client starts with: the cloud-config file's when one is set, else the
// flags' and environment's.
func (o *Options) Credentials() csapi.Credentials {
	if o.CloudConfig != "" {
		return o.cloudConfigCredentials
	}
	return csapi.Credentials{APIURL: o.APIURL, APIKey: o.APIKey, SecretKey: o.SecretKey, VerifySSL: o.VerifySSL}
}

// NodeRegion is the topology.kubernetes.io/region of nodes: CLOUDSTACK_REGION, else the
// cloud-config's region (which the CloudStack CCM labels nodes with); empty means each zone's
// name.
func (o *Options) NodeRegion() string {
	return cmp.Or(o.Region, o.Credentials().Region)
}

func (o *Options) setting(env string) *setting {
	for _, s := range o.settings {
		if s.env == env {
			return s
		}
	}
	panic("no setting " + env)
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

// emptyOr accepts the empty value beside what validate accepts.
func emptyOr(validate func(string) []string) func(string) []string {
	return func(v string) []string {
		if v == "" {
			return nil
		}
		return validate(v)
	}
}

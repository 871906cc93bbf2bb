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

package operator_test

import (
	"flag"
	"strings"
	"testing"

	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/operator"
)

func parse(t *testing.T, env map[string]string, args ...string) (*operator.Options, error) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	o := &operator.Options{}
	fs := &coreoptions.FlagSet{FlagSet: flag.NewFlagSet("test", flag.ContinueOnError)}
	o.AddFlags(fs)
	return o, o.Parse(fs, args...)
}

func TestOptionsFromEnvironment(t *testing.T) {
	o, err := parse(t, map[string]string{
		"CLOUDSTACK_API_URL": "https://cloud.example/client/api", "CLOUDSTACK_API_KEY": "k", "CLOUDSTACK_SECRET_KEY": "s",
		"CLOUDSTACK_VERIFY_SSL": "false", "CLUSTER_NAME": "prod", "CLOUDSTACK_RATE_LIMIT": "2.5",
	})
	if err != nil {
		t.Fatal(err)
	}
	creds := o.Credentials()
	if creds.APIURL != "https://cloud.example/client/api" || creds.APIKey != "k" || creds.VerifySSL || o.ClusterName != "prod" || o.RateLimit != 2.5 {
		t.Fatalf("options %+v not taken from the environment", o)
	}
}

func TestFlagsOverrideTheEnvironment(t *testing.T) {
	o, err := parse(t, map[string]string{"CLUSTER_NAME": "from-env", "CLOUDSTACK_CLOUD_CONFIG": "/etc/cloud-config"}, "--cluster-name", "from-flag")
	if err != nil {
		t.Fatal(err)
	}
	if o.ClusterName != "from-flag" {
		t.Fatalf("cluster name %q, want the flag's", o.ClusterName)
	}
}

func TestOptionsRejectMissingSettings(t *testing.T) {
	_, err := parse(t, map[string]string{"CLOUDSTACK_RATE_LIMIT": "0"})
	for _, want := range []string{"CLUSTER_NAME", "CLOUDSTACK_API_URL", "rate-limit"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not mention %s", err, want)
		}
	}
}

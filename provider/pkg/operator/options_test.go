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
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudprovider"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/operator"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

// validEnv is a complete configuration from the environment.
var validEnv = map[string]string{
	"CLOUDSTACK_API_URL": "https://cloud.example/client/api", "CLOUDSTACK_API_KEY": "k", "CLOUDSTACK_SECRET_KEY": "s", "CLUSTER_NAME": "prod",
}

func parse(t *testing.T, env map[string]string, args ...string) (*operator.Options, error) {
	t.Helper()
	for _, k := range []string{"CLOUDSTACK_API_URL", "CLOUDSTACK_API_KEY", "CLOUDSTACK_SECRET_KEY", "CLOUDSTACK_VERIFY_SSL", "CLOUDSTACK_CA_FILE", "CLOUDSTACK_CLOUD_CONFIG",
		"CLUSTER_NAME", "CLOUDSTACK_REGION", "CLOUDSTACK_RATE_LIMIT", "CLOUDSTACK_RATE_BURST", "CLOUDSTACK_JOB_POLL_INTERVAL",
		"PRICING_CONFIGMAP", "SYSTEM_NAMESPACE", "API_SERVER_ENDPOINT", "NODE_NAME", "REPAIR_NOT_READY_TOLERATION", "REPAIR_NODE_PROBLEM_TOLERATION"} {
		t.Setenv(k, "")
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	o := &operator.Options{}
	fs := &coreoptions.FlagSet{FlagSet: flag.NewFlagSet("test", flag.ContinueOnError)}
	o.AddFlags(fs)
	return o, o.Parse(fs, args...)
}

func with(env map[string]string, key, value string) map[string]string {
	out := map[string]string{key: value}
	for k, v := range env {
		if k != key {
			out[k] = v
		}
	}
	return out
}

func TestOptionsFromEnvironment(t *testing.T) {
	o, err := parse(t, with(with(with(with(validEnv, "CLOUDSTACK_VERIFY_SSL", "0"), "CLOUDSTACK_RATE_LIMIT", "2.5"), "CLOUDSTACK_JOB_POLL_INTERVAL", "500ms"), "API_SERVER_ENDPOINT", "[fd00::1]:6443"))
	if err != nil {
		t.Fatal(err)
	}
	creds := o.Credentials()
	if creds.APIURL != "https://cloud.example/client/api" || creds.APIKey != "k" || creds.VerifySSL || o.ClusterName != "prod" ||
		o.RateLimit != 2.5 || o.JobPollInterval != 500*time.Millisecond || o.APIServerEndpoint != "[fd00::1]:6443" {
		t.Fatalf("options %+v not taken from the environment", o)
	}
}

func TestDefaults(t *testing.T) {
	o, err := parse(t, validEnv)
	if err != nil {
		t.Fatal(err)
	}
	if !o.VerifySSL || o.RateLimit != csapi.DefaultCallsPerSecond || o.RateBurst != csapi.DefaultBurst || o.JobPollInterval != 2*time.Second ||
		o.SystemNamespace != "karpenter" || o.PricingConfigMap != "karpenter-cloudstack-pricing" || o.Region != "" || o.APIServerEndpoint != "" ||
		o.Repair != (cloudprovider.RepairTolerations{NotReady: 30 * time.Minute, NodeProblem: 5 * time.Minute}) {
		t.Fatalf("defaults %+v", o)
	}
}

func TestRepairTolerationsFromTheEnvironmentAndFlags(t *testing.T) {
	o, err := parse(t, with(validEnv, "REPAIR_NOT_READY_TOLERATION", "90s"), "--repair-node-problem-toleration", "1h")
	if err != nil {
		t.Fatal(err)
	}
	if want := (cloudprovider.RepairTolerations{NotReady: 90 * time.Second, NodeProblem: time.Hour}); o.Repair != want {
		t.Fatalf("repair tolerations %+v, want %+v", o.Repair, want)
	}
}

func TestFlagsOverrideTheEnvironment(t *testing.T) {
	// A bad variable that a flag overrides is not read at all.
	o, err := parse(t, with(with(validEnv, "CLUSTER_NAME", "from-env"), "CLOUDSTACK_RATE_LIMIT", "ten"), "--cluster-name", "from-flag", "--cloudstack-rate-limit", "5")
	if err != nil {
		t.Fatal(err)
	}
	if o.ClusterName != "from-flag" || o.RateLimit != 5 {
		t.Fatalf("cluster name %q and rate %v, want the flags'", o.ClusterName, o.RateLimit)
	}
}

func TestOptionsFromACloudConfigFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cloud-config")
	if err := os.WriteFile(path, []byte("[Global]\napi-url = http://cs:8080/client/api\napi-key = fk\nsecret-key = fs\nssl-no-verify = yes\nproject-id = p-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := parse(t, map[string]string{"CLUSTER_NAME": "prod", "CLOUDSTACK_CLOUD_CONFIG": path})
	if err != nil {
		t.Fatal(err)
	}
	want := csapi.Credentials{APIURL: "http://cs:8080/client/api", APIKey: "fk", SecretKey: "fs", VerifySSL: false, ProjectID: "p-1"}
	if got := o.Credentials(); got != want {
		t.Fatalf("credentials %v, want the file's %v", got, want)
	}
}

func TestTheNodeRegionIsTheSettingThenTheCloudConfigs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cloud-config")
	if err := os.WriteFile(path, []byte("[Global]\napi-url = http://cs:8080/client/api\napi-key = fk\nsecret-key = fs\nregion = eu-west\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"CLUSTER_NAME": "prod", "CLOUDSTACK_CLOUD_CONFIG": path}
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{env, "eu-west"},
		{with(env, "CLOUDSTACK_REGION", "override"), "override"},
		{validEnv, ""}, // the zone's name, as the CCM without a region
	} {
		o, err := parse(t, tc.env)
		if err != nil {
			t.Fatal(err)
		}
		if got := o.NodeRegion(); got != tc.want {
			t.Errorf("NodeRegion() = %q, want %q", got, tc.want)
		}
	}
}

// Every refusal is one line naming the variable, its flag and what it accepts.
func TestOptionsRefuseBadSettings(t *testing.T) {
	for _, c := range []struct {
		env, value, want string
	}{
		{"CLOUDSTACK_API_URL", "not a url", "http or https URL"},
		{"CLOUDSTACK_API_URL", "ftp://cloud.example/client/api", "http or https URL"},
		{"CLOUDSTACK_API_URL", "https:///client/api", "with a host"},
		{"CLOUDSTACK_VERIFY_SSL", "no", "true, false, 1 or 0"},
		{"CLOUDSTACK_VERIFY_SSL", "TRUE", "true, false, 1 or 0"},
		{"CLOUDSTACK_RATE_LIMIT", "ten", "positive number"},
		{"CLOUDSTACK_RATE_LIMIT", "-3", "positive number"},
		{"CLOUDSTACK_RATE_LIMIT", "NaN", "positive number"},
		{"CLOUDSTACK_RATE_LIMIT", "+Inf", "positive number"},
		{"CLOUDSTACK_RATE_BURST", "-5", "positive whole number"},
		{"CLOUDSTACK_RATE_BURST", "2.5", "positive whole number"},
		{"CLOUDSTACK_JOB_POLL_INTERVAL", "abc", "positive duration"},
		{"CLOUDSTACK_JOB_POLL_INTERVAL", "0s", "positive duration"},
		{"CLUSTER_NAME", "my cluster", "at most 63"},
		{"CLOUDSTACK_REGION", "eu/west", "at most 63"},
		{"PRICING_CONFIGMAP", "Prices", "ConfigMap name"},
		{"SYSTEM_NAMESPACE", "kube.system", "namespace name"},
		{"API_SERVER_ENDPOINT", "10.0.0.1", "host:port"},
		{"API_SERVER_ENDPOINT", "10.0.0.1:99999", "host:port"},
		{"REPAIR_NOT_READY_TOLERATION", "30", "positive duration, such as 30m"},
		{"REPAIR_NOT_READY_TOLERATION", "-1m", "positive duration"},
		{"REPAIR_NODE_PROBLEM_TOLERATION", "0s", "positive duration, such as 5m"},
	} {
		t.Run(c.env+"="+c.value, func(t *testing.T) {
			_, err := parse(t, with(validEnv, c.env, c.value))
			expectRefusal(t, err, c.env, c.want)
			if !strings.Contains(err.Error(), "--") || !strings.Contains(err.Error(), `"`+c.value+`"`) {
				t.Errorf("error %q names neither the flag nor the value", err)
			}
		})
	}
}

func TestOptionsRefuseMissingSettings(t *testing.T) {
	for _, env := range []string{"CLUSTER_NAME", "CLOUDSTACK_API_URL", "CLOUDSTACK_API_KEY", "CLOUDSTACK_SECRET_KEY"} {
		t.Run(env, func(t *testing.T) {
			_, err := parse(t, with(validEnv, env, ""))
			expectRefusal(t, err, env, "is not set")
		})
	}
}

func TestOptionsLeaveTheClusterNameToCKSWhenTheNodeIsKnown(t *testing.T) {
	o, err := parse(t, with(with(validEnv, "CLUSTER_NAME", ""), "NODE_NAME", "prod-control-1"))
	if err != nil {
		t.Fatalf("CLUSTER_NAME unset with NODE_NAME set: %v, want it accepted until the CKS cluster is looked up", err)
	}
	if o.NodeName != "prod-control-1" || o.ClusterName != "" {
		t.Errorf("node %q, cluster %q", o.NodeName, o.ClusterName)
	}
	_, err = parse(t, with(validEnv, "CLUSTER_NAME", ""))
	expectRefusal(t, err, "CLUSTER_NAME", "or set NODE_NAME in a CloudStack Kubernetes Service cluster")
}

func TestOptionsNeverRepeatASecret(t *testing.T) {
	_, err := parse(t, with(with(validEnv, "CLOUDSTACK_CLOUD_CONFIG", "/nonexistent"), "CLOUDSTACK_SECRET_KEY", "very-secret"))
	if err == nil || strings.Contains(err.Error(), "very-secret") {
		t.Fatalf("error %v, want a refusal that does not quote the secret key", err)
	}
}

func TestOptionsRefuseTwoCredentialSources(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cloud-config")
	if err := os.WriteFile(path, []byte("[Global]\napi-url = http://cs/client/api\napi-key = k\nsecret-key = s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := parse(t, with(validEnv, "CLOUDSTACK_CLOUD_CONFIG", path))
	expectRefusal(t, err, "CLOUDSTACK_CLOUD_CONFIG", "CLOUDSTACK_API_URL")
}

func TestOptionsRefuseABadCloudConfigFile(t *testing.T) {
	for name, content := range map[string]string{
		"bad boolean":     "[Global]\napi-url = http://cs/client/api\napi-key = k\nsecret-key = s\nssl-no-verify = maybe\n",
		"unknown key":     "[Global]\napi-url = http://cs/client/api\napi-key = k\nsecret-key = s\napi-secret = s\n",
		"missing key":     "[Global]\napi-url = http://cs/client/api\napi-key = k\n",
		"bad URL":         "[Global]\napi-url = cs.example\napi-key = k\nsecret-key = s\n",
		"not an INI file": "api-url: http://cs/client/api\n",
		"no such file":    "",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "cloud-config")
			if content != "" {
				if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			_, err := parse(t, map[string]string{"CLUSTER_NAME": "prod", "CLOUDSTACK_CLOUD_CONFIG": path})
			expectRefusal(t, err, "CLOUDSTACK_CLOUD_CONFIG", path)
		})
	}
}

func TestACABundleIsReadWithEitherCredentialSource(t *testing.T) {
	ca := test.CABundle(t)
	cloudConfig := filepath.Join(t.TempDir(), "cloud-config")
	if err := os.WriteFile(cloudConfig, []byte("[Global]\napi-url = https://cs/client/api\napi-key = k\nsecret-key = s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, env := range map[string]map[string]string{
		"environment":  with(validEnv, "CLOUDSTACK_CA_FILE", ca),
		"cloud-config": {"CLUSTER_NAME": "prod", "CLOUDSTACK_CLOUD_CONFIG": cloudConfig, "CLOUDSTACK_CA_FILE": ca},
	} {
		t.Run(name, func(t *testing.T) {
			o, err := parse(t, env)
			if err != nil {
				t.Fatal(err)
			}
			if o.RootCAs() == nil {
				t.Fatal("the CA bundle was not read")
			}
		})
	}
	o, err := parse(t, validEnv)
	if err != nil || o.RootCAs() != nil {
		t.Fatalf("without CLOUDSTACK_CA_FILE: roots %v, error %v; want the system's roots (nil)", o.RootCAs(), err)
	}
}

func TestOptionsRefuseABadCABundle(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(notPEM, []byte("MIIB...base64 without its PEM armour\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	insecureCloudConfig := filepath.Join(dir, "cloud-config")
	if err := os.WriteFile(insecureCloudConfig, []byte("[Global]\napi-url = https://cs/client/api\napi-key = k\nsecret-key = s\nssl-no-verify = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ca := test.CABundle(t)
	for _, c := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"missing file", with(validEnv, "CLOUDSTACK_CA_FILE", filepath.Join(dir, "missing.pem")), []string{"missing.pem", "no such file", "readable PEM file"}},
		{"no certificate", with(validEnv, "CLOUDSTACK_CA_FILE", notPEM), []string{notPEM, "holds no PEM certificate"}},
		{"verification off", with(with(validEnv, "CLOUDSTACK_CA_FILE", ca), "CLOUDSTACK_VERIFY_SSL", "false"), []string{"CLOUDSTACK_VERIFY_SSL", "drop one or the other"}},
		{"cloud-config without verification", map[string]string{"CLUSTER_NAME": "prod", "CLOUDSTACK_CLOUD_CONFIG": insecureCloudConfig, "CLOUDSTACK_CA_FILE": ca},
			[]string{"ssl-no-verify", "drop one or the other"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse(t, c.env)
			for _, want := range c.want {
				expectRefusal(t, err, "CLOUDSTACK_CA_FILE", want)
			}
		})
	}
}

func expectRefusal(t *testing.T, err error, env, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s accepted, want a refusal", env)
	}
	if text := err.Error(); !strings.Contains(text, env) || !strings.Contains(text, want) || strings.Contains(text, "\n") {
		t.Fatalf("refusal %q is not one line naming %s and %q", text, env, want)
	}
}

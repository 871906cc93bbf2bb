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
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeCloudConfig(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cloud-config")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadCloudConfig(t *testing.T) {
	path := writeCloudConfig(t, `[Global]
api-url = https://cloud.example/client/api
api-key = "the-key"
secret-key = the-secret ; a comment
project-id = p-1
zone = zone-a
region = eu-west
ssl-no-verify = true
`)
	creds, err := LoadCloudConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	want := Credentials{APIURL: "https://cloud.example/client/api", APIKey: "the-key", SecretKey: "the-secret", ProjectID: "p-1", Zone: "zone-a", Region: "eu-west", VerifySSL: false}
	if creds != want {
		t.Fatalf("LoadCloudConfig = %#v, want %#v", creds, want)
	}
	if s := creds.String(); strings.Contains(s, "the-key") || strings.Contains(s, "the-secret") {
		t.Fatalf("String() leaks a key: %s", s)
	}
}

// The CCM reads its file with gcfg: these are its rules, which the provider follows.
func TestLoadCloudConfigReadsAsTheCCMDoes(t *testing.T) {
	const keys = "[Global]\napi-url = https://cloud.example/client/api\napi-key = k\n"
	for _, c := range []struct {
		name, content string
		verifySSL     bool
		secretKey     string
	}{
		{"yes", keys + "secret-key = s\nssl-no-verify = yes\n", false, "s"},
		{"off", keys + "secret-key = s\nssl-no-verify = off\n", true, "s"},
		{"a bare key is true", keys + "secret-key = s\nssl-no-verify\n", false, "s"},
		{"single quotes are part of the value", keys + "secret-key = 's'\n", true, "'s'"},
		{"escaped quote", keys + `secret-key = "a\"b"` + "\n", true, `a"b`},
	} {
		t.Run(c.name, func(t *testing.T) {
			creds, err := LoadCloudConfig(writeCloudConfig(t, c.content))
			if err != nil {
				t.Fatal(err)
			}
			if creds.VerifySSL != c.verifySSL || creds.SecretKey != c.secretKey {
				t.Fatalf("VerifySSL %t, secret key %q; want %t, %q", creds.VerifySSL, creds.SecretKey, c.verifySSL, c.secretKey)
			}
		})
	}
}

func TestLoadCloudConfigRefusesWhatTheCCMRefuses(t *testing.T) {
	const good = "[Global]\napi-url = https://cloud.example/client/api\napi-key = k\nsecret-key = s\n"
	for name, c := range map[string]struct{ content, want string }{
		"a boolean it does not know":   {good + "ssl-no-verify = maybe\n", `failed to parse bool`},
		"an unknown key":               {good + "apikey = k\n", `variable "apikey"`},
		"a character it does not take": {good + "api_key = k\n", "illegal character"},
		"an unknown section":           {good + "[Other]\nx = 1\n", `section "Other"`},
		"a quote left open":            {good + "zone = \"zone-a\n", "string not terminated"},
		"no section":                   {"api-url = https://cloud.example/client/api\n", "expected section header"},
		"a missing key":                {"[Global]\napi-url = https://cloud.example/client/api\n", "sets no api-key, secret-key"},
		"a URL without scheme":         {strings.Replace(good, "https://", "", 1), "want an http or https URL"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := LoadCloudConfig(writeCloudConfig(t, c.content))
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line saying %q", err, c.want)
			}
		})
	}
}

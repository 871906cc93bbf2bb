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

package cloudstack

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadCloudConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cloud-config")
	content := `[Global]
api-url = https://cloud.example/client/api
api-key = "the-key"
secret-key = the-secret
project-id = p-1
zone = zone-a
ssl-no-verify = true
[Other]
api-key = ignored
`
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	creds, err := LoadCloudConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	want := Credentials{APIURL: "https://cloud.example/client/api", APIKey: "the-key", SecretKey: "the-secret", ProjectID: "p-1", Zone: "zone-a", VerifySSL: false}
	if creds != want {
		t.Fatalf("LoadCloudConfig = %#v, want %#v", creds, want)
	}
	if s := creds.String(); strings.Contains(s, "the-key") || strings.Contains(s, "the-secret") {
		t.Fatalf("String() leaks a key: %s", s)
	}
}

func TestLoadCloudConfigRejectsBadBoolean(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cloud-config")
	if err := os.WriteFile(path, []byte("[Global]\nssl-no-verify = maybe\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCloudConfig(path); err == nil {
		t.Fatal("expected an error for ssl-no-verify = maybe")
	}
}

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
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestCloudConfigReloaderSwitchesKeys(t *testing.T) {
	var mu sync.Mutex
	var keys []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys = append(keys, r.URL.Query().Get("apiKey"))
		mu.Unlock()
		_, _ = w.Write([]byte(`{"listzonesresponse":{}}`))
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "cloud-config")
	write := func(key string) {
		if err := os.WriteFile(path, []byte("[Global]\napi-url = "+srv.URL+"\napi-key = "+key+"\nsecret-key = s\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("old")
	creds, err := LoadCloudConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(creds)
	if err != nil {
		t.Fatal(err)
	}
	r := NewCloudConfigReloader(path, c, creds, time.Hour)
	ctx := context.Background()
	write("new")
	r.Reload(ctx)
	if err := os.WriteFile(path, []byte("not an ini file without keys"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.Reload(ctx) // a broken file must keep the last good credentials
	if _, err := c.ListZones(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(keys) != 1 || keys[0] != "new" {
		t.Fatalf("calls used keys %v, want [new]", keys)
	}
}

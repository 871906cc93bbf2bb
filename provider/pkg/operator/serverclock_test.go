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
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

func TestAPIServerClockIsTheSecondTheAPIServerAnsweredIn(t *testing.T) {
	env := &envtest.Environment{}
	cfg, err := test.StartAPIServer(env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	before := time.Now().Truncate(time.Second)
	got, err := apiServerClock(cfg)(t.Context())
	after := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	// The API server runs on this machine's clock and an HTTP Date is whole seconds.
	if got.Before(before) || got.After(after) || !got.Equal(got.Truncate(time.Second)) {
		t.Errorf("API server clock %s, want the whole second between %s and %s", got, before, after)
	}
}

func TestAPIServerClockRefusesAnAnswerItCannotDate(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer func(http.ResponseWriter)
		want   string
	}{
		{"refused", func(w http.ResponseWriter) { w.WriteHeader(http.StatusForbidden) }, "status 403"},
		{"undated", func(w http.ResponseWriter) { w.Header()["Date"] = nil }, "reading the Date"},
	} {
		t.Run(c.name, func(t *testing.T) {
			server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/version" {
					t.Errorf("asked for %s, want /version", r.URL.Path)
				}
				c.answer(w)
			}))
			t.Cleanup(server.Close)
			_, err := apiServerClock(&rest.Config{Host: server.URL})(t.Context())
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

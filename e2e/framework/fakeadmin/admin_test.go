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

package fakeadmin

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

type recorded struct {
	method, path string
	body         map[string]any
}

func server(t *testing.T, status int, answer string) (*Client, *[]recorded) {
	t.Helper()
	var calls []recorded
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		rec := recorded{method: r.Method, path: r.URL.EscapedPath()}
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &rec.body); err != nil {
				t.Errorf("body is not JSON: %s", raw)
			}
		}
		calls = append(calls, rec)
		w.WriteHeader(status)
		_, _ = w.Write([]byte(answer))
	}))
	t.Cleanup(srv.Close)
	return New(srv.URL), &calls
}

func TestSetFaultsSendsTheFakesSchema(t *testing.T) {
	c, calls := server(t, http.StatusOK, "{}")
	err := c.SetFaults(t.Context(), Faults{
		Throttle: Throttle{Max: 25, Interval: "1s"},
		Rules:    []Rule{{Command: "deployVirtualMachine", Match: map[string]string{"zoneid": "z"}, Code: 533, InJob: true}},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := (*calls)[0]
	if got.method != http.MethodPut || got.path != "/admin/faults" {
		t.Fatalf("%s %s", got.method, got.path)
	}
	raw, _ := json.Marshal(got.body)
	for _, want := range []string{`"throttle":{"interval":"1s","max":25}`, `"inJob":true`, `"code":533`, `"match":{"zoneid":"z"}`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("body %s lacks %s", raw, want)
		}
	}
}

func TestClearFaultsTurnsTheThrottleOff(t *testing.T) {
	c, calls := server(t, http.StatusOK, "{}")
	if err := c.ClearFaults(t.Context()); err != nil {
		t.Fatal(err)
	}
	throttle, _ := (*calls)[0].body["throttle"].(map[string]any)
	if throttle["max"] != float64(0) || (*calls)[0].body["rules"] != nil {
		t.Errorf("body %v", (*calls)[0].body)
	}
}

func TestDestroyVMEscapesTheID(t *testing.T) {
	c, calls := server(t, http.StatusOK, `{"state":"Destroyed"}`)
	if err := c.DestroyVM(t.Context(), "a/b"); err != nil {
		t.Fatal(err)
	}
	if got := (*calls)[0]; got.method != http.MethodPost || got.path != "/admin/vms/a%2Fb/destroy" {
		t.Errorf("%s %s", got.method, got.path)
	}
}

func TestErrorsCarryTheFakesAnswer(t *testing.T) {
	c, _ := server(t, http.StatusNotFound, `{"error":"vm x not found"}`)
	err := c.DestroyVM(t.Context(), "x")
	if err == nil || !strings.Contains(err.Error(), "vm x not found") || !strings.Contains(err.Error(), "404") {
		t.Fatalf("error = %v", err)
	}
}

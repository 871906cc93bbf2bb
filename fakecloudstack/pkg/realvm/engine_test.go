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

package realvm

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// dockerStub answers the Engine API as docker 20.10 does for one container "vm-a".
func dockerStub(t *testing.T) (*Docker, func() []string, *createRequest) {
	t.Helper()
	var mu sync.Mutex
	var calls []string
	created := &createRequest{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls = append(calls, r.Method+" "+r.URL.RequestURI())
		mu.Unlock()
		switch {
		case r.URL.Path == "/v1.41/containers/create":
			_ = json.NewDecoder(r.Body).Decode(created)
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, `{"Id":"0123"}`)
		case r.URL.Path == "/v1.41/containers/vm-a/start":
			w.WriteHeader(http.StatusNotModified)
		case r.URL.Path == "/v1.41/containers/vm-a/json":
			_, _ = io.WriteString(w, `{"Name":"/vm-a","State":{"Running":true},"Config":{"Labels":{"k":"v"}},
				"HostConfig":{"NetworkMode":"kind"},"NetworkSettings":{"Networks":{"kind":{"IPAddress":"172.18.0.3"}}}}`)
		case r.URL.Path == "/v1.41/containers/vm-a/archive" && r.Header.Get("Content-Type") == "application/x-tar":
			w.WriteHeader(http.StatusOK)
		case r.URL.Path == "/v1.41/containers/vm-a/archive" && r.Method == http.MethodGet:
			_, _ = w.Write(tarOf(t, r.URL.Query().Get("path")))
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"message":"No such container"}`)
		}
	}))
	t.Cleanup(srv.Close)
	d, err := NewDocker(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return d, func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(calls) }, created
}

func TestDockerCreatesAKindNodeContainerAndSeedsIt(t *testing.T) {
	d, calls, created := dockerStub(t)
	spec := ContainerSpec{Name: "vm-a", Image: "node:1", Network: "kind", Labels: map[string]string{LabelVM: "a"}}
	if err := d.Create(t.Context(), spec, []byte("tar")); err != nil {
		t.Fatal(err)
	}
	if got := calls(); !slices.Equal(got, []string{"POST /v1.41/containers/create?name=vm-a", "PUT /v1.41/containers/vm-a/archive?path=/"}) {
		t.Errorf("calls %v", got)
	}
	h := created.HostConfig
	if created.Hostname != "vm-a" || created.Image != "node:1" || created.Labels[LabelVM] != "a" || !h.Privileged ||
		h.NetworkMode != "kind" || h.CgroupnsMode != "private" || h.Tmpfs["/run"] != "" || !slices.Contains(h.Binds, "/lib/modules:/lib/modules:ro") {
		t.Errorf("created %+v", created)
	}
	if _, ok := created.Volumes["/var"]; !ok {
		t.Error("no volume for /var: containerd's snapshots cannot live on the container's overlay")
	}
}

func TestDockerReadsStateAndTellsMissingContainers(t *testing.T) {
	d, _, _ := dockerStub(t)
	ctx := t.Context()
	c, ok, err := d.Inspect(ctx, "vm-a")
	if err != nil || !ok || c.Name != "vm-a" || !c.Running || c.IP != "172.18.0.3" || c.Labels["k"] != "v" {
		t.Errorf("inspect %+v %v %v", c, ok, err)
	}
	if _, ok, err := d.Inspect(ctx, "vm-b"); ok || err != nil {
		t.Errorf("a missing container: %v %v", ok, err)
	}
	if err := d.Start(ctx, "vm-a"); err != nil {
		t.Errorf("an already started container (304): %v", err)
	}
	if err := d.Remove(ctx, "vm-b"); err != nil {
		t.Errorf("removing a missing container: %v", err)
	}
	if err := d.Stop(ctx, "vm-b"); err == nil || !isNotFound(err) {
		t.Errorf("stopping a missing container gave %v", err)
	}
}

// tarOf is what the engine answers for path: an archive of the file, named by its base name,
// or of the directory /etc.
func tarOf(t *testing.T, path string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	h := &tar.Header{Typeflag: tar.TypeReg, Name: filepath.Base(path), Mode: 0o644, Size: int64(len(path))}
	if path == "/etc" {
		h = &tar.Header{Typeflag: tar.TypeDir, Name: "etc/", Mode: 0o755}
	}
	if err := w.WriteHeader(h); err != nil {
		t.Fatal(err)
	}
	if h.Typeflag == tar.TypeReg {
		_, _ = io.WriteString(w, path)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDockerReadsAFileOfTheContainer(t *testing.T) {
	d, calls, _ := dockerStub(t)
	ctx := t.Context()
	got, err := d.ReadFile(ctx, "vm-a", "/etc/karpenter-node")
	if err != nil || string(got) != "/etc/karpenter-node" {
		t.Errorf("read %q, %v", got, err)
	}
	if c := calls(); !slices.Equal(c, []string{"GET /v1.41/containers/vm-a/archive?path=%2Fetc%2Fkarpenter-node"}) {
		t.Errorf("calls %v", c)
	}
	if _, err := d.ReadFile(ctx, "vm-a", "/etc"); err == nil {
		t.Error("read a directory as a file")
	}
	if _, err := d.ReadFile(ctx, "vm-b", "/etc/hostname"); !isNotFound(err) {
		t.Errorf("a missing container gave %v", err)
	}
}

func TestDockerHostMustBeASocketOrHTTP(t *testing.T) {
	if _, err := NewDocker("tcp://1.2.3.4:2375"); err == nil {
		t.Error("accepted tcp://")
	}
	if _, err := NewDocker("unix:///var/run/docker.sock"); err != nil {
		t.Error(err)
	}
}

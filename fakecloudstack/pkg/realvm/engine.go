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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Engine is the container engine calls the runner makes.
type Engine interface {
	// Create creates a stopped container and unpacks seed (a tar archive) at its /.
	Create(ctx context.Context, spec ContainerSpec, seed []byte) error
	Start(ctx context.Context, name string) error
	Stop(ctx context.Context, name string) error
	Restart(ctx context.Context, name string) error
	// Remove removes the container and its anonymous volumes; a missing one is not an error.
	Remove(ctx context.Context, name string) error
	// Inspect reports the container; ok is false when it does not exist.
	Inspect(ctx context.Context, name string) (c Container, ok bool, err error)
	// List lists the containers carrying the label key=value.
	List(ctx context.Context, key, value string) ([]Container, error)
}

// ContainerSpec is what the runner asks of a container.
type ContainerSpec struct {
	Name, Image, Network string
	Labels               map[string]string
}

// Container is what the runner reads back.
type Container struct {
	Name    string
	Running bool
	// IP is the address on the spec's network, empty while the container is stopped.
	IP     string
	Labels map[string]string
}

// Docker speaks the Docker Engine API (v1.41, docker 20.10 and later) over its socket.
type Docker struct {
	client *http.Client
	base   string
}

var _ Engine = (*Docker)(nil)

const dockerAPI = "/v1.41"

// NewDocker reaches the engine at host: unix:///path, or http://host:port for tests.
func NewDocker(host string) (*Docker, error) {
	u, err := url.Parse(host)
	if err != nil {
		return nil, fmt.Errorf("parsing the docker host %q, %w", host, err)
	}
	switch u.Scheme {
	case "unix":
		socket := u.Path
		dial := func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", socket)
		}
		return &Docker{client: &http.Client{Transport: &http.Transport{DialContext: dial}}, base: "http://docker" + dockerAPI}, nil
	case "http":
		return &Docker{client: http.DefaultClient, base: host + dockerAPI}, nil
	}
	return nil, fmt.Errorf("docker host %q: want unix:///path or http://host:port", host)
}

// createRequest is a kind node's `docker run` (kind's docker provider): privileged, its own
// cgroup namespace, tmpfs /run and /tmp, an anonymous volume for /var (containerd's
// snapshots cannot live on the container's overlay) and the host's kernel modules.
type createRequest struct {
	Hostname   string              `json:"Hostname"`
	Image      string              `json:"Image"`
	Tty        bool                `json:"Tty"`
	Labels     map[string]string   `json:"Labels"`
	Volumes    map[string]struct{} `json:"Volumes"`
	HostConfig hostConfig          `json:"HostConfig"`
}

type hostConfig struct {
	Privileged    bool              `json:"Privileged"`
	SecurityOpt   []string          `json:"SecurityOpt"`
	Tmpfs         map[string]string `json:"Tmpfs"`
	Binds         []string          `json:"Binds"`
	NetworkMode   string            `json:"NetworkMode"`
	CgroupnsMode  string            `json:"CgroupnsMode"`
	Init          bool              `json:"Init"`
	RestartPolicy struct {
		Name string `json:"Name"`
	} `json:"RestartPolicy"`
}

func (d *Docker) Create(ctx context.Context, spec ContainerSpec, seed []byte) error {
	req := createRequest{
		Hostname: spec.Name, Image: spec.Image, Tty: true, Labels: spec.Labels,
		Volumes: map[string]struct{}{"/var": {}},
		HostConfig: hostConfig{
			Privileged:   true,
			SecurityOpt:  []string{"seccomp=unconfined", "apparmor=unconfined"},
			Tmpfs:        map[string]string{"/tmp": "", "/run": ""},
			Binds:        []string{"/lib/modules:/lib/modules:ro"},
			NetworkMode:  spec.Network,
			CgroupnsMode: "private",
		},
	}
	// A VM stays down until CloudStack starts it again, whatever happens to its guest.
	req.HostConfig.RestartPolicy.Name = "no"
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if err := d.call(ctx, http.MethodPost, "/containers/create?name="+url.QueryEscape(spec.Name), "application/json", body, nil); err != nil {
		return fmt.Errorf("creating container %s, %w", spec.Name, err)
	}
	if err := d.call(ctx, http.MethodPut, "/containers/"+spec.Name+"/archive?path=/", "application/x-tar", seed, nil); err != nil {
		return fmt.Errorf("writing the seed into container %s, %w", spec.Name, err)
	}
	return nil
}

func (d *Docker) Start(ctx context.Context, name string) error {
	return d.action(ctx, name, "start", "starting")
}

func (d *Docker) Stop(ctx context.Context, name string) error {
	return d.action(ctx, name, "stop", "stopping")
}

func (d *Docker) Restart(ctx context.Context, name string) error {
	return d.action(ctx, name, "restart", "restarting")
}

func (d *Docker) action(ctx context.Context, name, verb, doing string) error {
	if err := d.call(ctx, http.MethodPost, "/containers/"+name+"/"+verb, "", nil, nil); err != nil {
		return fmt.Errorf("%s container %s, %w", doing, name, err)
	}
	return nil
}

func (d *Docker) Remove(ctx context.Context, name string) error {
	err := d.call(ctx, http.MethodDelete, "/containers/"+name+"?force=1&v=1", "", nil, nil)
	if err != nil && !isNotFound(err) {
		return fmt.Errorf("removing container %s, %w", name, err)
	}
	return nil
}

// inspected is the part of a container's inspection the runner reads.
type inspected struct {
	Name   string                 `json:"Name"`
	State  struct{ Running bool } `json:"State"`
	Config struct {
		Labels map[string]string `json:"Labels"`
	} `json:"Config"`
	HostConfig      struct{ NetworkMode string } `json:"HostConfig"`
	NetworkSettings struct {
		Networks map[string]struct{ IPAddress string } `json:"Networks"`
	} `json:"NetworkSettings"`
}

func (d *Docker) Inspect(ctx context.Context, name string) (Container, bool, error) {
	var got inspected
	err := d.call(ctx, http.MethodGet, "/containers/"+name+"/json", "", nil, &got)
	if isNotFound(err) {
		return Container{}, false, nil
	}
	if err != nil {
		return Container{}, false, fmt.Errorf("inspecting container %s, %w", name, err)
	}
	c := Container{Name: strings.TrimPrefix(got.Name, "/"), Running: got.State.Running, Labels: got.Config.Labels}
	c.IP = got.NetworkSettings.Networks[got.HostConfig.NetworkMode].IPAddress
	return c, true, nil
}

func (d *Docker) List(ctx context.Context, key, value string) ([]Container, error) {
	filters, err := json.Marshal(map[string][]string{"label": {key + "=" + value}})
	if err != nil {
		return nil, err
	}
	var got []struct {
		Names  []string
		State  string
		Labels map[string]string
	}
	if err := d.call(ctx, http.MethodGet, "/containers/json?all=1&filters="+url.QueryEscape(string(filters)), "", nil, &got); err != nil {
		return nil, fmt.Errorf("listing containers, %w", err)
	}
	out := make([]Container, 0, len(got))
	for _, c := range got {
		name := ""
		if len(c.Names) > 0 {
			name = strings.TrimPrefix(c.Names[0], "/")
		}
		out = append(out, Container{Name: name, Running: c.State == "running", Labels: c.Labels})
	}
	return out, nil
}

// ReadFile reads a regular file of the container as `docker cp` does: the engine answers a tar
// archive that holds it. Tests read what a VM's guest wrote with it.
func (d *Docker) ReadFile(ctx context.Context, name, path string) ([]byte, error) {
	var archive []byte
	if err := d.call(ctx, http.MethodGet, "/containers/"+name+"/archive?path="+url.QueryEscape(path), "", nil, &archive); err != nil {
		return nil, fmt.Errorf("reading %s of container %s, %w", path, name, err)
	}
	tr := tar.NewReader(bytes.NewReader(archive))
	h, err := tr.Next()
	if err != nil {
		return nil, fmt.Errorf("reading the archive of %s of container %s, %w", path, name, err)
	}
	if h.Typeflag != tar.TypeReg {
		return nil, fmt.Errorf("%s of container %s is no regular file", path, name)
	}
	return io.ReadAll(tr)
}

// apiError is an answer of the engine other than 2xx.
type apiError struct {
	status  int
	message string
}

func (e *apiError) Error() string { return fmt.Sprintf("docker answered %d: %s", e.status, e.message) }

func isNotFound(err error) bool {
	var e *apiError
	return errors.As(err, &e) && e.status == http.StatusNotFound
}

// call sends one request; out, when set, receives the JSON answer, or the raw one for a
// *[]byte. 304 (already started or stopped) counts as done.
func (d *Docker) call(ctx context.Context, method, path, contentType string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, d.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode == http.StatusNotModified {
		return nil
	}
	if resp.StatusCode/100 != 2 {
		var msg struct{ Message string }
		_ = json.Unmarshal(raw, &msg)
		return &apiError{status: resp.StatusCode, message: msg.Message}
	}
	switch out := out.(type) {
	case nil:
		return nil
	case *[]byte:
		*out = raw
		return nil
	default:
		return json.Unmarshal(raw, out)
	}
}

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

package procstat

import (
	"strings"
	"testing"
)

const (
	appID   = "3f5c0e0b6a1d4c2e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e"
	pauseID = "aa11bb22cc33dd44ee55ff6677889900aa11bb22cc33dd44ee55ff6677889900"
)

// fakeProc writes a /proc with the processes of a kind node as the host sees them.
func fakeProc(t *testing.T, procs map[int]process) string {
	t.Helper()
	root, _ := fixture(t, procs, nil)
	return root
}

func podCgroup(id string) string {
	return "12:memory:/docker/node/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod1.slice/cri-containerd-" + id + ".scope\n" +
		"1:name=systemd:/docker/node/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod1.slice/cri-containerd-" + id + ".scope\n"
}

func TestContainerProcessIsTheContainersTopProcess(t *testing.T) {
	root := fakeProc(t, map[int]process{
		1:   {ppid: 0, cgroup: "12:memory:/\n"},
		90:  {ppid: 1, cgroup: "12:memory:/docker/node/system.slice/containerd.service\n"}, // the shim
		100: {ppid: 90, cgroup: podCgroup(pauseID)},
		101: {ppid: 90, cgroup: podCgroup(appID)},
		102: {ppid: 101, cgroup: podCgroup(appID)}, // a child of the app, in its cgroup
	})
	pid, err := ContainerProcess(root, appID)
	if err != nil {
		t.Fatal(err)
	}
	if pid != 101 {
		t.Errorf("pid = %d, want 101, the app (not its child 102 nor the pause container 100)", pid)
	}
}

func TestContainerProcessNamesWhatIsWrong(t *testing.T) {
	two := fakeProc(t, map[int]process{101: {ppid: 90, cgroup: podCgroup(appID)}, 103: {ppid: 91, cgroup: podCgroup(appID)}})
	for name, c := range map[string]struct {
		root, id, want string
	}{
		"no such container": {fakeProc(t, map[int]process{100: {ppid: 90, cgroup: podCgroup(pauseID)}}), appID, "no process of container"},
		"two top processes": {two, appID, "2 processes whose parent is outside it"},
		"not an ID":         {two, "abc", "not a container ID"},
	} {
		if _, err := ContainerProcess(c.root, c.id); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", name, err, c.want)
		}
	}
}

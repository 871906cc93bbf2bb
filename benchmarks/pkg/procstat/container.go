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
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ProcRoot is the host's /proc. A kind node is a container of the host's kernel, so the
// processes of its pods are processes of the host, with host pids, listed there too.
const ProcRoot = "/proc"

// ContainerProcess finds, under procRoot, the main process of the container with the given
// ID (the hex part of a pod's containerID, "containerd://<id>"): the process whose cgroup
// path names the container and whose parent's does not. containerd names each container's
// cgroup after its ID (cri-containerd-<id>.scope with systemd, .../<id> without), so the ID
// tells it apart from every other container, the pod's pause container included.
func ContainerProcess(procRoot, containerID string) (int, error) {
	if len(containerID) < 12 {
		return 0, fmt.Errorf("finding the process of container %q, not a container ID", containerID)
	}
	entries, err := os.ReadDir(procRoot)
	if err != nil {
		return 0, fmt.Errorf("listing processes, %w", err)
	}
	inContainer := map[int]bool{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue // not a process
		}
		// A process may exit between the listing and the read: it is not the one sought.
		cgroup, err := os.ReadFile(filepath.Join(procRoot, e.Name(), "cgroup"))
		if err == nil && strings.Contains(string(cgroup), containerID) {
			inContainer[pid] = true
		}
	}
	var main []int
	for pid := range inContainer {
		stat, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
		if err != nil {
			continue
		}
		parent, err := parseParent(string(stat))
		if err != nil {
			return 0, err
		}
		if !inContainer[parent] {
			main = append(main, pid)
		}
	}
	switch len(main) {
	case 1:
		return main[0], nil
	case 0:
		return 0, fmt.Errorf("no process of container %s in %s: is this the host of the kind node?", containerID, procRoot)
	default:
		return 0, fmt.Errorf("container %s has %d processes whose parent is outside it (%v), want one", containerID, len(main), main)
	}
}

// parseParent reads the parent pid (field 4) of a /proc/<pid>/stat line.
func parseParent(stat string) (int, error) {
	fields, err := statFields(stat)
	if err != nil {
		return 0, err
	}
	if len(fields) < 2 {
		return 0, fmt.Errorf("parsing stat %q, no parent pid", stat)
	}
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		return 0, fmt.Errorf("parsing stat's parent pid, %w", err)
	}
	return ppid, nil
}

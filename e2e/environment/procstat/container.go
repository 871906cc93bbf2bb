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
	"strings"

	"github.com/prometheus/procfs"
)

// ContainerProcess finds, under procRoot, the main process of the container with the given
// ID (the hex part of a pod's containerID, "containerd://<id>"): the process whose cgroup
// path names the container and whose parent's does not. containerd names each container's
// cgroup after its ID (cri-containerd-<id>.scope with systemd, .../<id> without), so the ID
// tells it apart from every other container, the pod's pause container included.
func ContainerProcess(procRoot, containerID string) (int, error) {
	if len(containerID) < 12 {
		return 0, fmt.Errorf("finding the process of container %q, not a container ID", containerID)
	}
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		return 0, fmt.Errorf("opening %s, %w", procRoot, err)
	}
	procs, err := fs.AllProcs()
	if err != nil {
		return 0, fmt.Errorf("listing processes, %w", err)
	}
	inContainer := map[int]procfs.Proc{}
	for _, p := range procs {
		// A process may exit between the listing and the read: it is not the one sought.
		if cgroups, err := p.Cgroups(); err == nil && namesContainer(cgroups, containerID) {
			inContainer[p.PID] = p
		}
	}
	var main []int
	for pid, p := range inContainer {
		stat, err := p.Stat()
		if err != nil {
			continue
		}
		if _, ok := inContainer[stat.PPID]; !ok {
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

func namesContainer(cgroups []procfs.Cgroup, containerID string) bool {
	for _, c := range cgroups {
		if strings.Contains(c.Path, containerID) {
			return true
		}
	}
	return false
}

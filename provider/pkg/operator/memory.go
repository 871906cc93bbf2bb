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
	"context"
	"io/fs"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/log"
	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"
)

// softMemoryLimitShare of the container's memory limit is the Go runtime's soft limit, as core
// sets it from MEMORY_LIMIT: the garbage collector works harder as the heap nears it, instead
// of the kernel killing the container.
const softMemoryLimitShare = 0.9

// cgroup files holding the container's memory limit: cgroup v2, then v1.
var cgroupMemoryLimitFiles = []string{"sys/fs/cgroup/memory.max", "sys/fs/cgroup/memory/memory.limit_in_bytes"}

// unlimited is the least value cgroup v1 reports for no limit (it rounds 2^63-1 down to a
// page).
const unlimited = 1 << 62

// setMemoryLimit gives the Go runtime a soft memory limit from the container's memory limit
// when neither MEMORY_LIMIT (core sets 90% of it; the chart fills it from limits.memory) nor
// GOMEMLIMIT (read by the runtime itself) is set, so that a container started without the
// chart gets the same limit.
func setMemoryLimit(ctx context.Context, root fs.FS) {
	if coreoptions.FromContext(ctx).MemoryLimit > 0 {
		return
	}
	if _, ok := os.LookupEnv("GOMEMLIMIT"); ok {
		return
	}
	limit, ok := containerMemoryLimit(root)
	if !ok {
		return
	}
	soft := int64(float64(limit) * softMemoryLimitShare)
	debug.SetMemoryLimit(soft)
	log.FromContext(ctx).Info("set the Go soft memory limit from the container's memory limit", "containerLimit", limit, "softLimit", soft)
}

// containerMemoryLimit reads the memory limit of the cgroup the process runs in, as the
// container runtime mounts it.
func containerMemoryLimit(root fs.FS) (int64, bool) {
	for _, name := range cgroupMemoryLimitFiles {
		content, err := fs.ReadFile(root, name)
		if err != nil {
			continue
		}
		limit, err := strconv.ParseInt(strings.TrimSpace(string(content)), 10, 64)
		// cgroup v2 writes "max" for no limit.
		if err != nil || limit <= 0 || limit >= unlimited {
			return 0, false
		}
		return limit, true
	}
	return 0, false
}

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
	"math"
	"os"
	"runtime/debug"
	"testing"
	"testing/fstest"

	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"
)

func cgroupFiles(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, content := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(content)}
	}
	return fsys
}

func TestContainerMemoryLimit(t *testing.T) {
	for name, c := range map[string]struct {
		files map[string]string
		want  int64
	}{
		"cgroup v2":           {map[string]string{"sys/fs/cgroup/memory.max": "1073741824\n"}, 1 << 30},
		"cgroup v2 unlimited": {map[string]string{"sys/fs/cgroup/memory.max": "max\n"}, 0},
		"cgroup v1":           {map[string]string{"sys/fs/cgroup/memory/memory.limit_in_bytes": "536870912\n"}, 512 << 20},
		"cgroup v1 unlimited": {map[string]string{"sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n"}, 0},
		"no cgroup":           {map[string]string{}, 0},
	} {
		t.Run(name, func(t *testing.T) {
			got, ok := containerMemoryLimit(cgroupFiles(c.files))
			if got != c.want || ok != (c.want > 0) {
				t.Fatalf("containerMemoryLimit = %d, %t; want %d", got, ok, c.want)
			}
		})
	}
}

func TestSoftMemoryLimitFromTheContainer(t *testing.T) {
	previous := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(previous) })
	if _, ok := os.LookupEnv("GOMEMLIMIT"); ok {
		t.Fatal("GOMEMLIMIT is set in the test's environment; unset it")
	}
	container := cgroupFiles(map[string]string{"sys/fs/cgroup/memory.max": "1000000000"})
	withMemoryLimit := func(limit int64) context.Context {
		return coreoptions.ToContext(context.Background(), &coreoptions.Options{MemoryLimit: limit})
	}

	debug.SetMemoryLimit(math.MaxInt64)
	setMemoryLimit(withMemoryLimit(-1), container)
	if got := debug.SetMemoryLimit(-1); got != 900000000 {
		t.Errorf("soft limit %d, want 90%% of the container's 1000000000", got)
	}

	// MEMORY_LIMIT set: core has set the limit, which stays.
	debug.SetMemoryLimit(math.MaxInt64)
	setMemoryLimit(withMemoryLimit(2<<30), container)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("soft limit %d with MEMORY_LIMIT set, want core's left alone", got)
	}

	// GOMEMLIMIT set: the runtime has read it.
	t.Setenv("GOMEMLIMIT", "700MiB")
	setMemoryLimit(withMemoryLimit(-1), container)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("soft limit %d with GOMEMLIMIT set, want the runtime's left alone", got)
	}
}

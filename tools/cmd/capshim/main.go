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

// Command capshim is an OCI runtime in front of runc for hosts whose capability bounding set
// lacks capabilities that a privileged container asks for (docker's --privileged asks for all
// of them). runc fails such a container with "unable to apply caps: operation not permitted";
// capshim removes from the spec every capability outside its own bounding set, then runs runc
// with the same arguments. It is registered as a runtime of dockerd (--add-runtime) and of the
// kind node's containerd, never installed in runc's place.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// realRuntime is the runc capshim hands over to; a name, looked up in PATH.
const realRuntime = "runc"

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "capshim:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	bounding, err := boundingSet("/proc/self/status")
	if err != nil {
		return err
	}
	if spec := specFile(args); spec.path != "" {
		if err := spec.restrict(bounding); err != nil {
			return err
		}
	}
	runc, err := exec.LookPath(realRuntime)
	if err != nil {
		return fmt.Errorf("finding the real runtime, %w", err)
	}
	return syscall.Exec(runc, append([]string{runc}, args...), os.Environ())
}

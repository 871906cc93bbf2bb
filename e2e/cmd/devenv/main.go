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

// Command devenv runs the local demo behind `make up` and `make down`: a KWOK cluster, the fake
// cloud with its node simulator, the provider and the Apache CloudStack CCM, left running in
// the background with their pid files, logs and the cluster's kubeconfig in one folder.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

const usage = `usage: devenv up|down [--dir DIR]

  up    start the cluster, the fake cloud, the provider and the CCM, apply the example NodeClass,
        NodePool and inflate deployment, and return once everything is ready
  down  stop exactly what up started and remove DIR
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	dir := fs.String("dir", ".up", "folder holding the kubeconfig, logs and pid files")
	_ = fs.Parse(os.Args[2:])
	abs, err := filepath.Abs(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	switch os.Args[1] {
	case "up":
		err = up(ctx, abs)
	case "down":
		err = down(context.WithoutCancel(ctx), abs)
	default:
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "devenv:", err)
		stop()
		os.Exit(1)
	}
}

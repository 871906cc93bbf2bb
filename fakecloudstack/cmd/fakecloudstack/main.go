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

// Command fakecloudstack serves a CloudStack management server stand-in: the API, async jobs,
// finite capacity, injected faults and, with --kubeconfig, a node simulator.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/config"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/faults"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/server"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

// shutdownGrace bounds how long in-flight requests may finish at shutdown.
const shutdownGrace = 5 * time.Second

// timeouts bound every connection, so a client that sends its request slowly, or never reads
// the answer, cannot hold one.
type timeouts struct {
	readHeader, read, write, idle time.Duration
}

// serverTimeouts leave the write room for the longest injected delay.
var serverTimeouts = timeouts{readHeader: 10 * time.Second, read: 30 * time.Second, write: faults.MaxDelay + 30*time.Second, idle: 2 * time.Minute}

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, log); err != nil {
		stop()
		log.Error("fakecloudstack failed", "error", err)
		os.Exit(1)
	}
}

// run serves until ctx ends; with a state file, every change is written as it happens and
// once more at the end.
func run(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	f, err := parseFlags(args)
	if err != nil {
		return err
	}
	cfg := config.Config{}
	if f.configFile != "" {
		if cfg, err = config.Load(f.configFile); err != nil {
			return err
		}
	}
	srv, loaded, err := newServer(cfg, f)
	if err != nil {
		return err
	}
	srv.SetAdminKeys(f.apiKey, f.secretKey)
	persistCtx, stopPersisting := context.WithCancel(context.WithoutCancel(ctx))
	defer stopPersisting()
	var persisted <-chan error
	if f.stateFile != "" {
		if persisted, err = srv.PersistTo(persistCtx, f.stateFile); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return fmt.Errorf("listening on %s, %w", f.listen, err)
	}
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "fakecloudstack listening on %s%s\n", base, server.APIPath)
	printKeys(stdout, srv.Admin(), f, !loaded && !adminSecretConfigured(cfg))
	if f.adminToken == "" {
		fmt.Fprintf(stdout, "admin token: %s\n", srv.AdminToken())
	}
	if f.addrFile != "" {
		if err := server.WriteFileAtomic(f.addrFile, []byte(base)); err != nil {
			return err
		}
	}
	real, err := startRealVMs(ctx, cfg.RealVMs, srv.Store(), log)
	if err != nil {
		return err
	}
	if f.kubeconfig != "" {
		kubeconfigs := strings.Split(f.kubeconfig, ",")
		for _, kubeconfig := range kubeconfigs {
			if err := startNodeSimulator(ctx, kubeconfig, len(kubeconfigs) > 1, srv.Store(), real, log); err != nil {
				return err
			}
		}
	}
	served := serve(ctx, ln, srv, serverTimeouts)
	stopPersisting()
	if persisted != nil {
		if err := <-persisted; err != nil {
			return errors.Join(served, fmt.Errorf("writing the state file, %w", err))
		}
	}
	return served
}

// printKeys prints the API key when it was not fixed, and the secret only when it was
// generated: the user has no other way to learn it.
func printKeys(w io.Writer, admin store.Account, f flags, secretGenerated bool) {
	if f.apiKey == "" {
		fmt.Fprintf(w, "api key: %s\n", admin.APIKey)
	}
	if f.secretKey == "" && secretGenerated {
		fmt.Fprintf(w, "secret key: %s\n", admin.SecretKey)
	}
}

func adminSecretConfigured(cfg config.Config) bool {
	for _, a := range cfg.Model().Accounts {
		if a.Admin {
			return a.SecretKey != ""
		}
	}
	return false
}

func serve(ctx context.Context, ln net.Listener, h http.Handler, t timeouts) error {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: t.readHeader, ReadTimeout: t.read, WriteTimeout: t.write, IdleTimeout: t.idle}
	errs := make(chan error, 1)
	go func() { errs <- hs.Serve(ln) }()
	select {
	case err := <-errs:
		return fmt.Errorf("serving, %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutting down, %w", err)
	}
	return nil
}

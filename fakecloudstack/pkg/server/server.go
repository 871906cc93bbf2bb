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

// Package server is the fake management server: the CloudStack API at /client/api, the
// /admin endpoints that script a scenario, /metrics and /healthz.
package server

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/gorilla/mux"
	"k8s.io/utils/clock"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/api"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/capacity"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/config"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/faults"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/jobs"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
)

// APIPath is where clients send commands.
const APIPath = "/client/api"

// Server holds one complete fake cloud. Several can run in one process.
type Server struct {
	backend    *api.Backend
	adminToken string
	persist    *persister
	// adminVersion counts /admin changes outside the store and the jobs (capacity, faults,
	// latency), for the state file.
	adminVersion atomic.Uint64
	commands     map[string]api.Command
	calls        *callRecorder
	metrics      *metrics
	router       *mux.Router
}

type options struct {
	adminToken string
	cfg        config.Config
	clock      clock.WithDelayedExecution
	state      []byte
	ids        func() string
}

// Option configures New.
type Option func(*options)

// WithConfig sets the world and behaviour; the default is the embedded world, instant jobs.
func WithConfig(c config.Config) Option { return func(o *options) { o.cfg = c } }

// WithClock injects the clock that drives job latency and expunge delays.
func WithClock(c clock.WithDelayedExecution) Option { return func(o *options) { o.clock = c } }

// WithAdminToken sets the token /admin requires; without it a random one is generated
// (AdminToken tells it).
func WithAdminToken(token string) Option { return func(o *options) { o.adminToken = token } }

// WithSequentialIDs makes every new id predictable, for tests.
func WithSequentialIDs() Option { return func(o *options) { o.ids = store.SequentialIDs() } }

// New builds a server and its world.
func New(opts ...Option) (*Server, error) {
	o := options{clock: clock.RealClock{}}
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.cfg.Jobs.Latency.Validate(); err != nil {
		return nil, fmt.Errorf("validating jobs.latency, %w", err)
	}
	if err := o.cfg.Faults.Validate(); err != nil {
		return nil, fmt.Errorf("validating faults, %w", err)
	}
	if o.adminToken == "" {
		o.adminToken = rand.Text()
	}
	pool := capacity.New()
	var st *store.Store
	var restored stateFile
	var err error
	if o.state != nil {
		st, restored, err = o.restore(pool)
	} else {
		st, err = o.world(pool)
	}
	if err != nil {
		return nil, err
	}
	s := &Server{calls: newCallRecorder(), router: mux.NewRouter(), adminToken: o.adminToken}
	s.metrics = newMetrics(st)
	s.backend = &api.Backend{
		Store:    st,
		Capacity: pool,
		Faults:   faults.New(o.clock, o.cfg.Faults, o.cfg.Seed),
		Jobs:     jobs.New(o.clock, st.NewID, o.cfg.Jobs, o.cfg.Seed, s.metrics.observeJob),
		Clock:    o.clock,
		Settings: settings(o.cfg),
		Started:  o.clock.Now(),
	}
	s.commands = s.backend.Commands()
	if o.state != nil {
		var pending []jobs.Job
		for _, j := range restored.Jobs {
			if j.Status == jobs.Pending {
				pending = append(pending, j)
			}
		}
		s.backend.ResumeVMs(pending)
		s.backend.Jobs.Restore(restored.Jobs, s.backend.Resume)
	}
	s.routes()
	return s, nil
}

func (o options) world(pool *capacity.Pool) (*store.Store, error) {
	var storeOpts []store.Option
	if o.ids != nil {
		storeOpts = append(storeOpts, store.WithIDs(o.ids))
	}
	st := store.New(storeOpts...)
	if err := world.Build(o.cfg.Model(), st, pool, o.clock.Now()); err != nil {
		return nil, fmt.Errorf("building world, %w", err)
	}
	return st, nil
}

func settings(c config.Config) api.Settings {
	s := api.DefaultSettings()
	if c.ExpungeDelay != nil {
		s.ExpungeDelay = c.ExpungeDelay.Duration
	}
	if c.UserDataMaxLength > 0 {
		s.UserDataMaxLength = c.UserDataMaxLength
	}
	s.AllowUserExpunge = c.AllowUserExpungeRecoverVM
	s.KubernetesServiceEnabled = c.KubernetesServiceEnabled
	s.MaxCustomCPU, s.MaxCustomMemoryMiB = c.ServiceOfferingCPUCoresMax, c.ServiceOfferingRAMSizeMaxMiB
	s.QuotaEnabled = c.Model().Quota.Enabled
	return s
}

func (s *Server) routes() {
	s.router.Handle(APIPath, http.HandlerFunc(s.serveAPI)).Methods(http.MethodGet, http.MethodPost)
	s.router.Handle("/metrics", s.metrics.handler()).Methods(http.MethodGet)
	s.router.HandleFunc("/healthz", s.healthz)
	s.adminRoutes(s.router.PathPrefix("/admin").Subrouter())
}

// healthz fails once the state file cannot be written, so that a supervisor restarts the
// fake on the file.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	if err := s.unwritable(); err != nil {
		http.Error(w, stateFileMessage(err), http.StatusServiceUnavailable)
		return
	}
	_, _ = w.Write([]byte("ok"))
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.router.ServeHTTP(w, r) }

// AdminToken is the token /admin requires.
func (s *Server) AdminToken() string { return s.adminToken }

// Store exposes the world, for the node simulator and for tests.
func (s *Server) Store() *store.Store { return s.backend.Store }

// Admin returns the first admin account, whose keys clients use by default.
func (s *Server) Admin() store.Account {
	a, _ := s.backend.Store.Accounts.Find(func(a store.Account) bool { return a.Admin })
	return a
}

// SetAdminKeys fixes the admin account's keys (the --api-key and --secret-key flags).
func (s *Server) SetAdminKeys(apiKey, secretKey string) {
	a := s.Admin()
	if apiKey != "" {
		a.APIKey = apiKey
	}
	if secretKey != "" {
		a.SecretKey = secretKey
	}
	s.backend.Store.Accounts.Put(a.ID, a)
}

// wait pauses for an injected delay, returning early if the client went away.
func wait(r *http.Request, clk clock.Clock, d time.Duration) {
	if d <= 0 {
		return
	}
	select {
	case <-clk.After(d):
	case <-r.Context().Done():
	}
}

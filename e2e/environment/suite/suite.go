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

// Package suite gives every e2e suite package the same life cycle: one environment per suite
// package (BeforeSuite/AfterSuite), a reset after each spec, and the tails of every log when a
// spec fails. Ginkgo runs AfterSuite on SIGINT/SIGTERM and on its own timeout as well, so an
// interrupted run also tears everything down.
package suite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/cloud"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/realvm"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/world"
)

// logTailLines is enough to see the last reconcile loops of each process around a failure.
const logTailLines = 60

// Suite is one suite package's environment and the helpers its specs use.
type Suite struct {
	name        string
	providerEnv []string
	// identity names who the provider acts as, overriding ProviderIdentityEnv.
	identity string
	// ccm runs the Apache CloudStack CCM in the suite's environment.
	ccm bool
	// peered runs a second cluster of the same name on the suite's fake cloud.
	peered bool
	// world replaces the fake cloud's embedded world; nil keeps it.
	world *world.Model
	// fakeState keeps the fake cloud's state in a file, so that it survives a restart.
	fakeState bool
	// realVMs runs the VMs it marks as containers that boot their userdata; kind only.
	realVMs *realvm.Config
	// replicas asks for that many replicas of the provider where the runtime runs them.
	replicas int

	Env   *environment.Environment
	Cloud *cloud.Client
	// Peer is the second cluster of WithPeer, with its own provider; its helpers act on it.
	Peer *Suite

	failed bool
	// auditOffset is how far the audit log has been checked for refused requests.
	auditOffset int64
	// bindings proves after each spec that no pod was bound to a Node before it was Ready.
	bindings     *environment.BindingWatch
	stopBindings context.CancelFunc
}

// New registers the life cycle of a suite; call it once, from a package-level variable.
// providerEnv adds provider settings for the whole suite, such as a client-side rate limit.
func New(name string, providerEnv ...string) *Suite {
	s := &Suite{name: name, providerEnv: providerEnv}
	BeforeSuite(s.setUp, NodeTimeout(5*time.Minute))
	AfterSuite(s.tearDown, NodeTimeout(2*time.Minute))
	AfterEach(s.afterEach, NodeTimeout(5*time.Minute))
	return s
}

// WithCCM runs the Apache CloudStack CCM (bin/cloudstack-ccm) next to the provider; call it
// where the suite is declared.
func (s *Suite) WithCCM() *Suite {
	s.ccm = true
	return s
}

// WithWorld runs the suite's fake cloud on model instead of its embedded world; call it where
// the suite is declared.
func (s *Suite) WithWorld(model world.Model) *Suite {
	s.world = &model
	return s
}

// WithRealVMs runs the VMs cfg marks as containers of the kind node image that boot their
// userdata with cloud-init (fakecloudstack/pkg/realvm); the image is the one `make kind-up`
// built and the containers are labelled with the run's cluster name. Kind runtime only: the
// suite's specs are skipped elsewhere.
func (s *Suite) WithRealVMs(cfg realvm.Config) *Suite {
	s.realVMs = &cfg
	return s
}

// worldFile writes the suite's world and real VMs as a fake cloud config file in the run
// folder; "" without either.
func (s *Suite) worldFile(runDir string) (string, error) {
	if s.world == nil && s.realVMs == nil {
		return "", nil
	}
	config := map[string]any{}
	if s.world != nil {
		config["world"] = s.world
	}
	if s.realVMs != nil {
		config["realVMs"] = s.realVMs
	}
	data, err := yaml.Marshal(config)
	if err != nil {
		return "", fmt.Errorf("encoding the suite's world, %w", err)
	}
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		return "", fmt.Errorf("creating run folder, %w", err)
	}
	path := filepath.Join(runDir, "world.yaml")
	return path, os.WriteFile(path, data, 0o600)
}

// WithFakeState keeps the fake cloud's state in the run folder, so that a spec can kill and
// revive it without losing its VMs, jobs and faults; call it where the suite is declared.
func (s *Suite) WithFakeState() *Suite {
	s.fakeState = true
	return s
}

// WithProviderReplicas asks for n replicas of the provider electing a leader, where the
// runtime can run them (s.Env.Replicas says how many run); call it where the suite is declared.
func (s *Suite) WithProviderReplicas(n int) *Suite {
	s.replicas = n
	return s
}

// Run runs the specs of a suite package; its Test function calls it.
func Run(t *testing.T, description string) {
	RegisterFailHandler(Fail)
	RunSpecs(t, description)
}

// WithPeer runs a second cluster, given the same CLUSTER_NAME, with its own provider on the
// suite's fake cloud (Peer); call it where the suite is declared. Runtimes that create their
// clusters only.
func (s *Suite) WithPeer() *Suite {
	s.peered = true
	return s
}

func (s *Suite) setUp(ctx SpecContext) {
	paths, err := environment.DefaultPaths(s.name)
	Expect(err).NotTo(HaveOccurred())
	Expect(environment.ReapStaleRuns(ctx, paths)).To(Succeed())
	settings, err := environment.NewSettings("e2e-" + s.name)
	Expect(err).NotTo(HaveOccurred())
	identity, err := s.providerIdentity(settings)
	Expect(err).NotTo(HaveOccurred())
	runtime, err := environment.RuntimeFromEnv()
	Expect(err).NotTo(HaveOccurred())
	GinkgoWriter.Printf("run folder %s (%s runtime)\n", paths.RunDir, runtime.Name())
	if s.realVMs != nil {
		if runtime != environment.Kind {
			Skip("real VMs are containers next to the kind node: E2E_RUNTIME=kind")
		}
		s.realVMs.Owner = settings.ClusterName
		s.realVMs.Image, err = paths.KindNodeImage()
		Expect(err).NotTo(HaveOccurred())
	}
	worldFile, err := s.worldFile(paths.RunDir)
	Expect(err).NotTo(HaveOccurred())
	opts := environment.Options{
		World:            worldFile,
		Paths:            paths,
		Settings:         settings,
		Runtime:          runtime,
		ProviderEnv:      s.providerEnv,
		ProviderIdentity: identity,
		CCM:              s.ccm,
		FakeState:        s.fakeState,
		ProviderReplicas: s.replicas,
	}
	if s.peered {
		s.Env, err = s.startWithPeer(ctx, opts)
	} else {
		s.Env, err = environment.Start(ctx, opts)
	}
	if err != nil {
		s.failed = true
		s.printLogs()
	}
	Expect(err).NotTo(HaveOccurred())
	// The watch outlives this node's context: it runs until the suite ends.
	watchCtx, stop := context.WithCancel(context.Background())
	s.stopBindings = stop
	s.bindings, err = environment.WatchBindings(watchCtx, s.Env.Kubeconfig())
	Expect(err).NotTo(HaveOccurred())
	s.auditOffset = s.Env.AuditStart
	s.Cloud = cloud.New(component.FakeCloudAPIURL(settings.FakePort), settings.APIKey, settings.SecretKey)
}

// startWithPeer starts the peer's cluster, then the suite's, so that the fake cloud's node
// simulator serves both from its start; each provider names its own API server in the
// userdata, which is what decides the cluster a VM's node joins.
func (s *Suite) startWithPeer(ctx context.Context, o environment.Options) (*environment.Environment, error) {
	if !o.Runtime.OwnsCluster() {
		return nil, fmt.Errorf("a peer cluster needs a runtime that creates clusters, not %s", o.Runtime.Name())
	}
	paths, err := environment.DefaultPaths(s.name + "-peer")
	if err != nil {
		return nil, err
	}
	settings, err := environment.NewSettings(o.ClusterName)
	if err != nil {
		return nil, err
	}
	settings.FakePort, settings.APIKey, settings.SecretKey, settings.AdminToken = o.FakePort, o.APIKey, o.SecretKey, o.AdminToken
	peer, err := environment.StartCluster(ctx, environment.Options{Paths: paths, Settings: settings, Runtime: o.Runtime, ProviderEnv: o.ProviderEnv, SharedCloud: true})
	s.Peer = &Suite{name: s.name + "-peer", Env: peer, Cloud: cloud.New(component.FakeCloudAPIURL(o.FakePort), o.APIKey, o.SecretKey)}
	if err != nil {
		return nil, err
	}
	o.PeerKubeconfigs = []string{peer.Kubeconfig()}
	env, err := environment.StartCluster(ctx, o)
	if err != nil {
		return env, err
	}
	for _, e := range []*environment.Environment{env, peer} {
		endpoint, err := e.APIServerEndpoint()
		if err != nil {
			return env, err
		}
		e.ProviderEnv = append(e.ProviderEnv, "API_SERVER_ENDPOINT="+endpoint)
	}
	if err := env.StartProcesses(ctx); err != nil {
		return env, err
	}
	return env, peer.StartProcesses(ctx)
}

func (s *Suite) tearDown(ctx SpecContext) {
	if s.stopBindings != nil {
		s.stopBindings()
	}
	if s.Peer != nil && s.Peer.Env != nil {
		Expect(s.Peer.Env.Stop(ctx)).To(Succeed())
		if !s.failed {
			Expect(os.RemoveAll(s.Peer.Env.RunDir)).To(Succeed())
		}
	}
	if s.Env == nil {
		return
	}
	Expect(s.Env.Stop(ctx)).To(Succeed())
	if s.failed {
		GinkgoWriter.Printf("logs kept in %s\n", s.Env.RunDir)
		return
	}
	Expect(os.RemoveAll(s.Env.RunDir)).To(Succeed())
}

func (s *Suite) afterEach(ctx SpecContext) {
	refused := s.newRefusals()
	// Judged before the reset, while the Nodes whose Ready state is in flight still exist.
	misbound := s.misboundPods(ctx)
	if CurrentSpecReport().Failed() {
		s.failed = true
		s.printState(ctx)
		s.printLogs()
		if s.Peer != nil {
			s.Peer.printState(ctx)
			s.Peer.printLogs()
		}
		if len(refused) > 0 {
			GinkgoWriter.Println(refusalReport(refused))
		}
	}
	s.Reset(ctx)
	if s.Peer != nil {
		s.Peer.Reset(ctx)
	}
	var problems []string
	if misbound != "" {
		problems = append(problems, misbound)
	}
	// Requests made while resetting (draining, terminating) count too.
	if refused = append(refused, s.newRefusals()...); len(refused) > 0 {
		problems = append(problems, refusalReport(refused))
	}
	if len(problems) > 0 {
		s.failed = true
		Fail(strings.Join(problems, "\n"))
	}
}

// readyWatchLag bounds how long the Node watch may trail the pod watch: a binding to a Node
// not seen Ready by then is to a Node that was not Ready.
const readyWatchLag = 30 * time.Second

// misboundPods reports the pods bound during the spec to a Node that was not Ready yet, empty
// when there are none.
func (s *Suite) misboundPods(ctx context.Context) string {
	if s.bindings == nil {
		return ""
	}
	defer s.bindings.Forget()
	var early, pending []environment.Binding
	err := wait.PollUntilContextTimeout(ctx, time.Second, readyWatchLag, true, func(context.Context) (bool, error) {
		var err error
		early, pending, err = s.bindings.Judge()
		return err != nil || len(early) > 0 || len(pending) == 0, err
	})
	if err != nil && !wait.Interrupted(err) {
		return fmt.Sprintf("judging pod bindings: %v", err)
	}
	if len(early)+len(pending) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("pods bound to a Node that was not Ready:")
	for _, binding := range append(early, pending...) {
		fmt.Fprintf(&b, "\n  %s", binding)
	}
	return b.String()
}

func (s *Suite) printLogs() {
	if s.Env == nil {
		return
	}
	environment.WriteLogTails(GinkgoWriter, s.Env, logTailLines)
}

// printState shows the cluster and the cloud as the failed spec left them.
func (s *Suite) printState(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	report, err := environment.DescribeState(ctx, s.Env.Client, s.Cloud)
	if err != nil {
		report += fmt.Sprintf("\n(incomplete: %v)", err)
	}
	GinkgoWriter.Println(report)
}

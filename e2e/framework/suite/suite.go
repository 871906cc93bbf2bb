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
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/framework"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/framework/cloud"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/framework/component"
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
	// fakeState keeps the fake cloud's state in a file, so that it survives a restart.
	fakeState bool

	Env   *framework.Environment
	Cloud *cloud.Client

	failed bool
	// auditOffset is how far the audit log has been checked for refused requests.
	auditOffset int64
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

// WithFakeState keeps the fake cloud's state in the run folder, so that a spec can kill and
// revive it without losing its VMs, jobs and faults; call it where the suite is declared.
func (s *Suite) WithFakeState() *Suite {
	s.fakeState = true
	return s
}

// Run runs the specs of a suite package; its Test function calls it.
func Run(t *testing.T, description string) {
	RegisterFailHandler(Fail)
	RunSpecs(t, description)
}

func (s *Suite) setUp(ctx SpecContext) {
	paths, err := framework.DefaultPaths(s.name)
	Expect(err).NotTo(HaveOccurred())
	Expect(framework.ReapStaleRuns(ctx, paths)).To(Succeed())
	settings, err := framework.NewSettings("e2e-" + s.name)
	Expect(err).NotTo(HaveOccurred())
	identity, err := s.providerIdentity(settings)
	Expect(err).NotTo(HaveOccurred())
	runtime := framework.RuntimeFromEnv()
	GinkgoWriter.Printf("run folder %s (%s runtime)\n", paths.RunDir, runtime)
	s.Env, err = framework.Start(ctx, framework.Options{
		Paths:            paths,
		Settings:         settings,
		Runtime:          runtime,
		ProviderEnv:      s.providerEnv,
		ProviderIdentity: identity,
		CCM:              s.ccm,
		FakeState:        s.fakeState,
	})
	if err != nil {
		s.failed = true
		s.printLogs()
	}
	Expect(err).NotTo(HaveOccurred())
	s.auditOffset = s.Env.AuditStart
	s.Cloud = cloud.New(component.FakeCloudAPIURL(settings.FakePort), settings.APIKey, settings.SecretKey)
}

func (s *Suite) tearDown(ctx SpecContext) {
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
	if CurrentSpecReport().Failed() {
		s.failed = true
		s.printState(ctx)
		s.printLogs()
		if len(refused) > 0 {
			GinkgoWriter.Println(refusalReport(refused))
		}
	}
	s.Reset(ctx)
	// Requests made while resetting (draining, terminating) count too.
	if refused = append(refused, s.newRefusals()...); len(refused) > 0 {
		s.failed = true
		Fail(refusalReport(refused))
	}
}

func (s *Suite) printLogs() {
	if s.Env == nil {
		return
	}
	framework.WriteLogTails(GinkgoWriter, s.Env, logTailLines)
}

// printState shows the cluster and the cloud as the failed spec left them.
func (s *Suite) printState(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	report, err := framework.DescribeState(ctx, s.Env.Client, s.Cloud)
	if err != nil {
		report += fmt.Sprintf("\n(incomplete: %v)", err)
	}
	GinkgoWriter.Println(report)
}

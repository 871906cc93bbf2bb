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

package suite

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	csv1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/objects"
)

// DefaultName names the NodeClass and NodePool most specs use.
const DefaultName = "default"

// CreateDefaultNodeClass creates the default NodeClass over the default world and waits until
// the provider reports it Ready.
func (s *Suite) CreateDefaultNodeClass(ctx context.Context, opts ...func(*csv1.CloudStackNodeClass)) *csv1.CloudStackNodeClass {
	GinkgoHelper()
	nc := objects.NodeClass(DefaultName, opts...)
	s.Create(ctx, nc)
	s.EventuallyNodeClassReady(ctx, nc.Name)
	return nc
}

// CreateNodePool creates a NodePool named DefaultName on the default NodeClass, creating that
// first if needed.
func (s *Suite) CreateNodePool(ctx context.Context, opts ...func(*karpv1.NodePool)) *karpv1.NodePool {
	GinkgoHelper()
	err := s.Env.Client.Get(ctx, client.ObjectKey{Name: DefaultName}, &csv1.CloudStackNodeClass{})
	if apierrors.IsNotFound(err) {
		s.CreateDefaultNodeClass(ctx)
	} else {
		Expect(err).NotTo(HaveOccurred())
	}
	np := objects.NodePool(DefaultName, DefaultName, opts...)
	s.Create(ctx, np)
	return np
}

// EventuallyNodeClassReady waits for the provider to resolve the named NodeClass.
func (s *Suite) EventuallyNodeClassReady(ctx context.Context, name string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		nc := &csv1.CloudStackNodeClass{}
		g.Expect(s.Env.Client.Get(ctx, client.ObjectKey{Name: name}, nc)).To(Succeed())
		g.Expect(nc.StatusConditions().Root().IsTrue()).To(BeTrue(), "conditions: %v", nc.Status.Conditions)
	}).WithContext(ctx).WithTimeout(ProvisionTimeout).Should(Succeed())
}

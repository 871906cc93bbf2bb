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

package test

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"
	coreexpectations "sigs.k8s.io/karpenter/pkg/test/expectations"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
)

// ExpectCleanedUp deletes what Karpenter's own cleanup deletes, and every NodeClass, whose
// termination finalizer would otherwise keep it for the next spec.
func ExpectCleanedUp(ctx context.Context, c client.Client) {
	ginkgo.GinkgoHelper()
	coreexpectations.ExpectCleanedUp(ctx, c)
	coreexpectations.ExpectFinalizersRemovedFromList(ctx, c, &v1.CloudStackNodeClassList{})
	gomega.Expect(c.DeleteAllOf(ctx, &v1.CloudStackNodeClass{})).To(gomega.Succeed())
}

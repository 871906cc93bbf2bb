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

package roundtrip

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	"github.com/patrickmn/go-cache"
	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	clock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	coretest "sigs.k8s.io/karpenter/pkg/test"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/nodesim"
	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/bootstrap"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

const instanceID = "6f1c0f4e-3d0a-4a51-9b43-0c8a1f7f2a10"

func TestRenderedUserDataRegistersTheNodeClaim(t *testing.T) {
	userScript := "#!/bin/bash\necho site hardening\n"
	templates, err := test.DocumentedTemplates()
	if err != nil {
		t.Fatal(err)
	}
	specs := map[string]v1.CloudStackNodeClassSpec{
		"kubeadm":                  {},
		"kubeadm v1beta3":          {Bootstrap: &v1.Bootstrap{KubeadmConfigVersion: v1.KubeadmConfigV1beta3}},
		"kubeadm with user script": {UserData: &userScript},
	}
	for name, template := range templates {
		specs["documented "+name+" template"] = v1.CloudStackNodeClassSpec{Bootstrap: &v1.Bootstrap{Mode: v1.BootstrapModeTemplate, Template: template}}
		specs["documented "+name+" template with user script"] = v1.CloudStackNodeClassSpec{UserData: &userScript, Bootstrap: &v1.Bootstrap{Mode: v1.BootstrapModeTemplate, Template: template}}
	}
	for name, spec := range specs {
		t.Run(name, func(t *testing.T) {
			spec.Kubelet = &v1.KubeletConfiguration{
				MaxPods:        lo.ToPtr[int32](58),
				KubeReserved:   map[string]string{"cpu": "120m", "memory": "512Mi"},
				SystemReserved: map[string]string{"memory": "256Mi"},
				EvictionHard:   map[string]string{"memory.available": "200Mi"},
			}
			nodeClass := &v1.CloudStackNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Spec: spec}
			nodeClaim := &karpv1.NodeClaim{
				ObjectMeta: metav1.ObjectMeta{Name: "default-x7k2p", UID: "uid-1", Labels: map[string]string{
					karpv1.NodePoolLabelKey: "default",
					"team":                  "payments",
				}},
				Spec: karpv1.NodeClaimSpec{
					Taints:        []corev1.Taint{{Key: "dedicated", Value: "payments", Effect: corev1.TaintEffectNoSchedule}},
					StartupTaints: []corev1.Taint{{Key: "example.com/agent-not-ready", Effect: corev1.TaintEffectNoExecute}},
				},
			}
			launchLabels := map[string]string{
				corev1.LabelInstanceTypeStable: "gplarge",
				corev1.LabelTopologyZone:       "zone-b",
				karpv1.CapacityTypeLabelKey:    karpv1.CapacityTypeOnDemand,
			}

			userData, _, err := newProvider(t).Render(context.Background(), nodeClass, nodeClaim, nil, launchLabels)
			if err != nil {
				t.Fatalf("rendering userdata: %v", err)
			}
			reg, err := nodesim.ParseUserData(userData, instanceID)
			if err != nil {
				t.Fatalf("the node simulator rejected the provider's userdata: %v", err)
			}

			if want := "external-cloudstack://" + instanceID; reg.ProviderID != want {
				t.Errorf("providerID = %q, want %q", reg.ProviderID, want)
			}
			for k, v := range lo.Assign(nodeClaim.Labels, launchLabels) {
				if reg.Labels[k] != v {
					t.Errorf("label %s = %q, want %q (labels %v)", k, reg.Labels[k], v, reg.Labels)
				}
			}
			for _, want := range append([]corev1.Taint{karpv1.UnregisteredNoExecuteTaint}, append(nodeClaim.Spec.Taints, nodeClaim.Spec.StartupTaints...)...) {
				if !lo.ContainsBy(reg.Taints, func(got corev1.Taint) bool { return got.MatchTaint(&want) && got.Value == want.Value }) {
					t.Errorf("taint %s missing from %v", want.ToString(), reg.Taints)
				}
			}
			if reg.MaxPods != 58 {
				t.Errorf("max pods = %d, want 58", reg.MaxPods)
			}
			expectQuantity(t, "kube-reserved cpu", reg.KubeReserved[corev1.ResourceCPU], "120m")
			expectQuantity(t, "kube-reserved memory", reg.KubeReserved[corev1.ResourceMemory], "512Mi")
			expectQuantity(t, "system-reserved memory", reg.SystemReserved[corev1.ResourceMemory], "256Mi")
			if reg.EvictionHard["memory.available"] != "200Mi" {
				t.Errorf("eviction-hard = %v, want memory.available<200Mi", reg.EvictionHard)
			}
		})
	}
}

func expectQuantity(t *testing.T, what string, got resource.Quantity, want string) {
	t.Helper()
	if got.Cmp(resource.MustParse(want)) != 0 {
		t.Errorf("%s = %s, want %s", what, got.String(), want)
	}
}

// newProvider builds the bootstrap provider over a fake client that holds the cluster CA, as
// kube-controller-manager publishes it.
func newProvider(t *testing.T) *bootstrap.DefaultProvider {
	t.Helper()
	scheme := runtime.NewScheme()
	lo.Must0(corev1.AddToScheme(scheme))
	kubeClient := fake.NewClientBuilder().WithScheme(scheme).WithObjects(&corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: bootstrap.TokenNamespace, Name: "kube-root-ca.crt"},
		Data:       map[string]string{"ca.crt": selfSignedCA(t)},
	}).Build()
	return bootstrap.NewDefaultProvider(kubeClient, &rest.Config{Host: "https://10.0.0.1:6443"},
		clock.NewFakeClock(time.Now()), coretest.NewEventRecorder(), cache.New(bootstrap.ClusterCacheTTL, bootstrap.ClusterCacheTTL), "10.0.0.1:6443")
}

func selfSignedCA(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kubernetes"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

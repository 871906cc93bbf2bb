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

package helm_test

import (
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	cscloudprovider "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cloudprovider"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/bootstrap"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

const chart = "karpenter-cloudstack"

var _ = Describe("karpenter-cloudstack chart", func() {
	Context("installed with the seed README's line", func() {
		var deployment *appsv1.Deployment
		var container corev1.Container
		BeforeEach(func() {
			deployment = typed[appsv1.Deployment](render(chart, inlineValues...), "Deployment", fullname)
			container = onlyContainer(deployment)
		})

		It("runs two replicas that elect a leader on the Lease its Role lets them write", func() {
			Expect(deployment.Spec.Replicas).To(HaveValue(BeEquivalentTo(2)))
			env := envOf(container)
			Expect(env).NotTo(HaveKey("DISABLE_LEADER_ELECTION"))
			Expect(env).To(HaveKeyWithValue("LEADER_ELECTION_NAME", HaveField("Value", fullname+"-leader-election")))
			role := typed[rbacv1.Role](render(chart, inlineValues...), "Role", fullname)
			Expect(role.Rules).To(ContainElement(SatisfyAll(
				HaveField("Resources", ConsistOf("leases")),
				HaveField("ResourceNames", ConsistOf(fullname+"-leader-election")),
				HaveField("Verbs", ContainElement("update")),
			)))
		})

		It("probes the health port 8081 and serves metrics on 8080, the ports core listens on", func() {
			Expect(container.Ports).To(ConsistOf(
				SatisfyAll(HaveField("Name", "http-metrics"), HaveField("ContainerPort", BeEquivalentTo(8080))),
				SatisfyAll(HaveField("Name", "http"), HaveField("ContainerPort", BeEquivalentTo(8081))),
			))
			env := envOf(container)
			Expect(env).To(HaveKeyWithValue("METRICS_PORT", HaveField("Value", "8080")))
			Expect(env).To(HaveKeyWithValue("HEALTH_PROBE_PORT", HaveField("Value", "8081")))
			Expect(container.LivenessProbe.HTTPGet).To(SatisfyAll(HaveField("Path", "/healthz"), HaveField("Port", intstr.FromString("http"))))
			Expect(container.ReadinessProbe.HTTPGet).To(SatisfyAll(HaveField("Path", "/readyz"), HaveField("Port", intstr.FromString("http"))))
			service := typed[corev1.Service](render(chart, inlineValues...), "Service", fullname)
			Expect(service.Spec.Ports).To(ConsistOf(SatisfyAll(
				HaveField("Port", BeEquivalentTo(8080)), HaveField("TargetPort", intstr.FromString("http-metrics")))))
			Expect(service.Spec.Selector).To(Equal(deployment.Spec.Template.Labels))
		})

		It("follows other ports when they are changed", func() {
			d := typed[appsv1.Deployment](render(chart, append(inlineValues,
				"controller.metrics.port=9090", "controller.healthProbe.port=9091")...), "Deployment", fullname)
			c := onlyContainer(d)
			Expect(envOf(c)).To(HaveKeyWithValue("HEALTH_PROBE_PORT", HaveField("Value", "9091")))
			Expect(c.Ports).To(ContainElement(SatisfyAll(HaveField("Name", "http"), HaveField("ContainerPort", BeEquivalentTo(9091)))))
		})

		It("runs as non-root on a read-only root filesystem without capabilities", func() {
			pod := deployment.Spec.Template.Spec.SecurityContext
			Expect(pod.RunAsNonRoot).To(HaveValue(BeTrue()))
			Expect(pod.RunAsUser).To(HaveValue(Not(BeZero())))
			Expect(pod.SeccompProfile.Type).To(Equal(corev1.SeccompProfileTypeRuntimeDefault))
			sc := container.SecurityContext
			Expect(sc.ReadOnlyRootFilesystem).To(HaveValue(BeTrue()))
			Expect(sc.AllowPrivilegeEscalation).To(HaveValue(BeFalse()))
			Expect(sc.Capabilities.Drop).To(ConsistOf(corev1.Capability("ALL")))
		})

		It("requests resources and tells core about them", func() {
			Expect(container.Resources.Requests).To(HaveKeyWithValue(corev1.ResourceCPU, resource.MustParse("1")))
			Expect(container.Resources.Requests).To(HaveKey(corev1.ResourceMemory))
			Expect(container.Resources.Limits).To(HaveKey(corev1.ResourceMemory))
			env := envOf(container)
			Expect(env["MEMORY_LIMIT"].ValueFrom.ResourceFieldRef.Resource).To(Equal("limits.memory"))
			Expect(env["CPU_REQUESTS"].ValueFrom.ResourceFieldRef.Resource).To(Equal("requests.cpu"))
		})

		It("spreads replicas over hosts and zones and keeps them off the nodes it manages", func() {
			spec := deployment.Spec.Template.Spec
			Expect(spec.TopologySpreadConstraints).To(ConsistOf(
				SatisfyAll(HaveField("TopologyKey", corev1.LabelHostname), HaveField("WhenUnsatisfiable", corev1.DoNotSchedule)),
				HaveField("TopologyKey", corev1.LabelTopologyZone),
			))
			for _, c := range spec.TopologySpreadConstraints {
				Expect(c.LabelSelector.MatchLabels).To(Equal(deployment.Spec.Selector.MatchLabels))
			}
			terms := spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
			Expect(terms).To(ContainElement(HaveField("MatchExpressions", ContainElement(SatisfyAll(
				HaveField("Key", karpv1.NodePoolLabelKey), HaveField("Operator", corev1.NodeSelectorOpDoesNotExist))))))
		})

		It("keeps a replica running through voluntary disruptions", func() {
			pdb := typed[policyv1.PodDisruptionBudget](render(chart, inlineValues...), "PodDisruptionBudget", fullname)
			Expect(pdb.Spec.MaxUnavailable).To(HaveValue(Equal(intstr.FromInt32(1))))
			Expect(pdb.Spec.Selector.MatchLabels).To(Equal(deployment.Spec.Selector.MatchLabels))
		})

		It("tags VMs with the cluster name", func() {
			Expect(envOf(container)).To(HaveKeyWithValue("CLUSTER_NAME", HaveField("Value", "my-cluster")))
		})

		It("tells the controller its node, and leaves the name to the CKS cluster without clusterName", func() {
			Expect(envOf(container)).To(HaveKeyWithValue("NODE_NAME", HaveField("ValueFrom.FieldRef.FieldPath", "spec.nodeName")))
			unnamed := typed[appsv1.Deployment](render(chart, "cloudstack.existingSecret.name=s"), "Deployment", fullname)
			Expect(envOf(onlyContainer(unnamed))).ToNot(HaveKey("CLUSTER_NAME"))
			Expect(renderError(chart, "cloudstack.existingSecret.name=s", "defaultNodeClass.enabled=true",
				"defaultNodeClass.spec.templateSelectorTerms[0].name=t")).To(MatchError(ContainSubstring("defaultNodeClass.spec.networkSelectorTerms is required without clusterName")))
		})
	})

	Context("credentials", func() {
		It("stores inline credentials in a Secret of its own and never in the pod spec", func() {
			r := render(chart, inlineValues...)
			secret := typed[corev1.Secret](r, "Secret", fullname+"-credentials")
			Expect(secret.Data).To(Equal(map[string][]byte{
				"api-url":    []byte("https://cloud.example.com/client/api"),
				"api-key":    []byte("the-api-key"),
				"secret-key": []byte("the-secret-key"),
			}))
			d := typed[appsv1.Deployment](r, "Deployment", fullname)
			env := envOf(onlyContainer(d))
			Expect(env["CLOUDSTACK_API_URL"].ValueFrom).To(Equal(fromSecret(secret.Name, "api-url")))
			Expect(env["CLOUDSTACK_API_KEY"].ValueFrom).To(Equal(fromSecret(secret.Name, "api-key")))
			Expect(env["CLOUDSTACK_SECRET_KEY"].ValueFrom).To(Equal(fromSecret(secret.Name, "secret-key")))
			Expect(env).To(HaveKeyWithValue("CLOUDSTACK_VERIFY_SSL", HaveField("Value", "true")))
			for _, e := range env {
				Expect(e.Value).NotTo(Or(ContainSubstring("the-api-key"), ContainSubstring("the-secret-key")), e.Name)
			}
			Expect(d.Spec.Template.Annotations).To(HaveKey("checksum/credentials"))
		})

		It("reads an existing Secret with the seed's keys, or with other key names", func() {
			r := render(chart, "clusterName=c", "cloudstack.existingSecret.name=cloudstack-credentials")
			Expect(r.OfKind("Secret")).To(BeEmpty())
			env := envOf(onlyContainer(typed[appsv1.Deployment](r, "Deployment", fullname)))
			Expect(env["CLOUDSTACK_API_URL"].ValueFrom).To(Equal(fromSecret("cloudstack-credentials", "api-url")))
			Expect(env["CLOUDSTACK_API_KEY"].ValueFrom).To(Equal(fromSecret("cloudstack-credentials", "api-key")))
			Expect(env["CLOUDSTACK_SECRET_KEY"].ValueFrom).To(Equal(fromSecret("cloudstack-credentials", "secret-key")))

			r = render(chart, "clusterName=c", "cloudstack.existingSecret.name=creds",
				"cloudstack.existingSecret.apiKeyKey=key", "cloudstack.apiUrl=https://other/client/api", "cloudstack.verifySSL=false")
			env = envOf(onlyContainer(typed[appsv1.Deployment](r, "Deployment", fullname)))
			Expect(env["CLOUDSTACK_API_KEY"].ValueFrom).To(Equal(fromSecret("creds", "key")))
			Expect(env).To(HaveKeyWithValue("CLOUDSTACK_API_URL", HaveField("Value", "https://other/client/api")))
			Expect(env).To(HaveKeyWithValue("CLOUDSTACK_VERIFY_SSL", HaveField("Value", "false")))
		})

		It("mounts the CCM's cloud-config Secret as a file the provider re-reads on rotation", func() {
			r := render(chart, "clusterName=c", "cloudstack.cloudConfigSecret.name=cloudstack-secret")
			Expect(r.OfKind("Secret")).To(BeEmpty())
			d := typed[appsv1.Deployment](r, "Deployment", fullname)
			c := onlyContainer(d)
			env := envOf(c)
			Expect(env).To(HaveKeyWithValue("CLOUDSTACK_CLOUD_CONFIG", HaveField("Value", "/etc/cloudstack/cloud-config")))
			Expect(env).NotTo(HaveKey("CLOUDSTACK_API_KEY"))
			Expect(env).NotTo(HaveKey("CLOUDSTACK_SECRET_KEY"))
			Expect(c.VolumeMounts).To(ConsistOf(SatisfyAll(
				HaveField("MountPath", "/etc/cloudstack"), HaveField("ReadOnly", BeTrue()), HaveField("SubPath", BeEmpty()))))
			Expect(d.Spec.Template.Spec.Volumes).To(ConsistOf(HaveField("Secret", SatisfyAll(
				HaveField("SecretName", "cloudstack-secret"),
				HaveField("Items", ConsistOf(corev1.KeyToPath{Key: "cloud-config", Path: "cloud-config"})),
			))))
		})

		DescribeTable("refuses values that do not select exactly one credential source",
			func(message string, set []string) {
				Expect(renderError(chart, set...)).To(MatchError(ContainSubstring(message)))
			},
			Entry("none", "set exactly one of", []string{"clusterName=c"}),
			Entry("inline and a Secret", "set exactly one of", append(inlineValues, "cloudstack.existingSecret.name=s")),
			Entry("a Secret and a cloud-config", "set exactly one of", []string{"clusterName=c",
				"cloudstack.existingSecret.name=s", "cloudstack.cloudConfigSecret.name=cloudstack-secret"}),
			Entry("inline without the URL", "are all required", []string{"clusterName=c", "cloudstack.apiKey=k", "cloudstack.secretKey=s"}),
		)
	})

	Context("a private CA", func() {
		pem := string(test.CACertificatePEM())

		It("mounts cloudstack.caBundle read-only from a ConfigMap and points CLOUDSTACK_CA_FILE at it", func() {
			r := render(chart, append(inlineValues, "cloudstack.caBundle="+pem)...)
			Expect(typed[corev1.ConfigMap](r, "ConfigMap", fullname+"-ca").Data).To(Equal(map[string]string{"ca.pem": pem}))
			d := typed[appsv1.Deployment](r, "Deployment", fullname)
			c := onlyContainer(d)
			Expect(envOf(c)).To(HaveKeyWithValue("CLOUDSTACK_CA_FILE", HaveField("Value", "/etc/cloudstack-ca/ca.pem")))
			Expect(c.VolumeMounts).To(ConsistOf(SatisfyAll(
				HaveField("Name", "ca-bundle"), HaveField("MountPath", "/etc/cloudstack-ca"), HaveField("ReadOnly", BeTrue()))))
			Expect(d.Spec.Template.Spec.Volumes).To(ConsistOf(SatisfyAll(
				HaveField("Name", "ca-bundle"), HaveField("ConfigMap.Name", fullname+"-ca"))))
			// The provider reads the bundle at start-up: a new one must roll the pods.
			Expect(d.Spec.Template.Annotations).To(HaveKey("checksum/ca-bundle"))
		})

		It("mounts the bundle beside the CCM's cloud-config", func() {
			r := render(chart, "clusterName=c", "cloudstack.cloudConfigSecret.name=cloudstack-secret", "cloudstack.caBundle="+pem)
			c := onlyContainer(typed[appsv1.Deployment](r, "Deployment", fullname))
			Expect(envOf(c)).To(SatisfyAll(HaveKey("CLOUDSTACK_CA_FILE"), HaveKey("CLOUDSTACK_CLOUD_CONFIG")))
			Expect(c.VolumeMounts).To(ConsistOf(HaveField("Name", "cloud-config"), HaveField("Name", "ca-bundle")))
		})

		It("renders none of it without the value", func() {
			r := render(chart, inlineValues...)
			Expect(r.Get("ConfigMap", fullname+"-ca")).To(BeNil())
			Expect(envOf(onlyContainer(typed[appsv1.Deployment](r, "Deployment", fullname)))).NotTo(HaveKey("CLOUDSTACK_CA_FILE"))
		})

		It("refuses a bundle without a certificate, or beside verifySSL false", func() {
			Expect(renderError(chart, append(inlineValues, "cloudstack.caBundle=MIIBkTCB+wIJAK")...)).To(MatchError(ContainSubstring("cloudstack.caBundle holds no PEM certificate")))
			Expect(renderError(chart, append(inlineValues, "cloudstack.caBundle="+pem, "cloudstack.verifySSL=false")...)).To(MatchError(
				SatisfyAll(ContainSubstring("cloudstack.caBundle"), ContainSubstring("cloudstack.verifySSL is false"))))
		})
	})

	Context("node repair", func() {
		// gates is the container's one FEATURE_GATES, as core reads it.
		gates := func(set ...string) (string, coreoptions.FeatureGates) {
			GinkgoHelper()
			c := onlyContainer(typed[appsv1.Deployment](render(chart, append(inlineValues, set...)...), "Deployment", fullname))
			named := slices.DeleteFunc(slices.Clone(c.Env), func(e corev1.EnvVar) bool { return e.Name != "FEATURE_GATES" })
			Expect(named).To(HaveLen(1))
			parsed, err := coreoptions.ParseFeatureGates(named[0].Value)
			Expect(err).NotTo(HaveOccurred())
			return named[0].Value, parsed
		}

		It("turns core's NodeRepair gate on with the provider's default tolerations", func() {
			value, parsed := gates()
			Expect(value).To(Equal("NodeRepair=true"))
			Expect(parsed.NodeRepair).To(BeTrue())
			env := envOf(onlyContainer(typed[appsv1.Deployment](render(chart, inlineValues...), "Deployment", fullname)))
			for name, want := range map[string]time.Duration{
				"REPAIR_NOT_READY_TOLERATION":    cscloudprovider.DefaultNotReadyToleration,
				"REPAIR_NODE_PROBLEM_TOLERATION": cscloudprovider.DefaultNodeProblemToleration,
			} {
				Expect(env).To(HaveKey(name))
				Expect(time.ParseDuration(env[name].Value)).To(Equal(want), name)
			}
		})

		It("turns it off with repair.enabled=false", func() {
			value, parsed := gates("repair.enabled=false")
			Expect(value).To(Equal("NodeRepair=false"))
			Expect(parsed.NodeRepair).To(BeFalse())
		})

		It("adds the gate to the user's gates, and leaves a NodeRepair among them as it is", func() {
			value, parsed := gates(`settings.featureGates=NodeOverlay=true`)
			Expect(value).To(Equal("NodeOverlay=true,NodeRepair=true"))
			Expect(parsed.NodeOverlay).To(BeTrue())
			Expect(parsed.NodeRepair).To(BeTrue())

			value, parsed = gates(`settings.featureGates=NodeOverlay=true\, NodeRepair=false`)
			Expect(value).To(Equal("NodeOverlay=true,NodeRepair=false"))
			Expect(parsed.NodeRepair).To(BeFalse())
			value, _ = gates("repair.enabled=false", `settings.featureGates=NodeRepair=true`)
			Expect(value).To(Equal("NodeRepair=true"))
		})

		It("passes the tolerations on", func() {
			env := envOf(onlyContainer(typed[appsv1.Deployment](render(chart, append(inlineValues,
				"repair.notReadyToleration=10m", "repair.nodeProblemToleration=1h")...), "Deployment", fullname)))
			Expect(env).To(HaveKeyWithValue("REPAIR_NOT_READY_TOLERATION", HaveField("Value", "10m")))
			Expect(env).To(HaveKeyWithValue("REPAIR_NODE_PROBLEM_TOLERATION", HaveField("Value", "1h")))
		})

		It("refuses a repair.enabled that is no boolean, and values without the repair block", func() {
			Expect(renderError(chart, append(inlineValues, "repair.enabled=yes")...)).To(MatchError(ContainSubstring(`repair.enabled is "yes": want true or false`)))
			Expect(renderError(chart, append(inlineValues, "repair=null")...)).To(MatchError(ContainSubstring("upgrade with --reset-then-reuse-values")))
		})
	})

	It("passes prices to the provider through a ConfigMap only its Role may read", func() {
		r := render(chart, append(inlineValues, "pricing.configMapName=prices", `pricing.prices.gp\.large=0.12`)...)
		Expect(typed[corev1.ConfigMap](r, "ConfigMap", "prices").Data).To(Equal(map[string]string{"gp.large": "0.12"}))
		env := envOf(onlyContainer(typed[appsv1.Deployment](r, "Deployment", fullname)))
		Expect(env).To(HaveKeyWithValue("PRICING_CONFIGMAP", HaveField("Value", "prices")))
		Expect(env).To(HaveKeyWithValue("SYSTEM_NAMESPACE", HaveField("ValueFrom.FieldRef.FieldPath", "metadata.namespace")))
		role := typed[rbacv1.Role](r, "Role", fullname)
		Expect(role.Rules).To(ContainElement(rbacv1.PolicyRule{
			APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"prices"}, Verbs: []string{"get"}}))
		Expect(render(chart, inlineValues...).OfKind("ConfigMap")).To(BeEmpty())
	})

	It("narrows the ServiceAccount it runs as, also one it does not create, to the provider's own tokens", func() {
		r := render(chart, append(inlineValues, "serviceAccount.create=false", "serviceAccount.name=existing")...)
		policy := typed[admissionregistrationv1.ValidatingAdmissionPolicy](r, "ValidatingAdmissionPolicy", fullname+"-bootstrap-tokens")
		Expect(policy.Spec.MatchConditions).To(ConsistOf(HaveField("Expression",
			ContainSubstring(`"system:serviceaccount:`+namespace+`:existing"`))))
		Expect(policy.Spec.Validations).To(ContainElement(HaveField("Expression", ContainSubstring(`"`+bootstrap.LabelNodeClaim+`"`))),
			"the label the provider puts on its tokens")
		binding := typed[admissionregistrationv1.ValidatingAdmissionPolicyBinding](r, "ValidatingAdmissionPolicyBinding", fullname+"-bootstrap-tokens")
		Expect(binding.Spec.PolicyName).To(Equal(policy.Name))
		Expect(binding.Spec.ValidationActions).To(Equal([]admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}))
	})

	It("creates a ServiceMonitor only when asked", func() {
		Expect(render(chart, inlineValues...).OfKind("ServiceMonitor")).To(BeEmpty())
		r := render(chart, append(inlineValues, "serviceMonitor.enabled=true", "serviceMonitor.additionalLabels.release=prom")...)
		monitors := r.OfKind("ServiceMonitor")
		Expect(monitors).To(HaveLen(1))
		Expect(monitors[0].GetLabels()).To(HaveKeyWithValue("release", "prom"))
		Expect(monitors[0].Object["spec"]).To(HaveKeyWithValue("endpoints",
			ConsistOf(HaveKeyWithValue("port", "http-metrics"))))
	})

	It("ships Karpenter core's CRDs and the CloudStackNodeClass CRD", func() {
		var names []string
		for _, crd := range render(chart, inlineValues...).CRDs {
			names = append(names, crd.GetName())
		}
		Expect(names).To(ConsistOf(
			"cloudstacknodeclasses.karpenter.k8s.cloudstack",
			"nodepools.karpenter.sh",
			"nodeclaims.karpenter.sh",
			"nodeoverlays.karpenter.sh",
			"capacitybuffers.autoscaling.x-k8s.io",
		))
	})

	Context("default NodeClass and NodePool", func() {
		It("creates neither unless asked", func() {
			r := render(chart, inlineValues...)
			Expect(r.OfKind("NodePool", "CloudStackNodeClass")).To(BeEmpty())
		})

		It("creates an on-demand-only NodePool on a NodeClass discovering the cluster's networks", func() {
			r := render(chart, append(inlineValues, "defaultNodeClass.enabled=true", "defaultNodePool.enabled=true",
				"defaultNodeClass.spec.templateSelectorTerms[0].name=ubuntu-24.04")...)
			nodeClass := typed[v1.CloudStackNodeClass](r, "CloudStackNodeClass", "default")
			Expect(nodeClass.Spec.NetworkSelectorTerms).To(ConsistOf(v1.SelectorTerm{Tags: map[string]string{"karpenter.sh/discovery": "my-cluster"}}))
			Expect(nodeClass.Spec.TemplateSelectorTerms).To(ConsistOf(v1.SelectorTerm{Name: "ubuntu-24.04"}))

			nodePool := typed[karpv1.NodePool](r, "NodePool", "default")
			Expect(nodePool.Spec.Template.Spec.NodeClassRef).To(HaveValue(Equal(karpv1.NodeClassReference{
				Group: "karpenter.k8s.cloudstack", Kind: "CloudStackNodeClass", Name: "default"})))
			capacityTypes := slices.IndexFunc(nodePool.Spec.Template.Spec.Requirements, func(r karpv1.NodeSelectorRequirementWithMinValues) bool {
				return r.Key == karpv1.CapacityTypeLabelKey
			})
			Expect(capacityTypes).NotTo(Equal(-1))
			Expect(nodePool.Spec.Template.Spec.Requirements[capacityTypes].Operator).To(Equal(corev1.NodeSelectorOpIn))
			Expect(nodePool.Spec.Template.Spec.Requirements[capacityTypes].Values).To(ConsistOf(karpv1.CapacityTypeOnDemand))
		})

		It("refuses a default NodeClass without templates", func() {
			Expect(renderError(chart, append(inlineValues, "defaultNodeClass.enabled=true")...)).
				To(MatchError(ContainSubstring("templateSelectorTerms is required")))
		})
	})
})

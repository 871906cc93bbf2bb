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
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

var _ = Describe("fakecloudstack chart", func() {
	const fake = "fakecloudstack"
	const fakeName = release + "-fakecloudstack"

	It("serves the embedded world on the Service port with no configuration", func() {
		r := render(fake)
		d := typed[appsv1.Deployment](r, "Deployment", fakeName)
		Expect(d.Spec.Replicas).To(HaveValue(BeEquivalentTo(1)))
		c := onlyContainer(d)
		Expect(c.Args).To(ConsistOf("--listen=0.0.0.0:8080"))
		Expect(c.Env).To(HaveLen(1))
		Expect(envOf(c)["FAKECLOUDSTACK_ADMIN_TOKEN"].ValueFrom).To(Equal(fromSecret(fakeName+"-admin", "admin-token")))
		token := typed[corev1.Secret](r, "Secret", fakeName+"-admin").Data["admin-token"]
		Expect(token).To(HaveLen(40), "a generated admin token")
		Expect(typed[corev1.Secret](render(fake), "Secret", fakeName+"-admin").Data["admin-token"]).NotTo(Equal(token), "tokens are random")
		Expect(c.ReadinessProbe.HTTPGet).To(SatisfyAll(HaveField("Path", "/healthz"), HaveField("Port", intstr.FromString("http"))))
		Expect(c.SecurityContext.ReadOnlyRootFilesystem).To(HaveValue(BeTrue()))
		service := typed[corev1.Service](r, "Service", fakeName)
		Expect(service.Spec.Ports).To(ConsistOf(HaveField("Port", BeEquivalentTo(8080))))
		Expect(service.Spec.Selector).To(Equal(d.Spec.Template.Labels))
		Expect(r.OfKind("ConfigMap", "ClusterRole", "Role")).To(BeEmpty())
		Expect(r.OfKind("Secret")).To(HaveLen(1))
	})

	It("fixes the keys, loads a world file and runs the node simulator with its own identity", func() {
		r := render(fake, "apiKey=K", "secretKey=S", "config.zones[0].name=zone-x", "nodeSimulator.enabled=true")
		d := typed[appsv1.Deployment](r, "Deployment", fakeName)
		c := onlyContainer(d)
		Expect(c.Args).To(ConsistOf("--listen=0.0.0.0:8080",
			"--config=/etc/fakecloudstack/config.yaml", "--kubeconfig=/etc/fakecloudstack/kubeconfig"))
		Expect(envOf(c)["FAKECLOUDSTACK_API_KEY"].ValueFrom).To(Equal(fromSecret(fakeName, "api-key")))
		Expect(envOf(c)["FAKECLOUDSTACK_SECRET_KEY"].ValueFrom).To(Equal(fromSecret(fakeName, "secret-key")))
		Expect(typed[corev1.Secret](r, "Secret", fakeName).Data).To(HaveKeyWithValue("api-key", []byte("K")))

		configMap := typed[corev1.ConfigMap](r, "ConfigMap", fakeName)
		var world map[string]any
		Expect(yaml.Unmarshal([]byte(configMap.Data["config.yaml"]), &world)).To(Succeed())
		Expect(world).To(HaveKeyWithValue("zones", ConsistOf(HaveKeyWithValue("name", "zone-x"))))
		Expect(configMap.Data["kubeconfig"]).To(ContainSubstring("tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token"))

		role := typed[rbacv1.ClusterRole](r, "ClusterRole", fakeName+"-nodesim")
		Expect(role.Rules).To(ConsistOf(
			rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"list", "watch", "create", "patch"}},
			rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"nodes/status"}, Verbs: []string{"patch"}},
		))
		binding := typed[rbacv1.ClusterRoleBinding](r, "ClusterRoleBinding", fakeName+"-nodesim")
		Expect(binding.Subjects).To(ConsistOf(HaveField("Name", d.Spec.Template.Spec.ServiceAccountName)))

		// A stopped VM's Node loses its heartbeat through its Lease (nodesim/lease.go).
		leaseRole := typed[rbacv1.Role](r, "Role", fakeName+"-nodesim")
		Expect(leaseRole.Namespace).To(Equal("kube-node-lease"))
		Expect(leaseRole.Rules).To(ConsistOf(
			rbacv1.PolicyRule{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "create", "patch"}},
		))
		leaseBinding := typed[rbacv1.RoleBinding](r, "RoleBinding", fakeName+"-nodesim")
		Expect(leaseBinding.Namespace).To(Equal("kube-node-lease"))
		Expect(leaseBinding.RoleRef.Name).To(Equal(fakeName + "-nodesim"))
		Expect(leaseBinding.Subjects).To(ConsistOf(HaveField("Name", d.Spec.Template.Spec.ServiceAccountName)))
	})

	It("mounts the node's container engine socket and runs as root only for real VMs", func() {
		plain := typed[appsv1.Deployment](render(fake, "config.zones[0].name=zone-x"), "Deployment", fakeName).Spec.Template.Spec
		Expect(plain.Volumes).To(ConsistOf(HaveField("Name", "config")))
		Expect(plain.SecurityContext.RunAsNonRoot).To(HaveValue(BeTrue()))

		pod := typed[appsv1.Deployment](render(fake, "config.zones[0].name=zone-x", "realVMs.enabled=true"), "Deployment", fakeName).Spec.Template.Spec
		Expect(pod.Volumes).To(ContainElement(corev1.Volume{Name: "docker", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{
			Path: "/var/run/docker-host.sock", Type: new(corev1.HostPathType(corev1.HostPathSocket))}}}))
		Expect(pod.Containers[0].VolumeMounts).To(ContainElement(corev1.VolumeMount{Name: "docker", MountPath: "/var/run/docker.sock"}))
		Expect(pod.SecurityContext.RunAsUser).To(HaveValue(BeEquivalentTo(0)))
	})

	It("takes a fixed admin token", func() {
		r := render(fake, "adminToken=T0K3N")
		Expect(typed[corev1.Secret](r, "Secret", fakeName+"-admin").Data).To(HaveKeyWithValue("admin-token", []byte("T0K3N")))
	})

	It("refuses one key without the other", func() {
		Expect(renderError(fake, "apiKey=K")).To(MatchError(ContainSubstring("set both apiKey and secretKey")))
	})
})

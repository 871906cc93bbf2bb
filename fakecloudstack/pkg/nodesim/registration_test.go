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

package nodesim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
)

const testVMID = "6f1f6b2e-1c2d-4e5f-8a9b-0c1d2e3f4a5b"

var unregistered = corev1.Taint{Key: "karpenter.sh/unregistered", Effect: corev1.TaintEffectNoExecute}

func resources(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

// reg fills the empty collections ParseUserData always returns, so cases list only what matters.
func reg(r Registration) Registration {
	if r.Labels == nil {
		r.Labels = map[string]string{}
	}
	if r.KubeReserved == nil {
		r.KubeReserved = corev1.ResourceList{}
	}
	if r.SystemReserved == nil {
		r.SystemReserved = corev1.ResourceList{}
	}
	return r
}

const kubeadmV1beta3 = `apiVersion: kubeadm.k8s.io/v1beta3
kind: JoinConfiguration
discovery:
  bootstrapToken:
    apiServerEndpoint: 10.0.0.1:6443
    token: abcdef.0123456789abcdef
    unsafeSkipCAVerification: true
nodeRegistration:
  taints:
  - key: karpenter.sh/unregistered
    effect: NoExecute
  kubeletExtraArgs:
    provider-id: external-cloudstack://{{ ds.meta_data.instance_id }}
    node-labels: karpenter.sh/nodepool=default,team=a
    max-pods: "42"
    cgroup-driver: systemd
`

const kubeadmV1beta4 = `apiVersion: kubeadm.k8s.io/v1beta4
kind: JoinConfiguration
nodeRegistration:
  kubeletExtraArgs:
  - name: provider-id
    value: "external-cloudstack://{{v1.instance_id}}"
  - name: node-labels
    value: karpenter.sh/nodepool=gpu
  - name: register-with-taints
    value: karpenter.sh/unregistered:NoExecute,gpu=true:NoSchedule
  - name: kube-reserved
    value: cpu=100m,memory=256Mi
`

const kubeletConfiguration = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
providerID: external-cloudstack://{{ ds.meta_data.instance_id }}
maxPods: 30
kubeReserved:
  cpu: 200m
  memory: 1Gi
systemReserved:
  memory: 512Mi
evictionHard:
  memory.available: 5%
registerWithTaints:
- key: karpenter.sh/unregistered
  effect: NoExecute
`

func TestParseUserData(t *testing.T) {
	for _, tc := range []struct {
		name     string
		userData string
		want     Registration
	}{
		{name: "no userdata", userData: "", want: Registration{}},
		{
			name: "KUBELET_EXTRA_ARGS in a script",
			userData: b64(`## template: jinja
#!/bin/bash
set -euo pipefail
KUBELET_EXTRA_ARGS="--node-labels=karpenter.sh/nodepool=default,team=a --register-with-taints=karpenter.sh/unregistered:NoExecute,dedicated=gpu:NoSchedule --max-pods=58 --kube-reserved=cpu=100m,memory=512Mi --system-reserved cpu=50m --eviction-hard='memory.available<200Mi,nodefs.available<5%'"
echo "KUBELET_EXTRA_ARGS=$KUBELET_EXTRA_ARGS --provider-id=external-cloudstack://{{ ds.meta_data.instance_id }}" > /etc/default/kubelet
`),
			want: reg(Registration{
				ProviderID: "external-cloudstack://" + testVMID,
				Labels:     map[string]string{"karpenter.sh/nodepool": "default", "team": "a"},
				Taints: []corev1.Taint{unregistered,
					{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}},
				MaxPods:        58,
				KubeReserved:   resources("cpu", "100m", "memory", "512Mi"),
				SystemReserved: resources("cpu", "50m"),
				EvictionHard:   map[string]string{"memory.available": "200Mi", "nodefs.available": "5%"},
			}),
		},
		{
			name: "kubelet command line with continuations, later flags win, labels merge",
			userData: b64(`## template: jinja
#!/bin/sh
/usr/bin/kubelet --max-pods 10 \
  --node-labels "a=1" \
  --node-labels=b=2 \
  --max-pods=20 \
  --provider-id=external-cloudstack://{{v1.instance_id}} &
`),
			want: reg(Registration{
				ProviderID: "external-cloudstack://" + testVMID,
				Labels:     map[string]string{"a": "1", "b": "2"},
				MaxPods:    20,
			}),
		},
		{
			name: "systemd drop-in and kubeadm v1beta3 written by here-documents",
			userData: b64("## template: jinja\n#!/bin/bash\ncat > /etc/systemd/system/kubelet.service.d/20-labels.conf <<'EOF'\n[Service]\n" +
				"Environment=\"KUBELET_EXTRA_ARGS=--system-reserved=memory=128Mi\"\nEOF\n" +
				"cat <<-EOF >/tmp/join.yaml\n" + kubeadmV1beta3 + "\tEOF\nkubeadm join --config /tmp/join.yaml\n"),
			want: reg(Registration{
				ProviderID:     "external-cloudstack://" + testVMID,
				Labels:         map[string]string{"karpenter.sh/nodepool": "default", "team": "a"},
				Taints:         []corev1.Taint{unregistered},
				MaxPods:        42,
				SystemReserved: resources("memory", "128Mi"),
			}),
		},
		{
			name: "cloud-config with kubeadm v1beta4 in write_files",
			userData: b64("## template: jinja\n#cloud-config\nwrite_files:\n- path: /etc/kubeadm/join.yaml\n  content: |\n" +
				indent(kubeadmV1beta4, "    ") + "runcmd:\n- [kubeadm, join, --config, /etc/kubeadm/join.yaml]\n"),
			want: reg(Registration{
				ProviderID: "external-cloudstack://" + testVMID,
				Labels:     map[string]string{"karpenter.sh/nodepool": "gpu"},
				Taints: []corev1.Taint{unregistered,
					{Key: "gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}},
				KubeReserved: resources("cpu", "100m", "memory", "256Mi"),
			}),
		},
		{
			// cloud-init renders jinja in the document, not inside base64 content: the providerID
			// comes from the flag, which overrides the file's unrendered one.
			name: "cloud-config with a KubeletConfiguration in b64 and flags in runcmd overriding it",
			userData: b64("## template: jinja\n#cloud-config\nwrite_files:\n- path: /var/lib/kubelet/config.yaml\n" +
				"  encoding: b64\n  content: " + b64(kubeletConfiguration) + "\n" +
				"runcmd:\n- echo 'KUBELET_EXTRA_ARGS=--max-pods=64 --provider-id=external-cloudstack://{{ ds.meta_data.instance_id }}' > /etc/default/kubelet\n"),
			want: reg(Registration{
				ProviderID:     "external-cloudstack://" + testVMID,
				Taints:         []corev1.Taint{unregistered},
				MaxPods:        64,
				KubeReserved:   resources("cpu", "200m", "memory", "1Gi"),
				SystemReserved: resources("memory", "512Mi"),
				EvictionHard:   map[string]string{"memory.available": "5%"},
			}),
		},

		{
			name:     "gzip before base64",
			userData: b64(string(gzipped(t, "#!/bin/bash\nkubelet --max-pods=7\n"))),
			want:     reg(Registration{MaxPods: 7}),
		},
		{
			name: "MIME multipart with cloud-config, jinja and gzip script parts",
			userData: b64(mimeArchive(
				[2]string{"text/cloud-config", "packages: [jq]\n"},
				[2]string{"text/jinja2", "## template: jinja\n#cloud-config\nwrite_files:\n- path: /etc/kubeadm/join.yaml\n  content: |\n" +
					indent(kubeadmV1beta3, "    ")},
				[2]string{"application/gzip", string(gzipped(t, "#!/bin/bash\nkubelet --node-labels=extra=yes\n"))},
			)),
			want: reg(Registration{
				ProviderID: "external-cloudstack://" + testVMID,
				Labels:     map[string]string{"karpenter.sh/nodepool": "default", "team": "a", "extra": "yes"},
				Taints:     []corev1.Taint{unregistered},
				MaxPods:    42,
			}),
		},
		{
			name: "MIME archive nested in a MIME archive",
			userData: b64(mimeArchive([2]string{`multipart/mixed; boundary="inner"`,
				"--inner\nContent-Type: text/cloud-config\n\n#cloud-config\nwrite_files:\n- encoding: b64\n  content: " +
					b64("#!/bin/sh\nkubelet --max-pods=12") + "\n--inner--"})),
			want: reg(Registration{MaxPods: 12}),
		},
		{
			name: "MIME message of a single quoted-printable part",
			userData: b64("MIME-Version: 1.0\nContent-Type: text/x-shellscript\nContent-Transfer-Encoding: quoted-printable\n\n" +
				"#!/bin/sh\nkubelet --max-pods=3D21\n"),
			want: reg(Registration{MaxPods: 21}),
		},
		{
			name:     "shifts and here-strings are not here-documents",
			userData: b64("#!/bin/bash\nMEM=$((1 << 20))\ncat <<<\"$MEM\"\nkubelet --max-pods=33\n"),
			want:     reg(Registration{MaxPods: 33}),
		},
		{
			name: "allowed kubelet labels in kubernetes.io namespaces",
			userData: b64("#!/bin/sh\nkubelet --node-labels=node.kubernetes.io/instance-type=big," +
				"kubelet.kubernetes.io/x=y,topology.kubernetes.io/zone=z1\n"),
			want: reg(Registration{Labels: map[string]string{
				"node.kubernetes.io/instance-type": "big", "kubelet.kubernetes.io/x": "y", "topology.kubernetes.io/zone": "z1",
			}}),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseUserData(tc.userData, testVMID)
			if err != nil {
				t.Fatalf("ParseUserData: %v", err)
			}
			if !equality.Semantic.DeepEqual(got, tc.want) {
				t.Errorf("ParseUserData:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func indent(text, prefix string) string {
	lines := strings.SplitAfter(text, "\n")
	for i, line := range lines {
		if line != "" {
			lines[i] = prefix + line
		}
	}
	return strings.Join(lines, "")
}

func TestParseUserDataRejectsWhatAKubeletWouldReject(t *testing.T) {
	for _, tc := range []struct {
		name, userData, errContains string
	}{
		{"not base64", "!!!", "base64"},
		{"broken gzip", b64("\x1f\x8bnot gzip"), "gzip"},
		{"taint without effect", b64("#!/bin/sh\nkubelet --register-with-taints=a=b"), "register-with-taints"},
		{"unknown taint effect", b64("#!/bin/sh\nkubelet --register-with-taints=a=b:Sometimes"), "register-with-taints"},
		{"node-role label", b64("#!/bin/sh\nkubelet --node-labels=node-role.kubernetes.io/worker="), "refuses"},
		{"kubernetes.io label", b64("#!/bin/sh\nkubelet --node-labels=kubernetes.io/custom=x"), "refuses"},
		{"invalid label value", b64("#!/bin/sh\nkubelet --node-labels=a=not/valid"), "node-labels"},
		{"label without value", b64("#!/bin/sh\nkubelet --node-labels=a"), "node-labels"},
		{"max-pods not a number", b64("#!/bin/sh\nkubelet --max-pods=many"), "max-pods"},
		{"reserved quantity", b64("#!/bin/sh\nkubelet --kube-reserved=cpu=lots"), "kube-reserved"},
		{"reserving an unknown resource", b64("#!/bin/sh\nkubelet --system-reserved=gpu=1"), "cannot reserve"},
		{"negative reservation", b64("#!/bin/sh\nkubelet --kube-reserved=memory=-1Gi"), "negative"},
		{"unknown eviction signal", b64("#!/bin/sh\nkubelet --eviction-hard=memory.free<1Gi"), "unknown signal"},
		{"eviction without threshold", b64("#!/bin/sh\nkubelet --eviction-hard=memory.available=1Gi"), "eviction-hard"},
		{"eviction percentage", b64("#!/bin/sh\nkubelet --eviction-hard=memory.available<150%"), "eviction-hard"},
		{"broken cloud-config", b64("#cloud-config\nwrite_files: [\n"), "cloud-config"},
		{"kubeletExtraArgs of the wrong shape", b64("#!/bin/sh\ncat > /etc/join.yaml <<EOF\nkind: JoinConfiguration\nnodeRegistration:\n  kubeletExtraArgs: 3\nEOF\n"), "kubeletExtraArgs"},
		{"maxPods not a number", b64("#!/bin/sh\ncat > /etc/kubelet.yaml <<EOF\nkind: KubeletConfiguration\nmaxPods: many\nEOF\n"), "kubelet configuration"},
		{"gzip bomb", b64(string(gzipped(t, strings.Repeat("a", maxDecodedBytes+1)))), "4 MiB"},
		{"MIME without boundary", b64("MIME-Version: 1.0\nContent-Type: multipart/mixed\n\nbody"), "MIME"},
		{"a provider id cloud-init did not render", b64("#!/bin/sh\nkubelet --provider-id=external-cloudstack://{{ ds.meta_data.instance_id }}\n"), "## template: jinja"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseUserData(tc.userData, testVMID)
			if err == nil || !strings.Contains(err.Error(), tc.errContains) {
				t.Fatalf("ParseUserData error = %v, want one mentioning %q", err, tc.errContains)
			}
		})
	}
}

func TestParseUserDataErrorsDoNotQuoteTheUserData(t *testing.T) {
	const token = "abcdef.0123456789abcdef"
	for _, userData := range []string{
		"#cloud-config\nwrite_files: [{content: '" + token + "'\n",
		"#!/bin/sh\ncat > /etc/join.yaml <<EOF\nkind: JoinConfiguration\ndiscovery: {bootstrapToken: {token: " + token + "}}\nnodeRegistration: {kubeletExtraArgs: [" + token + "]}\nEOF\n",
	} {
		_, err := ParseUserData(b64(userData), testVMID)
		if err == nil {
			t.Fatalf("ParseUserData(%q) succeeded, want an error", userData)
		}
		if strings.Contains(err.Error(), token) || strings.Contains(err.Error(), "0123456789abcdef") {
			t.Errorf("error quotes the bootstrap token: %v", err)
		}
	}
}

// providerGolden is userdata the provider renders, from its golden files.
func providerGolden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "provider", "pkg", "providers", "bootstrap", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseUserDataRefusesATemplateWithoutTheJinjaHeader(t *testing.T) {
	documented := providerGolden(t, "template-script.golden")
	got, err := ParseUserData(b64(documented), testVMID)
	if err != nil || got.ProviderID != "external-cloudstack://"+testVMID {
		t.Fatalf("the documented template registers with %q, %v; want the VM's providerID", got.ProviderID, err)
	}
	headerless := strings.TrimPrefix(documented, "## template: jinja\n")
	if _, err := ParseUserData(b64(headerless), testVMID); err == nil || !strings.Contains(err.Error(), "## template: jinja") {
		t.Fatalf("the template without its jinja header: error %v, want one naming the header", err)
	}
}

// Documents cloud-init runs no handler for start no kubelet, whatever they hold.
func TestParseUserDataRunsOnlyWhatCloudInitRuns(t *testing.T) {
	flags := "kubelet --max-pods=7\n"
	for _, tc := range []struct {
		name, userData string
		maxPods        int
	}{
		{"a script", "#!/bin/sh\n" + flags, 7},
		{"a document without a cloud-init first line", flags, 0},
		{"a bare kubeadm document", kubeadmV1beta3, 0},
		{"a jinja header cloud-init does not type as jinja", "##template:jinja\n#!/bin/sh\n" + flags, 0},
		{"a jinja part rendering to neither cloud-config nor a script", mimeArchive([2]string{"text/jinja2", "## template: jinja\n" + flags}), 0},
		{"a text/jinja2 part without the header", mimeArchive([2]string{"text/jinja2", "#!/bin/sh\n" + flags}), 0},
		{"a text/plain part typed by its first line", mimeArchive([2]string{"text/plain", "#!/bin/sh\n" + flags}), 7},
		{"a part of a type cloud-init has no handler for", mimeArchive([2]string{"application/json", "#!/bin/sh\n" + flags}), 0},
		{"gzip in a part cloud-init does not inflate", mimeArchive([2]string{"text/x-shellscript", string(gzipped(t, "#!/bin/sh\n"+flags))}), 0},
		{"gzip in an application/gzip part", mimeArchive([2]string{"application/gzip", string(gzipped(t, "#!/bin/sh\n"+flags))}), 7},
		{"multipart without MIME-Version", "Content-Type: multipart/mixed; boundary=\"X\"\n\n--X\nContent-Type: text/x-shellscript\n\n#!/bin/sh\n" + flags + "--X--\n", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseUserData(b64(tc.userData), testVMID)
			if err != nil {
				t.Fatalf("ParseUserData: %v", err)
			}
			if got.MaxPods != tc.maxPods {
				t.Errorf("max pods %d, want %d", got.MaxPods, tc.maxPods)
			}
		})
	}
}

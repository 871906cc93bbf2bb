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

package bootstrap

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/yaml"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

// The oracles are the real programs that read the userdata on a VM: Debian's cloud-init
// (CLOUD_INIT, else cloud-init on PATH) splits it into parts with its own UserDataProcessor
// (testdata/cloudinit/parts.py), renders jinja parts with `cloud-init devel render` against the
// instance data its CloudStack datasource writes, and validates cloud-config with
// `cloud-init schema`; kubeadm (bin/kubeadm) validates the JoinConfiguration. A missing program
// fails the tests with the command that installs it.

// oracleVMID is the VM uuid the metadata service of the VR serves as instance-id.
const oracleVMID = "6f1c0f4e-3d0a-4a51-9b43-0c8a1f7f2a10"

type oracle struct {
	cloudInit, python, kubeadm, dir, instanceData string
}

func newOracle() *oracle {
	GinkgoHelper()
	cloudInit, err := exec.LookPath(cmp.Or(os.Getenv("CLOUD_INIT"), "cloud-init"))
	Expect(err).ToNot(HaveOccurred(), "the bootstrap oracle tests run Debian's cloud-init: `make cloud-init` installs it (as root, with apt) or says how; CLOUD_INIT may name the executable")
	kubeadm, err := test.Binary("kubeadm")
	Expect(err).ToNot(HaveOccurred())
	o := &oracle{cloudInit: cloudInit, python: interpreter(cloudInit), kubeadm: kubeadm, dir: GinkgoT().TempDir()}
	o.instanceData = o.write("instance-data.json", string(cloudStackInstanceData(oracleVMID, "general-x7k2p", "zone-a")))
	return o
}

// interpreter is the Python of the cloud-init executable's shebang, whose path holds the
// packaged cloudinit library.
func interpreter(cloudInit string) string {
	GinkgoHelper()
	script, err := os.ReadFile(cloudInit)
	Expect(err).ToNot(HaveOccurred())
	line, _, _ := bytes.Cut(script, []byte("\n"))
	python, found := strings.CutPrefix(string(line), "#!")
	Expect(found).To(BeTrue(), "%s is not a Python script", cloudInit)
	return strings.Fields(python)[0]
}

// cloudStackInstanceData is /run/cloud-init/instance-data-sensitive.json as cloud-init's
// CloudStack datasource writes it: ds.meta_data is what the virtual router serves under
// latest/meta-data (CloudStack's VmDataCommand), v1 the standardized keys.
func cloudStackInstanceData(vmID, hostname, zone string) []byte {
	v1 := map[string]any{
		"_beta_keys": []string{"subplatform"}, "cloud_id": "cloudstack", "cloud-name": "cloudstack", "cloud_name": "cloudstack",
		"distro": "ubuntu", "distro_version": "22.04", "distro_release": "jammy", "platform": "cloudstack",
		"subplatform": "metadata (http://10.1.0.1/)", "public_ssh_keys": []string{}, "python_version": "3.10.12",
		"instance-id": vmID, "instance_id": vmID, "local-hostname": hostname, "local_hostname": hostname,
		"availability-zone": zone, "availability_zone": zone, "region": nil, "kernel_release": "5.15.0-91-generic",
		"machine": "x86_64", "system_platform": "Linux-5.15.0-91-generic-x86_64-with-glibc2.35", "variant": "ubuntu",
	}
	data := map[string]any{
		"base64_encoded_keys": []string{},
		"sensitive_keys":      []string{"merged_cfg"},
		"ds": map[string]any{
			"_doc": "EXPERIMENTAL: The structure and format of content scoped under the 'ds' key may change in subsequent releases of cloud-init.",
			"meta_data": map[string]any{
				"service-offering": "gp.large", "availability-zone": zone, "local-ipv4": "10.1.0.12",
				"local-hostname": hostname, "public-ipv4": "192.0.2.10", "public-hostname": "192.0.2.10",
				"instance-id": vmID, "vm-id": vmID, "public-keys": "", "cloud-identifier": "",
				"hypervisor-host-name": "kvm-01",
			},
		},
		"merged_cfg": map[string]any{"_doc": "Merged cloud-init system config from /etc/cloud/cloud.cfg and /etc/cloud/cloud.cfg.d/"},
		"sys_info":   map[string]any{"dist": []string{"ubuntu", "22.04", "jammy"}, "platform": v1["system_platform"], "python": v1["python_version"], "uname": []string{"Linux", hostname, "5.15.0-91-generic", "#101-Ubuntu SMP", "x86_64", "x86_64"}, "variant": "ubuntu"},
		"v1":         v1,
	}
	maps.Copy(data, v1) // cloud-init copies the v1 keys to the top level as aliases
	out, err := json.Marshal(data)
	Expect(err).ToNot(HaveOccurred())
	return out
}

func (o *oracle) write(name, content string) string {
	GinkgoHelper()
	path := filepath.Join(o.dir, name)
	Expect(os.WriteFile(path, []byte(content), 0o600)).To(Succeed())
	return path
}

func (o *oracle) run(name string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", filepath.Base(name), strings.Join(args, " "), err, strings.TrimSpace(stdout.String()+stderr.String()))
	}
	return stdout.String(), nil
}

// compose is the userdata a launch with data deploys.
func compose(nodeClass *v1.CloudStackNodeClass, data *Data) (string, error) {
	rendered, err := render(nodeClass, data)
	if err != nil {
		return "", err
	}
	return assemble(nodeClass, rendered)
}

// cloudInitPart is one part as cloud-init types it before running it.
type cloudInitPart struct {
	Type    string `json:"type"`
	Payload string `json:"payload"`
}

// split is the parts cloud-init makes of raw userdata, each typed.
func (o *oracle) split(raw string) ([]cloudInitPart, error) {
	out, err := o.run(o.python, filepath.Join("testdata", "cloudinit", "parts.py"), o.write("user-data", raw))
	if err != nil {
		return nil, err
	}
	var parts []cloudInitPart
	if err := json.Unmarshal([]byte(out), &parts); err != nil {
		return nil, fmt.Errorf("reading the parts cloud-init split, %w", err)
	}
	return parts, nil
}

// documents are what cloud-init would run of a base64 userdata: every part, jinja rendered,
// each checked by the program that reads it on a VM.
func (o *oracle) documents(userData string) ([]string, error) {
	raw, err := base64.StdEncoding.DecodeString(userData)
	if err != nil {
		return nil, err
	}
	parts, err := o.split(string(raw))
	if err != nil {
		return nil, err
	}
	var docs []string
	for i, p := range parts {
		doc := p.Payload
		switch p.Type {
		case "text/jinja2":
			if doc, err = o.run(o.cloudInit, "devel", "render", "--instance-data", o.instanceData, o.write(fmt.Sprintf("part-%d", i), p.Payload)); err != nil {
				return nil, err
			}
			if strings.Contains(doc, "CI_MISSING_JINJA_VAR") {
				return nil, fmt.Errorf("part %d uses instance data cloud-init does not have: %s", i, doc)
			}
		case "text/cloud-config", "text/x-shellscript":
		default:
			return nil, fmt.Errorf("part %d has type %s, which cloud-init does not run", i, p.Type)
		}
		if err := o.check(doc, i); err != nil {
			return nil, err
		}
		docs = append(docs, doc)
	}
	return docs, nil
}

// check runs a document's own judge: cloud-init's schema for cloud-config, bash for scripts.
func (o *oracle) check(doc string, i int) error {
	path := o.write(fmt.Sprintf("doc-%d", i), doc)
	switch {
	case strings.HasPrefix(doc, "#cloud-config"):
		_, err := o.run(o.cloudInit, "schema", "--config-file", path)
		return err
	case strings.HasPrefix(doc, "#!"):
		_, err := o.run("bash", "-n", path)
		return err
	}
	return fmt.Errorf("document %d is neither cloud-config nor a script after rendering, so cloud-init ignores it", i)
}

// cloudConfig holds what the kubelet's settings travel in.
type cloudConfig struct {
	WriteFiles []struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	} `json:"write_files"`
	RunCmd []any `json:"runcmd"`
}

// extraArgs are the kubelet flags of KUBELET_EXTRA_ARGS="..." lines (/etc/default/kubelet).
var extraArgs = regexp.MustCompile(`KUBELET_EXTRA_ARGS=["']?([^"'\n]*)`)

// kubeletFlags are the flags the kubelet starts with: a JoinConfiguration's kubeletExtraArgs,
// validated by kubeadm, or KUBELET_EXTRA_ARGS written before kubeadm join starts the kubelet.
func (o *oracle) kubeletFlags(docs []string) (map[string]string, error) {
	flags := map[string]string{}
	for i, doc := range docs {
		texts := []string{doc}
		if strings.HasPrefix(doc, "#cloud-config") {
			var cc cloudConfig
			if err := yaml.Unmarshal([]byte(doc), &cc); err != nil {
				return nil, err
			}
			texts = nil
			for _, f := range cc.WriteFiles {
				if f.Path == joinConfigPath {
					if err := o.joinFlags(f.Content, flags); err != nil {
						return nil, err
					}
				}
				texts = append(texts, f.Content)
			}
		} else if err := kubeletConfiguredBeforeJoin(doc); err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		for _, text := range texts {
			for _, m := range extraArgs.FindAllStringSubmatch(text, -1) {
				for _, flag := range strings.Fields(m[1]) {
					name, value, _ := strings.Cut(strings.TrimPrefix(flag, "--"), "=")
					flags[name] = value
				}
			}
		}
	}
	return flags, nil
}

// kubeletConfiguredBeforeJoin: kubeadm join starts the kubelet, which reads its flags once.
func kubeletConfiguredBeforeJoin(script string) error {
	join := strings.Index(script, "kubeadm join")
	if args := strings.Index(script, "KUBELET_EXTRA_ARGS="); join >= 0 && args > join {
		return errors.New("the script writes KUBELET_EXTRA_ARGS after kubeadm join started the kubelet")
	}
	return nil
}

func (o *oracle) joinFlags(joinConfiguration string, flags map[string]string) error {
	if _, err := o.run(o.kubeadm, "config", "validate", "--config", o.write("join.yaml", joinConfiguration)); err != nil {
		return err
	}
	var jc struct {
		NodeRegistration struct {
			KubeletExtraArgs json.RawMessage `json:"kubeletExtraArgs"`
		} `json:"nodeRegistration"`
	}
	if err := yaml.Unmarshal([]byte(joinConfiguration), &jc); err != nil {
		return err
	}
	var list []Arg
	if err := json.Unmarshal(jc.NodeRegistration.KubeletExtraArgs, &list); err == nil {
		for _, a := range list {
			flags[a.Name] = a.Value
		}
		return nil
	}
	return json.Unmarshal(jc.NodeRegistration.KubeletExtraArgs, &flags)
}

// judge is nil when cloud-init and kubeadm would start the kubelet of the VM oracleVMID with
// exactly the flags of want, the provider id carrying that VM's id.
func (o *oracle) judge(userData string, want *Data) error {
	docs, err := o.documents(userData)
	if err != nil {
		return err
	}
	got, err := o.kubeletFlags(docs)
	if err != nil {
		return err
	}
	for _, a := range want.KubeletArgs {
		value := strings.ReplaceAll(a.Value, want.ProviderID, "external-cloudstack://"+oracleVMID)
		if got[a.Name] != value {
			return fmt.Errorf("the kubelet starts with --%s=%q, want %q", a.Name, got[a.Name], value)
		}
	}
	return nil
}

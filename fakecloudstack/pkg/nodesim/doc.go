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

/*
Package nodesim is the fake cloud's kubelet: it turns every Running VM into a KWOK Node that
registers the way the kubelet started by the VM's userdata would, so that tests prove the
provider's userdata really carries the registration contract.

# Lifecycle

  - A VM in state Running (or Migrating) gets a Node named after the VM, created once per run of
    the VM. A Node the simulator registered earlier for the same VM (after a restart of the
    fake cloud, or of the VM) is adopted: the heartbeat annotation, the labels below, capacity,
    allocatable and addresses are brought back in line, while taints are left alone (the
    kubelet applies them only when it registers). A Node of the same name that the simulator
    did not register is left alone, and the VM gets none.
  - A Node deleted by someone else while its VM keeps running is not created again, as a
    running kubelet does not register twice: Karpenter deletes Nodes before their VMs are gone.
    A VM that stops and starts again registers anew, as a rebooted kubelet would.
  - A VM that is stopped, destroyed, expunged, in Error or gone (even while the simulator was
    not running) loses its heartbeat: the simulator takes the Node's Lease in kube-node-lease
    over (holder fakecloudstack-nodesim, never renewed), which stops kwok from renewing it and
    from updating the Node, then removes the annotation kwok.x-k8s.io/node=fake. The node
    lifecycle controller marks the Node NotReady after its grace period (200s in a kwokctl
    cluster with the default --heartbeat-factor 5, 40s with 1). Removing the annotation alone
    is not enough: kwok v0.8 keeps managing a Node until it is deleted, and kwokctl runs kwok
    with --manage-all-nodes. A VM that runs again gets its Lease released and its annotation
    back. The simulator never deletes a Node.
  - A VM whose userdata a real node would reject (undecodable, invalid cloud-config, invalid
    labels, taints or quantities, a label of the kubernetes.io or k8s.io namespaces that the
    kubelet refuses to set) gets no Node, and a warning is logged without the userdata.

# The Node

  - metadata.name and the kubernetes.io/hostname label: the VM name.
  - spec.providerID: the kubelet's provider id from the userdata, with cloud-init's
    {{ ds.meta_data.instance_id }} and {{ v1.instance_id }} (any spacing) replaced by the VM id;
    external-cloudstack://<VM id> when the userdata sets none, as the CloudStack CCM does.
  - labels: --node-labels, then what the kubelet and the CloudStack CCM set:
    kubernetes.io/os=linux, kubernetes.io/arch=amd64, node.kubernetes.io/instance-type (the
    offering name with the CCM's regular expression ([^A-Za-z0-9][^-A-Za-z0-9_.]*)?[^A-Za-z0-9]
    removed), topology.kubernetes.io/zone (the zone name) and topology.kubernetes.io/region
    (Options.Region, or the zone name).
  - spec.taints: --register-with-taints, in the forms key=value:Effect and key:Effect.
  - annotation kwok.x-k8s.io/node=fake, so that the kwok controller manages the conditions, and
    annotation fakecloudstack.karpenter.k8s.cloudstack/vm-id=<VM id>, the simulator's own mark.
  - status.addresses: InternalIP (the VM's address) and Hostname (the VM name).
  - status.capacity: cpu and memory of the offering, pods from --max-pods (Options.DefaultMaxPods
    otherwise, 110), nvidia.com/gpu when the VM has GPUs, ephemeral-storage from
    Options.EphemeralStorage (50Gi by default).
  - status.allocatable: capacity minus --kube-reserved, --system-reserved and the
    --eviction-hard thresholds memory.available and nodefs.available (quantities or
    percentages of capacity), floored at zero. Without --eviction-hard the kubelet's defaults
    apply: memory.available<100Mi and nodefs.available<10%.

The simulator's kubeconfig needs get, list, watch, create and patch on nodes, patch on
nodes/status, and get, create and patch on leases in kube-node-lease.

# Where the kubelet settings are read

The userdata is base64, optionally gzip-compressed (cloud-init sniffs the 1f8b magic), and is
either one document or a MIME multipart archive whose parts may be base64 and gzip themselves.
Each document is read by its type (a MIME part's Content-Type, else its first line after an
optional "## template: jinja" line):

  - Shell scripts ("#!", "#cloud-boothook", text/x-shellscript): kubelet flags anywhere in the
    text, as --flag=value, --flag value, quoted or not, which covers kubelet command lines,
    KUBELET_EXTRA_ARGS="..." and systemd drop-ins written with echo. Each here-document
    (<<EOF, <<-EOF, <<'EOF') is read as a document of its own, so a kubeadm configuration,
    /etc/default/kubelet or a drop-in written by cat <<EOF counts too.
  - cloud-config ("#cloud-config", text/cloud-config): bootcmd, then write_files (plain, b64,
    gzip or gz+b64 content, each file read as a document of its own), then runcmd (strings or
    argument lists, read as shell).
  - YAML documents with kind JoinConfiguration (kubeadm.k8s.io v1beta3 or v1beta4): the taints
    of nodeRegistration, then nodeRegistration.kubeletExtraArgs, a map in v1beta3 and a list of
    {name, value} in v1beta4.
  - YAML documents with kind KubeletConfiguration: providerID, maxPods, kubeReserved,
    systemReserved, evictionHard and registerWithTaints.
  - Anything else: kubelet flags anywhere in the text, as for scripts.

The flags read are --provider-id, --node-labels, --register-with-taints, --max-pods,
--kube-reserved, --system-reserved and --eviction-hard. As in the kubelet, flags (including
kubeletExtraArgs) override a KubeletConfiguration, the last occurrence of a flag wins and
repeated --node-labels merge. Not modelled: cloud-config-archive, #include and part handlers,
jinja beyond the two instance id placeholders, shell variable expansion, and the kubelet
settings that do not shape the Node object.
*/
package nodesim

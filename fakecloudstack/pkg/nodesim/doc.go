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
provider's userdata really carries the registration contract. It does what cloud-init and the
kubelet do on a VM and nothing else: labels, taints, providerID and addresses that a cloud
controller manager sets come from a real CCM, when one runs against the fake cloud.

# Lifecycle

  - A VM in state Running (or Migrating) gets a Node named after the VM, created once per run of
    the VM. While it runs, the simulator keeps what a kubelet keeps current: the heartbeat,
    capacity, allocatable and (without --cloud-provider=external) the addresses, which it
    writes back within a resync when someone else, such as the CCM's address sync, changed
    them. Labels and taints are applied at registration only, so the CCM, Karpenter or an
    operator may change them afterwards. A Node the simulator registered earlier for the same
    VM (after a restart of the fake cloud, or of the VM) is adopted as a kubelet registering
    again adopts it (updateDefaultLabels): the labels the kubelet may set itself get the
    values it registers with, other labels and the taints are left alone. A Node of the same
    name that the simulator did not register is left alone, and the VM gets none.
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

  - metadata.name: the VM name.
  - spec.providerID: the kubelet's --provider-id from the userdata, with cloud-init's
    {{ ds.meta_data.instance_id }} and {{ v1.instance_id }} (any spacing) replaced by the VM id
    in documents under a "## template: jinja" header; none when the userdata sets none (a CCM
    sets it on a Node registered with --cloud-provider=external). A provider id that still
    holds "{{" (jinja cloud-init would not have rendered) registers no Node: the kubelet would
    register with the expression and the Node would never match its NodeClaim.
  - labels: the kubelet's own, kubernetes.io/hostname (the VM name), kubernetes.io/os=linux,
    kubernetes.io/arch, beta.kubernetes.io/os=linux and beta.kubernetes.io/arch, the
    architecture being the template's (amd64 for x86_64, arm64 for aarch64), overridden by
    --node-labels as the kubelet does. No instance-type, zone or region label
    unless --node-labels has it: the kubelet knows none of them.
  - spec.taints: --register-with-taints, in the forms key=value:Effect and key:Effect, then
    node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule when the kubelet runs with
    --cloud-provider=external (the only value besides none that the kubelet accepts).
  - annotation kwok.x-k8s.io/node=fake, so that the kwok controller manages the conditions, and
    annotation fakecloudstack.karpenter.k8s.cloudstack/vm-id=<VM id>, the simulator's own mark.
  - status.addresses: InternalIP (the address of the VM's NIC, where its default route goes)
    and Hostname (the VM name), as a kubelet without a cloud provider reports them; with
    --cloud-provider=external only the Hostname, the rest being the CCM's to set.
  - status.capacity: cpu and memory of the offering, pods from --max-pods (Options.DefaultMaxPods
    otherwise, 110), nvidia.com/gpu when the VM has GPUs, ephemeral-storage from
    the VM's root disk (the deploy's rootdisksize, else its template's size), or
    Options.EphemeralStorage (50Gi by default) when neither is known.
  - status.allocatable: capacity minus --kube-reserved, --system-reserved and the
    --eviction-hard thresholds memory.available and nodefs.available (quantities or
    percentages of capacity), floored at zero. Without --eviction-hard the kubelet's defaults
    apply (memory.available<100Mi, nodefs.available<10%). The flags are read with the
    provider's rules (provider/pkg/nodeallocatable), which tools/kubeletparity judges against
    the kubelet's code.
  - status.nodeInfo: operatingSystem linux, architecture as the labels, and a bootID that
    changes when rebootVirtualMachine completes: the VM stays Running and keeps its Node, and
    its kubelet, started again, reports the new boot and puts its own labels back, as a
    kubelet registering again does.
  - status.conditions: at registration only, those a kubelet registers with (initialNode runs
    the setters of pkg/kubelet/nodestatus before its first runtime check): MemoryPressure,
    DiskPressure and PIDPressure False, and Ready False with reason KubeletNotReady. A new Node
    thus stays unschedulable until it is Ready: the API server's TaintNodesByCondition
    admission gives it node.kubernetes.io/not-ready:NoSchedule, which the node lifecycle
    controller keeps while Ready is False (a Node without a Ready condition loses it at once)
    and lifts when kwok's node-initialize stage, which selects Nodes whose Ready is not True,
    makes it Ready. Both the binary runtime (kwokctl, admission on by default) and kind (kwok
    with its fast stages) play that stage. Afterwards the simulator never writes conditions:
    kwok keeps the kubelet's, so updates, reboots and adoptions leave a Ready Node Ready and
    untainted; conditions of node agents such as node-problem-detector (KernelDeadlock,
    ReadonlyFilesystem, ...), or injected in their place, stay as they are, through reboots
    too: a fault that a reboot does not fix is reported again at once by a real agent.

The simulator's kubeconfig needs get, list, watch, create and patch on nodes, patch on
nodes/status, and get, create and patch on leases in kube-node-lease.

# Where the kubelet settings are read

The userdata is read the way cloud-init 22.4 reads it (cloudinit/user_data.py,
cloudinit/handlers): base64, inflated when it is gzip, split into parts when "MIME-Version:"
appears in its first 4096 bytes (parts may be base64 or quoted-printable; only parts of a gzip
type such as application/gzip are inflated), and otherwise one document. A document without a
Content-Type, or typed text/plain, text/x-not-multipart or text/x-shellscript, is typed by its
first line: "#!" a script, "#cloud-config", "#cloud-boothook", "## template: jinja". Every
other type (include, archive, part-handler, unknown types, text without such a first line)
runs nothing and sets nothing, as cloud-init skips it. Each document is then read by its type:

  - jinja (text/jinja2): only under a first line cloud-init reads as a jinja header
    ("## template: jinja", any case and spacing); the instance id placeholders are replaced and
    the rest is read as cloud-config or a script by its own first line. A text/jinja2 part
    without the header, or rendering to anything else, runs nothing.
  - Shell scripts ("#!", "#cloud-boothook", text/x-shellscript): kubelet flags anywhere in the
    text, as --flag=value, --flag value, quoted or not, which covers kubelet command lines,
    KUBELET_EXTRA_ARGS="..." and systemd drop-ins written with echo. Each here-document
    (<<EOF, <<-EOF, <<'EOF') is read as a file.
  - cloud-config ("#cloud-config", text/cloud-config): bootcmd, then write_files (plain, b64,
    gzip or gz+b64 content, each read as a file), then runcmd (strings or argument lists, read
    as shell).
  - Files: YAML documents with kind JoinConfiguration (kubeadm.k8s.io v1beta3 or v1beta4): the
    taints of nodeRegistration, then nodeRegistration.kubeletExtraArgs, a map in v1beta3 and a
    list of {name, value} in v1beta4; YAML documents with kind KubeletConfiguration:
    providerID, maxPods, kubeReserved, systemReserved, evictionHard and registerWithTaints;
    anything else: kubelet flags as in a script.

The flags read are --provider-id, --node-labels, --register-with-taints, --max-pods,
--kube-reserved, --system-reserved, --eviction-hard and --cloud-provider. As in the kubelet, flags (including
kubeletExtraArgs) override a KubeletConfiguration, the last occurrence of a flag wins and
repeated --node-labels merge. Percentages of --eviction-hard are resolved as the kubelet
resolves them (a float32 fraction of capacity). Not modelled: cloud-config-archive, #include
and part handlers, jinja beyond the two instance id placeholders, shell variable expansion, and
the kubelet settings that do not shape the Node object.
*/
package nodesim

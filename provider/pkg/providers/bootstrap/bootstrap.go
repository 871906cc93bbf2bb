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

// Package bootstrap renders the userdata that turns a CloudStack VM into a node of the cluster:
// a kubeadm join with a bootstrap token minted for its NodeClaim, or the user's template, both
// carrying the labels, taints, providerID and kubelet settings Karpenter registers it by.
package bootstrap

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/patrickmn/go-cache"
	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/events"

	v1 "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis/v1"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/internal/reservation"
)

// ClusterCacheTTL bounds how long the CA pins and API endpoint are reused between launches:
// both change only when the control plane is rebuilt, and nodes launched in that window fail
// to join and are replaced by core's registration timeout.
const ClusterCacheTTL = 5 * time.Minute

const (
	cacheKeyCAHashes = "ca-cert-hashes"
	cacheKeyEndpoint = "api-server-endpoint"
)

// Provider renders userdata.
type Provider interface {
	// Render returns the base64 userdata of one launch and store, which writes the bootstrap
	// token the userdata carries: a VM must not boot before it is stored, but nothing needs it
	// sooner, so a launch stores it while its deploy waits for its turn. nodeClaim is the
	// NodeClaim being launched (its name is the VM name); capacity is the launched instance
	// type's, from which the kubelet's reservations follow; labels are what the launch decided
	// on top of the NodeClaim's own labels (instance type, zone, capacity type, architecture).
	Render(ctx context.Context, nodeClass *v1.CloudStackNodeClass, nodeClaim *karpv1.NodeClaim, capacity corev1.ResourceList, labels map[string]string) (userData string, store func(context.Context) error, err error)
}

// DefaultProvider mints tokens as Secrets through kubeClient.
type DefaultProvider struct {
	kubeClient        client.Client
	restConfig        *rest.Config
	clock             clock.Clock
	recorder          events.Recorder
	apiServerEndpoint string
	// discovering serialises misses of cluster: a burst of launches would otherwise all find
	// it empty and each read the CA and the endpoint.
	discovering sync.Mutex
	cluster     *cache.Cache
}

// NewDefaultProvider builds the bootstrap provider. restConfig is the provider's own client
// configuration, a fallback for the CA and the endpoint; recorder gets the warnings about
// launches that cannot join; clusterCache should expire entries after ClusterCacheTTL;
// apiServerEndpoint (host:port, the operator option) overrides auto-detection for NodeClasses
// that set no spec.bootstrap.apiServerEndpoint.
func NewDefaultProvider(kubeClient client.Client, restConfig *rest.Config, clk clock.Clock, recorder events.Recorder, clusterCache *cache.Cache, apiServerEndpoint string) *DefaultProvider {
	return &DefaultProvider{kubeClient: kubeClient, restConfig: restConfig, clock: clk, recorder: recorder, cluster: clusterCache, apiServerEndpoint: apiServerEndpoint}
}

// Render returns the NodeClaim's userdata and what stores its bootstrap token, so that a launch
// stores the token while its deploy waits for its turn at the rate, and deploys once it is stored.
func (p *DefaultProvider) Render(ctx context.Context, nodeClass *v1.CloudStackNodeClass, nodeClaim *karpv1.NodeClaim, capacity corev1.ResourceList, labels map[string]string) (string, func(context.Context) error, error) {
	data, token, err := p.data(ctx, nodeClass, nodeClaim, capacity, labels)
	if err != nil {
		return "", nil, err
	}
	rendered, err := render(nodeClass, data)
	if err != nil {
		return "", nil, err
	}
	if nodeClass.BootstrapMode() == v1.BootstrapModeTemplate && !strings.Contains(rendered, data.Token) {
		p.recorder.Publish(tokenUnusedEvents(nodeClass, nodeClaim)...)
	}
	userData, err := assemble(nodeClass, rendered)
	if err != nil {
		return "", nil, err
	}
	store := func(ctx context.Context) error { return storeToken(ctx, p.kubeClient, token, nodeClaim) }
	return userData, store, nil
}

// assemble merges spec.userData into the rendered bootstrap and encodes the result for
// deployVirtualMachine.
func assemble(nodeClass *v1.CloudStackNodeClass, rendered string) (string, error) {
	merged, err := merge(lo.FromPtr(nodeClass.Spec.UserData), rendered)
	if err != nil {
		return "", err
	}
	return encode(merged)
}

// ReasonBootstrapTokenUnused is the reason of the warning a launch gets whose template never
// passes the NodeClaim's bootstrap token on.
const ReasonBootstrapTokenUnused = "BootstrapTokenUnused"

// tokenUnusedEvents warn on the NodeClaim and its NodeClass: CloudStack shows nothing of a
// guest that fails to join, and the NodeClaim would otherwise only disappear at core's
// registration timeout. A template may join another way, so the launch goes on. The token
// itself is never named.
func tokenUnusedEvents(nodeClass *v1.CloudStackNodeClass, nodeClaim *karpv1.NodeClaim) []events.Event {
	message := fmt.Sprintf("The userdata spec.bootstrap.template of CloudStackNodeClass %s rendered for NodeClaim %s does not contain the "+
		"NodeClaim's bootstrap token, so its kubelet cannot join with it: the node registers only if the template joins another way, "+
		"and Karpenter deletes the NodeClaim when it has not registered in time. Pass {{ .Token }} to the join, "+
		"as in kubeadm join {{ .APIServerEndpoint }} --token {{ .Token }}", nodeClass.Name, nodeClaim.Name)
	warning := func(object runtime.Object, uid types.UID) events.Event {
		return events.Event{InvolvedObject: object, Type: corev1.EventTypeWarning, Reason: ReasonBootstrapTokenUnused, Message: message, DedupeValues: []string{string(uid)}}
	}
	return []events.Event{warning(nodeClaim, nodeClaim.UID), warning(nodeClass, nodeClass.UID)}
}

func render(nodeClass *v1.CloudStackNodeClass, data *Data) (string, error) {
	if nodeClass.BootstrapMode() == v1.BootstrapModeTemplate {
		return renderTemplate(nodeClass.Spec.Bootstrap.Template, data)
	}
	return renderKubeadm(data, nodeClass.KubeadmConfigVersion(), lo.FromPtr(nodeClass.Spec.Bootstrap).IgnorePreflightErrors)
}

// data is what the userdata of a launch carries, with the bootstrap token minted for it and not
// stored yet.
func (p *DefaultProvider) data(ctx context.Context, nodeClass *v1.CloudStackNodeClass, nodeClaim *karpv1.NodeClaim, capacity corev1.ResourceList, labels map[string]string) (*Data, token, error) {
	endpoint, err := p.endpoint(ctx, nodeClass)
	if err != nil {
		return nil, token{}, err
	}
	hashes, err := cached(p, cacheKeyCAHashes, func() ([]string, error) { return caCertHashes(ctx, p.kubeClient, p.restConfig) })
	if err != nil {
		return nil, token{}, err
	}
	minted, err := mintToken(p.clock, nodeClaim)
	if err != nil {
		return nil, token{}, err
	}
	d := &Data{
		NodeName:          nodeClaim.Name,
		APIServerEndpoint: endpoint,
		Token:             minted.String(),
		CACertHashes:      hashes,
		ProviderID:        ProviderID,
		Labels:            registrationLabels(lo.Assign(nodeClaim.Labels, labels)),
		Taints:            registrationTaints(nodeClaim),
		Kubelet:           nodeClass.Spec.Kubelet,
		Reservations:      reservation.For(nodeClass.Spec.Kubelet, capacity.Cpu().Value()),
	}
	d.KubeletArgs = kubeletArgs(d)
	return d, minted, nil
}

// endpoint prefers the NodeClass's override, then the operator's, then what the cluster says.
func (p *DefaultProvider) endpoint(ctx context.Context, nodeClass *v1.CloudStackNodeClass) (string, error) {
	if nodeClass.Spec.Bootstrap != nil && nodeClass.Spec.Bootstrap.APIServerEndpoint != "" {
		return nodeClass.Spec.Bootstrap.APIServerEndpoint, nil
	}
	if p.apiServerEndpoint != "" {
		return p.apiServerEndpoint, nil
	}
	return cached(p, cacheKeyEndpoint, func() (string, error) { return apiServerEndpoint(ctx, p.kubeClient, p.restConfig) })
}

func cached[T any](p *DefaultProvider, key string, get func() (T, error)) (T, error) {
	c := p.cluster
	if v, ok := c.Get(key); ok {
		return v.(T), nil
	}
	p.discovering.Lock()
	defer p.discovering.Unlock()
	if v, ok := c.Get(key); ok {
		return v.(T), nil
	}
	v, err := get()
	if err != nil {
		return v, fmt.Errorf("discovering the cluster's %s, %w", key, err)
	}
	c.SetDefault(key, v)
	return v, nil
}

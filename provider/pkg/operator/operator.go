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

// Package operator is the provider's composition root: it builds the CloudStack client, every
// provider and cache once, from the options, on top of Karpenter core's operator.
package operator

import (
	"context"
	"os"
	"time"

	"github.com/patrickmn/go-cache"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/samber/lo"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	coreoperator "sigs.k8s.io/karpenter/pkg/operator"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/asyncjob"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/batcher"
	pkgcache "github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/cache"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/controllers/nodeclaim/launchfailure"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/controllers/nodeclass"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/csapi"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/affinitygroup"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/bootstrap"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instancetype"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/kubernetescluster"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/limits"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/pricing"
)

// Operator is core's operator plus everything the CloudStack provider builds.
type Operator struct {
	*coreoperator.Operator

	CloudStack *csapi.Client
	// UncachedClient gets ConfigMaps, lists EndpointSlices, and creates and deletes bootstrap
	// token Secrets straight through the API server: a read through the manager's cached
	// client would open a cluster-wide informer on the kind. The chart grants one ConfigMap of
	// each namespace it reads, the default namespace's EndpointSlices, and on Secrets only
	// create and delete of the provider's own tokens: no get, list or watch.
	UncachedClient       client.Client
	UnavailableOfferings *pkgcache.UnavailableOfferings
	Pricing              *pricing.DefaultProvider
	InstanceTypes        *instancetype.DefaultProvider
	Instances            *instance.DefaultProvider
	LaunchFailures       *launchfailure.Queue
	NodeClassProviders   nodeclass.Providers
}

// NewOperator builds the provider's graph from options that Parse accepted.
func NewOperator(ctx context.Context, op *coreoperator.Operator) (context.Context, *Operator) {
	setMemoryLimit(ctx, os.DirFS("/"))
	// A missing CRD is the likely failure: one line, as for a refused setting.
	exitOnError(stripManagedFields(ctx, op.GetCache(), clusterSizedKinds...))
	opts := FromContext(ctx)
	creds := opts.Credentials()
	csapi.WarnPlainHTTP(ctx, creds)
	api := lo.Must(csapi.NewClient(creds, csapi.WithRateLimit(opts.RateLimit, opts.RateBurst), csapi.WithRootCAs(opts.RootCAs())))
	if opts.CloudConfig != "" {
		lo.Must0(op.Manager.Add(csapi.NewCloudConfigReloader(opts.CloudConfig, api, creds, csapi.CloudConfigPollInterval)))
	}
	uncached := lo.Must(client.New(op.GetConfig(), client.Options{Scheme: op.GetScheme(), Mapper: op.GetRESTMapper()}))
	uid, err := clusterUID(ctx, uncached)
	exitOnError(err)
	// Before anything reads opts.ClusterName: it may come from the CKS cluster.
	kubernetesCluster := findKubernetesCluster(ctx, opts, api, uncached, op.Clock)
	var membership instance.ClusterMembership
	if m := kubernetescluster.NewMembership(api, op.Clock, kubernetesCluster); m != nil {
		membership = m
	}

	unavailable := pkgcache.NewUnavailableOfferings(op.Clock, pkgcache.UnavailableOfferingsTTL)
	crmetrics.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: "karpenter", Subsystem: "cloudstack", Name: "unavailable_offerings",
		Help: "Instance type x zone pairs skipped after an insufficient capacity error.",
	}, func() float64 { return float64(unavailable.Len()) }))

	affinityGroups := affinitygroup.NewDefaultProvider(api, newCache(affinitygroup.CacheTTL), opts.ClusterName, uid)
	nodeClassProviders := nodeclass.NewProviders(api, affinityGroups, creds.Zone)
	pricingProvider := pricing.NewDefaultProvider(api, uncached, client.ObjectKey{Namespace: opts.SystemNamespace, Name: opts.PricingConfigMap}, op.Clock)
	userData := bootstrap.NewDefaultProvider(uncached, op.GetConfig(), op.Clock, op.EventRecorder, newCache(bootstrap.ClusterCacheTTL), opts.APIServerEndpoint)

	// The watcher needs tickers, which core's clock.Clock does not promise.
	// Jobs belong to the caller's account whatever project their resource is in: the default
	// scope lists them all.
	watcher := asyncjob.NewWatcher(api, clock.RealClock{}, opts.JobPollInterval, csapi.Scope{})
	lo.Must0(op.Manager.Add(watcher))
	launchFailures := launchfailure.NewQueue()
	instances := instance.NewDefaultProvider(api, op.Clock, instance.Options{ClusterName: opts.ClusterName, ClusterUID: uid, NodeClasses: instance.NodeClassScopes{Reader: op.GetClient()}, Limits: limits.NewDefaultProvider(api, op.Clock), Membership: membership,
		ServerClock: apiServerClock(op.GetConfig())},
		watcher, batcher.NewCloudStack(op.Clock, api), unavailable, userData, affinityGroups, launchFailures, pkgcache.NewInstances())
	lo.Must0(op.Manager.Add(instances))

	return ctx, &Operator{
		Operator:             op,
		CloudStack:           api,
		UncachedClient:       uncached,
		UnavailableOfferings: unavailable,
		Pricing:              pricingProvider,
		InstanceTypes:        instancetype.NewDefaultProvider(opts.NodeRegion(), pricingProvider, unavailable),
		Instances:            instances,
		LaunchFailures:       launchFailures,
		NodeClassProviders:   nodeClassProviders,
	}
}

func newCache(ttl time.Duration) *cache.Cache {
	return cache.New(ttl, pkgcache.CleanupInterval)
}

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
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// rootCAConfigMap is published in every namespace by kube-controller-manager; it is the CA of
// the cluster even when the provider talks to the API server through a proxy with another CA.
const rootCAConfigMap = "kube-root-ca.crt"

// caCertHashes pins the cluster CA for kubeadm's discovery: sha256 of each CA certificate's
// SubjectPublicKeyInfo, as kubeadm's --discovery-token-ca-cert-hash expects.
func caCertHashes(ctx context.Context, kubeClient client.Client, config *rest.Config) ([]string, error) {
	bundle, err := caBundle(ctx, kubeClient, config)
	if err != nil {
		return nil, err
	}
	var hashes []string
	for block, remaining := pem.Decode(bundle); block != nil; block, remaining = pem.Decode(remaining) {
		if block.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parsing the cluster CA certificate, %w", err)
		}
		sum := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
		hashes = append(hashes, "sha256:"+hex.EncodeToString(sum[:]))
	}
	if len(hashes) == 0 {
		return nil, errors.New("finding the cluster CA: no certificate in kube-root-ca.crt or the client configuration")
	}
	return hashes, nil
}

func caBundle(ctx context.Context, kubeClient client.Client, config *rest.Config) ([]byte, error) {
	cm := &corev1.ConfigMap{}
	err := kubeClient.Get(ctx, client.ObjectKey{Namespace: TokenNamespace, Name: rootCAConfigMap}, cm)
	if err == nil && cm.Data["ca.crt"] != "" {
		return []byte(cm.Data["ca.crt"]), nil
	}
	if err != nil && client.IgnoreNotFound(err) != nil {
		return nil, fmt.Errorf("getting %s/%s, %w", TokenNamespace, rootCAConfigMap, err)
	}
	if len(config.CAData) > 0 {
		return config.CAData, nil
	}
	if config.CAFile != "" {
		data, err := os.ReadFile(config.CAFile)
		if err != nil {
			return nil, fmt.Errorf("reading the cluster CA, %w", err)
		}
		return data, nil
	}
	return nil, nil
}

// apiServerEndpoint is where nodes reach the API server: the kubernetes service's endpoints
// are the API servers' advertised addresses, which a node outside the pod network can reach,
// unlike the service's cluster IP; the client configuration's host is the last resort.
func apiServerEndpoint(ctx context.Context, kubeClient client.Client, config *rest.Config) (string, error) {
	endpointSlices := &discoveryv1.EndpointSliceList{}
	if err := kubeClient.List(ctx, endpointSlices, client.InNamespace("default"), client.MatchingLabels{discoveryv1.LabelServiceName: "kubernetes"}); err != nil {
		return "", fmt.Errorf("listing the kubernetes service's endpoint slices, %w", err)
	}
	for _, slice := range endpointSlices.Items {
		if endpoint, ok := firstEndpoint(slice); ok {
			return endpoint, nil
		}
	}
	u, err := url.Parse(config.Host)
	if err != nil || u.Hostname() == "" {
		return "", fmt.Errorf("finding the API server endpoint: set spec.bootstrap.apiServerEndpoint or the operator's API server endpoint option, %v", err)
	}
	port := u.Port()
	if port == "" {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port), nil
}

func firstEndpoint(slice discoveryv1.EndpointSlice) (string, bool) {
	for _, port := range slice.Ports {
		if port.Name == nil || *port.Name != "https" || port.Port == nil {
			continue
		}
		for _, ep := range slice.Endpoints {
			if len(ep.Addresses) > 0 && (ep.Conditions.Ready == nil || *ep.Conditions.Ready) {
				return net.JoinHostPort(ep.Addresses[0], strconv.Itoa(int(*port.Port))), true
			}
		}
	}
	return "", false
}

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
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"math/big"
	"time"

	"github.com/awslabs/operatorpkg/object"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/apis"
)

// TokenTTL covers core's launch (5 min) and registration (15 min) timeouts with room for a slow
// boot; a leaked token is useless after it, and the bootstraptoken controller deletes it.
const TokenTTL = 30 * time.Minute

// tokenReuseMargin: a retried launch reuses its NodeClaim's token only if the new VM still has
// this long to join with it.
const tokenReuseMargin = 20 * time.Minute

const (
	// TokenNamespace is where kubeadm and the API server look for bootstrap tokens.
	TokenNamespace = "kube-system"
	// LabelNodeClaim marks a token Secret with the NodeClaim it was minted for.
	LabelNodeClaim = apis.Group + "/nodeclaim"
	// AuthExtraGroups is the group kubeadm's RBAC lets join and sign CSRs.
	AuthExtraGroups = "system:bootstrappers:kubeadm:default-node-token"
	tokenChars      = "abcdefghijklmnopqrstuvwxyz0123456789"
)

// Secret keys of a bootstrap token (k8s.io/cluster-bootstrap's format).
const (
	KeyTokenID     = "token-id"
	KeyTokenSecret = "token-secret"
	KeyExpiration  = "expiration"
)

// tokenFor returns id.secret of the NodeClaim's bootstrap token, minting one when none is
// valid for long enough. The id derives from the NodeClaim's uid, so a retried launch finds
// its token without listing Secrets. The create comes first: a launch's first attempt, nearly
// every one, then costs a single request.
func tokenFor(ctx context.Context, kubeClient client.Client, clk clock.Clock, nodeClaim *karpv1.NodeClaim) (string, error) {
	id := tokenID(nodeClaim)
	key := client.ObjectKey{Namespace: TokenNamespace, Name: "bootstrap-token-" + id}
	token, err := mintToken(ctx, kubeClient, clk, key, id, nodeClaim)
	if !errors.IsAlreadyExists(err) {
		return token, err
	}
	existing := &corev1.Secret{}
	if err := kubeClient.Get(ctx, key, existing); err != nil {
		return "", fmt.Errorf("getting bootstrap token %s, %w", id, err)
	}
	if expiresAfter(existing, clk.Now().Add(tokenReuseMargin)) {
		return id + "." + string(existing.Data[KeyTokenSecret]), nil
	}
	if err := kubeClient.Delete(ctx, existing); client.IgnoreNotFound(err) != nil {
		return "", fmt.Errorf("deleting bootstrap token %s before renewing it, %w", id, err)
	}
	return mintToken(ctx, kubeClient, clk, key, id, nodeClaim)
}

// mintToken creates a token Secret with a new secret; the error wraps AlreadyExists when the
// NodeClaim has one.
func mintToken(ctx context.Context, kubeClient client.Client, clk clock.Clock, key client.ObjectKey, id string, nodeClaim *karpv1.NodeClaim) (string, error) {
	secret, err := randomString(16)
	if err != nil {
		return "", err
	}
	if err := kubeClient.Create(ctx, tokenSecret(key, id, secret, clk.Now().Add(TokenTTL), nodeClaim)); err != nil {
		return "", fmt.Errorf("creating bootstrap token %s, %w", id, err)
	}
	return id + "." + secret, nil
}

func tokenSecret(key client.ObjectKey, id, secret string, expiration time.Time, nodeClaim *karpv1.NodeClaim) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: key.Namespace,
			Name:      key.Name,
			Labels:    map[string]string{LabelNodeClaim: nodeClaim.Name},
			// A cluster-scoped owner may own a namespaced object: the garbage collector then
			// deletes the token with its NodeClaim.
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(nodeClaim, object.GVK(nodeClaim))},
		},
		Type: corev1.SecretTypeBootstrapToken,
		StringData: map[string]string{
			"description":                    "karpenter-cloudstack join token for NodeClaim " + nodeClaim.Name,
			KeyTokenID:                       id,
			KeyTokenSecret:                   secret,
			KeyExpiration:                    expiration.UTC().Format(time.RFC3339),
			"usage-bootstrap-authentication": "true",
			"usage-bootstrap-signing":        "true",
			"auth-extra-groups":              AuthExtraGroups,
		},
	}
}

// Expiration is when the token in secret stops working; the zero time when it cannot be read.
func Expiration(secret *corev1.Secret) time.Time {
	t, err := time.Parse(time.RFC3339, string(secret.Data[KeyExpiration]))
	if err != nil {
		return time.Time{}
	}
	return t
}

func expiresAfter(secret *corev1.Secret, t time.Time) bool {
	return Expiration(secret).After(t) && len(secret.Data[KeyTokenSecret]) == 16
}

// tokenID is six characters of [a-z0-9], the format kubeadm requires, from a hash of the
// NodeClaim's uid and name.
func tokenID(nodeClaim *karpv1.NodeClaim) string {
	sum := sha256.Sum256([]byte(string(nodeClaim.UID) + "/" + nodeClaim.Name))
	n := new(big.Int).SetBytes(sum[:])
	id := make([]byte, 6)
	base := big.NewInt(int64(len(tokenChars)))
	for i := range id {
		id[i] = tokenChars[new(big.Int).Mod(n, base).Int64()]
		n.Div(n, base)
	}
	return string(id)
}

func randomString(n int) (string, error) {
	out := make([]byte, n)
	for i := range out {
		c, err := rand.Int(rand.Reader, big.NewInt(int64(len(tokenChars))))
		if err != nil {
			return "", fmt.Errorf("generating a bootstrap token secret, %w", err)
		}
		out[i] = tokenChars[c.Int64()]
	}
	return string(out), nil
}

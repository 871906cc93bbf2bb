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
// boot. The API server refuses a token past its expiration, whoever still holds it.
const TokenTTL = 30 * time.Minute

const (
	// TokenNamespace is where kubeadm and the API server look for bootstrap tokens.
	TokenNamespace = "kube-system"
	// LabelNodeClaim marks a token Secret with the NodeClaim it was minted for. The chart's
	// admission policy lets the provider create and delete only token Secrets carrying it.
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

// token is a NodeClaim's bootstrap token, minted here: kubeadm joins with id.secret.
type token struct {
	id, secret string
	expires    time.Time
}

func (t token) String() string { return t.id + "." + t.secret }

// mintToken draws a new secret for the NodeClaim's token id, valid for TokenTTL.
func mintToken(clk clock.Clock, nodeClaim *karpv1.NodeClaim) (token, error) {
	secret, err := randomString(16)
	if err != nil {
		return token{}, err
	}
	return token{id: tokenID(nodeClaim), secret: secret, expires: clk.Now().Add(TokenTTL)}, nil
}

// storeToken writes the NodeClaim's token Secret. The provider may not read Secrets, so a token
// left by an earlier launch of the NodeClaim is deleted by its derived name and this one stored
// in its place, never read back. Nothing needs the old one: the instance provider renders
// userdata only once it found no VM deployed for the NodeClaim (or none can exist), so the VM
// of that earlier launch never deployed or was destroyed. Should one still boot with it (a
// deploy CloudStack did not list yet at the lookup), its join fails and core replaces the
// NodeClaim after its registration timeout: a node lost, never a valid token that nobody
// tracks.
func storeToken(ctx context.Context, tokens client.Writer, t token, nodeClaim *karpv1.NodeClaim) error {
	err := createToken(ctx, tokens, t, nodeClaim)
	if !errors.IsAlreadyExists(err) {
		return err
	}
	if err := DeleteToken(ctx, tokens, nodeClaim); err != nil {
		return err
	}
	return createToken(ctx, tokens, t, nodeClaim)
}

// DeleteToken deletes the NodeClaim's bootstrap token by its derived name; one already gone is
// no error.
func DeleteToken(ctx context.Context, tokens client.Writer, nodeClaim *karpv1.NodeClaim) error {
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: TokenNamespace, Name: tokenName(tokenID(nodeClaim))}}
	if err := tokens.Delete(ctx, secret); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting bootstrap token %s of nodeclaim %s, %w", secret.Name, nodeClaim.Name, err)
	}
	return nil
}

// createToken creates the token's Secret; the error wraps AlreadyExists when the NodeClaim has
// one.
func createToken(ctx context.Context, tokens client.Writer, t token, nodeClaim *karpv1.NodeClaim) error {
	if err := tokens.Create(ctx, tokenSecret(t.id, t.secret, t.expires, nodeClaim)); err != nil {
		return fmt.Errorf("creating bootstrap token %s, %w", tokenName(t.id), err)
	}
	return nil
}

// tokenName is the name the API server's token authenticator looks a token id up by.
func tokenName(id string) string { return "bootstrap-token-" + id }

func tokenSecret(id, secret string, expiration time.Time, nodeClaim *karpv1.NodeClaim) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: TokenNamespace,
			Name:      tokenName(id),
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

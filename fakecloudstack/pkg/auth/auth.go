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

// Package auth verifies request signatures the way the management server's ApiServer does.
package auth

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
)

// Keyring finds the secret key that belongs to an API key.
type Keyring interface {
	SecretKey(apiKey string) (string, bool)
}

// expiresLayouts are the forms DateUtil.parseTZDateString accepts: cloudstack-go sends RFC 3339
// with "Z", other clients send a numeric zone without a colon.
var expiresLayouts = []string{time.RFC3339, "2006-01-02T15:04:05-0700", "2006-01-02T15:04:05.000-0700"}

// Lookup returns the first value of a parameter whose name matches case-insensitively, the way
// the server treats apiKey, signatureVersion and expires.
func Lookup(params url.Values, name string) string {
	if v, ok := params[name]; ok && len(v) > 0 {
		return v[0]
	}
	for k, v := range params {
		if strings.EqualFold(k, name) && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

// Verify checks the signature and expiry of params and returns the caller's API key.
// Every failure is the same 401 so a caller learns nothing about which part was wrong.
func Verify(keys Keyring, params url.Values, now time.Time) (string, error) {
	apiKey := Lookup(params, "apiKey")
	signature := params.Get("signature")
	if apiKey == "" || signature == "" {
		return "", cserr.BadCredentials()
	}
	secret, ok := keys.SecretKey(apiKey)
	if !ok {
		return "", cserr.BadCredentials()
	}
	if Lookup(params, "signatureVersion") == "3" && !notExpired(Lookup(params, "expires"), now) {
		return "", cserr.BadCredentials()
	}
	given, err := base64.StdEncoding.DecodeString(signature)
	if err != nil || !hmac.Equal(given, digest(secret, params)) {
		return "", cserr.BadCredentials()
	}
	return apiKey, nil
}

// Sign computes the signature a correct client sends for params (without "signature").
func Sign(secret string, params url.Values) string {
	return base64.StdEncoding.EncodeToString(digest(secret, params))
}

func notExpired(expires string, now time.Time) bool {
	for _, layout := range expiresLayouts {
		if t, err := time.Parse(layout, expires); err == nil {
			return now.Before(t)
		}
	}
	return false
}

func digest(secret string, params url.Values) []byte {
	names := make([]string, 0, len(params))
	for name := range params {
		if name != "signature" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for i, name := range names {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(name)
		b.WriteByte('=')
		b.WriteString(javaURLEncode(params.Get(name)))
	}
	mac := hmac.New(sha1.New, []byte(secret))
	mac.Write([]byte(strings.ToLower(b.String())))
	return mac.Sum(nil)
}

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

package csapi

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"

	"sigs.k8s.io/controller-runtime/pkg/log"
)

// LoadCABundle returns the system's trusted roots plus every certificate in the PEM file at
// path: a management server whose certificate a private CA signed is then verified, not
// trusted blindly with verification off.
func LoadCABundle(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the CA bundle, %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		// An image without a system bundle: the private CA alone is still worth verifying with.
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate (-----BEGIN CERTIFICATE-----)", path)
	}
	return pool, nil
}

// errCAWithoutVerify refuses credentials that turn verification off while a CA bundle is set:
// the bundle would be silently ignored.
var errCAWithoutVerify = errors.New("TLS verification is off but a CA bundle is set: turn verification on or drop the CA bundle")

// WarnPlainHTTP logs one line when creds send the keys' signatures and every answer over
// plain http: they are readable and alterable on the way.
func WarnPlainHTTP(ctx context.Context, creds Credentials) {
	if u, err := url.Parse(creds.APIURL); err == nil && u.Scheme == "http" {
		log.FromContext(ctx).Info("insecure CloudStack API URL: plain http sends every call and answer unencrypted; use https", "url", creds.APIURL)
	}
}

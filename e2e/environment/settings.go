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

package environment

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
)

// Settings are the values one environment is built from. They are generated once and, for
// the detached development environment, saved so that a second `make up` finds the same keys
// and ports as the processes still running from the first.
type Settings struct {
	ClusterName string `json:"clusterName"`
	FakePort    int    `json:"fakePort"`
	MetricsPort int    `json:"metricsPort"`
	HealthPort  int    `json:"healthPort"`
	CCMPort     int    `json:"ccmPort"` // the CloudStack CCM's /healthz, where a CCM runs
	APIKey      string `json:"apiKey"`
	SecretKey   string `json:"secretKey"`
	// AdminToken opens the fake cloud's /admin endpoints.
	AdminToken string `json:"adminToken"`
}

// NewSettings picks free ports and fresh keys for a cluster of the given name.
func NewSettings(clusterName string) (Settings, error) {
	s := Settings{ClusterName: clusterName}
	if err := s.pickMissingPorts(); err != nil {
		return Settings{}, err
	}
	var err error
	if s.APIKey, err = randomHex(20); err != nil {
		return Settings{}, err
	}
	if s.SecretKey, err = randomHex(32); err != nil {
		return Settings{}, err
	}
	if err := s.pickMissingToken(); err != nil {
		return Settings{}, err
	}
	return s, nil
}

// pickMissingToken gives settings saved before the admin token existed one.
func (s *Settings) pickMissingToken() error {
	if s.AdminToken != "" {
		return nil
	}
	var err error
	s.AdminToken, err = randomHex(20)
	return err
}

// pickMissingPorts gives every port not chosen yet a free one.
func (s *Settings) pickMissingPorts() error {
	for _, p := range []*int{&s.FakePort, &s.MetricsPort, &s.HealthPort, &s.CCMPort} {
		if *p != 0 {
			continue
		}
		port, err := freePort()
		if err != nil {
			return err
		}
		*p = port
	}
	return nil
}

// LoadOrCreateSettings reads the settings saved at path, or creates and saves new ones. The
// file holds API keys, so only its owner may read it. Settings saved before a port or the
// admin token existed get one, saved with them.
func LoadOrCreateSettings(path, clusterName string) (Settings, error) {
	var s Settings
	raw, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := json.Unmarshal(raw, &s); err != nil {
			return Settings{}, fmt.Errorf("parsing %s, %w", path, err)
		}
		saved := s
		if err := s.pickMissingPorts(); err != nil {
			return Settings{}, err
		}
		if err := s.pickMissingToken(); err != nil {
			return Settings{}, err
		}
		if s == saved {
			return s, nil
		}
	case os.IsNotExist(err):
		if s, err = NewSettings(clusterName); err != nil {
			return Settings{}, err
		}
	default:
		return Settings{}, fmt.Errorf("reading %s, %w", path, err)
	}
	raw, err = json.Marshal(s)
	if err != nil {
		return Settings{}, fmt.Errorf("encoding settings, %w", err)
	}
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		return Settings{}, fmt.Errorf("writing %s, %w", path, err)
	}
	return s, nil
}

// freePort asks the kernel for a port that is free now. Another process could take it before
// ours binds it; ports are still fixed in advance so restarted processes keep their address.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port, %w", err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func randomHex(bytes int) (string, error) {
	b := make([]byte, bytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating a key, %w", err)
	}
	return hex.EncodeToString(b), nil
}

// String leaves the keys out, so settings can be logged.
func (s Settings) String() string {
	return fmt.Sprintf("cluster %s, fake cloud port %d, provider metrics port %d, health port %d, CCM port %d",
		s.ClusterName, s.FakePort, s.MetricsPort, s.HealthPort, s.CCMPort)
}

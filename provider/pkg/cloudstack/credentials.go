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

package cloudstack

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Credentials address one management server. String() hides the keys so Credentials can be
// logged safely.
type Credentials struct {
	APIURL    string
	APIKey    string
	SecretKey string
	VerifySSL bool
	// ProjectID and Zone come from the CCM's cloud-config; they are defaults, NodeClasses win.
	ProjectID string
	Zone      string
}

func (c Credentials) String() string {
	return fmt.Sprintf("{APIURL:%s VerifySSL:%t ProjectID:%s Zone:%s}", c.APIURL, c.VerifySSL, c.ProjectID, c.Zone)
}

// Validate reports the first missing field.
func (c Credentials) Validate() error {
	switch {
	case c.APIURL == "":
		return fmt.Errorf("the CloudStack API URL is not set")
	case c.APIKey == "":
		return fmt.Errorf("the CloudStack API key is not set")
	case c.SecretKey == "":
		return fmt.Errorf("the CloudStack secret key is not set")
	}
	return nil
}

// LoadCloudConfig reads the [Global] section of the CloudStack CCM's cloud-config INI file
// (api-url, api-key, secret-key, project-id, zone, ssl-no-verify), so clusters can reuse the
// Secret their CCM already has.
func LoadCloudConfig(path string) (Credentials, error) {
	f, err := os.Open(path)
	if err != nil {
		return Credentials{}, fmt.Errorf("opening cloud-config, %w", err)
	}
	defer f.Close()
	creds := Credentials{VerifySSL: true}
	section := ""
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") {
			continue
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = strings.ToLower(strings.TrimSpace(line[1 : len(line)-1]))
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok || section != "global" {
			continue
		}
		if err := creds.set(strings.ToLower(strings.TrimSpace(key)), unquote(strings.TrimSpace(value))); err != nil {
			return Credentials{}, fmt.Errorf("parsing cloud-config, %w", err)
		}
	}
	if err := scanner.Err(); err != nil {
		return Credentials{}, fmt.Errorf("reading cloud-config, %w", err)
	}
	return creds, nil
}

func (c *Credentials) set(key, value string) error {
	switch key {
	case "api-url":
		c.APIURL = value
	case "api-key":
		c.APIKey = value
	case "secret-key":
		c.SecretKey = value
	case "project-id":
		c.ProjectID = value
	case "zone":
		c.Zone = value
	case "ssl-no-verify":
		noVerify, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("ssl-no-verify %q is not a boolean", value)
		}
		c.VerifySSL = !noVerify
	}
	return nil
}

func unquote(value string) string {
	if len(value) >= 2 && (value[0] == '"' && value[len(value)-1] == '"' || value[0] == '\'' && value[len(value)-1] == '\'') {
		return value[1 : len(value)-1]
	}
	return value
}

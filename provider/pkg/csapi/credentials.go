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
	"fmt"
	"net/url"
	"slices"
	"strings"

	"gopkg.in/gcfg.v1"
)

// Credentials address one management server. String() hides the keys so Credentials can be
// logged safely.
type Credentials struct {
	APIURL    string
	APIKey    string
	SecretKey string
	VerifySSL bool
	// ProjectID, Zone and Region come from the CCM's cloud-config. ProjectID is the default
	// project of every call and Zone the only zone of NodeClasses that name none (NodeClasses
	// win); Region is the nodes' topology.kubernetes.io/region, as the CCM labels them.
	ProjectID string
	Zone      string
	Region    string
}

func (c Credentials) String() string {
	return fmt.Sprintf("{APIURL:%s VerifySSL:%t ProjectID:%s Zone:%s Region:%s}", c.APIURL, c.VerifySSL, c.ProjectID, c.Zone, c.Region)
}

// APIURLAccepted says what an API endpoint must look like, for errors about one.
const APIURLAccepted = "an http or https URL with a host, such as https://cloud.example/client/api"

// ValidAPIURL tells whether raw can be a management server's API endpoint.
func ValidAPIURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.Hostname() != ""
}

// Validate reports the first missing or impossible field.
func (c Credentials) Validate() error {
	switch {
	case c.APIURL == "":
		return fmt.Errorf("the CloudStack API URL is not set")
	case !ValidAPIURL(c.APIURL):
		return fmt.Errorf("the CloudStack API URL %q is not %s", c.APIURL, APIURLAccepted)
	case c.APIKey == "":
		return fmt.Errorf("the CloudStack API key is not set")
	case c.SecretKey == "":
		return fmt.Errorf("the CloudStack secret key is not set")
	}
	return nil
}

// cloudConfig is the CloudStack CCM's cloud-config file, read with the CCM's own parser
// (gopkg.in/gcfg.v1 at the version the CCM pins), so that a file the CCM takes is taken here
// and a file it refuses is refused here: an unknown section or key, a boolean other than
// true/yes/on/1 or false/no/off/0, a quote left open.
type cloudConfig struct {
	Global struct {
		APIURL      string `gcfg:"api-url"`
		APIKey      string `gcfg:"api-key"`
		SecretKey   string `gcfg:"secret-key"`
		SSLNoVerify bool   `gcfg:"ssl-no-verify"`
		ProjectID   string `gcfg:"project-id"`
		Zone        string `gcfg:"zone"`
		// Region labels every node, as the CCM (v1.2.0 getRegionFromZone) does; without it
		// the region is the zone's name.
		Region string `gcfg:"region"`
	}
}

// LoadCloudConfig reads the [Global] section of the CloudStack CCM's cloud-config file
// (api-url, api-key, secret-key, project-id, zone, region, ssl-no-verify), so clusters can reuse the
// Secret their CCM already has. The error of a bad file names the key and what it takes, and
// never quotes a key's value.
func LoadCloudConfig(path string) (Credentials, error) {
	var cfg cloudConfig
	if err := gcfg.ReadFileInto(&cfg, path); err != nil {
		return Credentials{}, fmt.Errorf("reading cloud-config %s, %s", path, oneLine(err.Error()))
	}
	g := cfg.Global
	creds := Credentials{APIURL: g.APIURL, APIKey: g.APIKey, SecretKey: g.SecretKey, VerifySSL: !g.SSLNoVerify, ProjectID: g.ProjectID, Zone: g.Zone, Region: g.Region}
	var missing []string
	for key, value := range map[string]string{"api-url": g.APIURL, "api-key": g.APIKey, "secret-key": g.SecretKey} {
		if value == "" {
			missing = append(missing, key)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return Credentials{}, fmt.Errorf("cloud-config %s sets no %s in [Global]", path, strings.Join(missing, ", "))
	}
	if !ValidAPIURL(g.APIURL) {
		return Credentials{}, fmt.Errorf("cloud-config %s: [Global] api-url is %q, want %s", path, g.APIURL, APIURLAccepted)
	}
	return creds, nil
}

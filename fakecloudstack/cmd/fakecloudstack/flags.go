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

package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

// flags are the command line; every flag can also come from FAKECLOUDSTACK_<NAME>.
type flags struct {
	listen     string
	apiKey     string
	secretKey  string
	configFile string
	kubeconfig string
	stateFile  string
	addrFile   string
	adminToken string
}

const envPrefix = "FAKECLOUDSTACK_"

func parseFlags(args []string) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("fakecloudstack", flag.ContinueOnError)
	str := func(p *string, name, def, usage string) {
		env := envPrefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if v, ok := os.LookupEnv(env); ok {
			def = v
		}
		fs.StringVar(p, name, def, fmt.Sprintf("%s (env %s)", usage, env))
	}
	str(&f.listen, "listen", "127.0.0.1:8080", "address to listen on; port 0 picks a free port")
	str(&f.apiKey, "api-key", "", "API key of the admin account; generated and printed when empty")
	str(&f.secretKey, "secret-key", "", "secret key of the admin account; generated and printed when empty")
	str(&f.configFile, "config", "", "YAML file with the world and its behaviour; the embedded default world otherwise")
	str(&f.kubeconfig, "kubeconfig", "", "kubeconfig of a cluster where running VMs become nodes (node simulator); several, comma-separated, give each cluster the VMs whose userdata joins its API server")
	str(&f.stateFile, "state-file", "", "file the state is loaded from at start and written to after every change")
	str(&f.adminToken, "admin-token", "", "token the /admin endpoints require (Authorization: Bearer <token>); generated and printed when empty")
	str(&f.addrFile, "addr-file", "", "file to write the base URL to once listening, for harnesses that use port 0")
	if err := fs.Parse(args); err != nil {
		return flags{}, err
	}
	if fs.NArg() > 0 {
		return flags{}, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	return f, nil
}

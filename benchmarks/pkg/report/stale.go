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

package report

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// Staleness marks the results measured before the code they measure, the provider's, last
// changed.
type Staleness struct {
	// Provider is the latest commit that changed provider/'s code when the summary was written.
	Provider string
	// Stale tells whether a run measured at commit predates Provider.
	Stale func(commit string) bool
}

// providerCode is the pathspec of what a benchmark runs of provider/: its tests and docs are
// not built into the binary, so changing them leaves every result as it was.
var providerCode = []string{
	":(top)provider",
	":(top,exclude,glob)provider/**/*_test.go",
	":(top,exclude,glob)provider/**/*.md",
}

// GitStaleness reads the repository at dir: a run is fresh when the latest commit that changed
// provider/'s code is its commit or an ancestor of it, and stale otherwise, as is a run whose
// commit git does not know (not recorded, or left behind by a rewritten history). A commit
// marked +dirty counts as the commit it was made on.
func GitStaleness(dir string) (Staleness, error) {
	out, err := exec.Command("git", append([]string{"-C", dir, "log", "-1", "--format=%H", "--"}, providerCode...)...).Output()
	if err != nil {
		return Staleness{}, fmt.Errorf("finding the latest commit that changed provider/'s code, %w", gitError(err))
	}
	provider := strings.TrimSpace(string(out))
	if provider == "" {
		return Staleness{}, errors.New("finding the latest commit that changed provider/'s code, there is none")
	}
	return Staleness{Provider: provider, Stale: func(commit string) bool {
		commit = strings.TrimSuffix(commit, "+dirty")
		// merge-base fails for an empty or unknown commit as for one that is not a descendant.
		return commit == "" || exec.Command("git", "-C", dir, "merge-base", "--is-ancestor", provider, commit).Run() != nil
	}}, nil
}

// gitError adds what git wrote on stderr to its exit error.
func gitError(err error) error {
	var exit *exec.ExitError
	if errors.As(err, &exit) && len(exit.Stderr) > 0 {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(exit.Stderr)))
	}
	return err
}

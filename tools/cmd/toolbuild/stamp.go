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
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// recipe is everything a binary depends on: when it equals the stamp written after the last
// build, the binary is still what the pins ask for. go.mod's digest covers the replaces and
// indirect requirements that the pin alone does not name.
func recipe(tool Tool, pin Module, goVersion string, goMod []byte, ldflags []string) string {
	return strings.Join([]string{
		"package " + tool.Package,
		"pin " + pin.Path + "@" + pin.Version,
		"go " + goVersion,
		"gcflags " + gcflags,
		"ldflags " + strings.Join(ldflags, " "),
		fmt.Sprintf("go.mod sha256:%x", sha256.Sum256(goMod)),
	}, "\n") + "\n"
}

// upToDate reports whether binary exists and was built from want.
func upToDate(binary, stamp, want string) (bool, error) {
	got, err := os.ReadFile(stamp)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading stamp, %w", err)
	}
	if _, err := os.Stat(binary); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("checking %s, %w", binary, err)
	}
	return string(got) == want, nil
}

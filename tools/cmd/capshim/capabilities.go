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
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// capabilityNames are Linux's capabilities by number, as OCI specs name them.
var capabilityNames = []string{
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL",
	"CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE",
	"CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK", "CAP_IPC_OWNER",
	"CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE", "CAP_SYS_PACCT",
	"CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE", "CAP_SYS_RESOURCE", "CAP_SYS_TIME",
	"CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE", "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL",
	"CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM",
	"CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF", "CAP_CHECKPOINT_RESTORE",
}

// boundingSet reads the CapBnd line of a /proc/<pid>/status file: the capabilities no process
// started from here can ever hold.
func boundingSet(statusPath string) (map[string]bool, error) {
	f, err := os.Open(statusPath)
	if err != nil {
		return nil, fmt.Errorf("reading the capability bounding set, %w", err)
	}
	defer func() { _ = f.Close() }()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		hex, ok := strings.CutPrefix(scanner.Text(), "CapBnd:")
		if !ok {
			continue
		}
		mask, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
		if err != nil {
			return nil, fmt.Errorf("parsing CapBnd %q of %s, %w", hex, statusPath, err)
		}
		set := map[string]bool{}
		for bit, name := range capabilityNames {
			if mask&(1<<bit) != 0 {
				set[name] = true
			}
		}
		return set, nil
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("reading %s, %w", statusPath, err)
	}
	return nil, fmt.Errorf("%s has no CapBnd line", statusPath)
}

// spec is a runc input holding capabilities: a bundle's config.json, whose process carries
// them, or an exec's --process file, which is the process itself.
type spec struct {
	path      string
	isProcess bool
}

// globalValueFlags are runc's global flags that take a value: before the command, the word
// after one of them is its value, not the command.
var globalValueFlags = []string{"root", "log", "log-format", "criu", "rootless"}

// specFile finds what runc will read capabilities from: `create` and `run` read the bundle
// (--bundle, or the working directory), `exec` reads --process. Other commands carry none.
func specFile(args []string) spec {
	command, flags := "", map[string]string{}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if !strings.HasPrefix(arg, "-") {
			if command == "" {
				command = arg
			}
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		takesValue := slices.Contains([]string{"bundle", "b", "process", "p"}, name)
		if command == "" && slices.Contains(globalValueFlags, name) && !hasValue {
			i++
		}
		if command == "" || !takesValue {
			continue
		}
		if !hasValue && i+1 < len(args) {
			i++
			value = args[i]
		}
		flags[name[:1]] = value
	}
	switch command {
	case "create", "run":
		bundle := flags["b"]
		if bundle == "" {
			bundle = "."
		}
		return spec{path: filepath.Join(bundle, "config.json")}
	case "exec":
		if flags["p"] != "" {
			return spec{path: flags["p"], isProcess: true}
		}
	}
	return spec{}
}

// restrict rewrites the file with every capability outside bounding removed from each set;
// names it does not know stay, for runc to judge. Every other field is kept as it was.
func (s spec) restrict(bounding map[string]bool) error {
	data, err := os.ReadFile(s.path)
	if err != nil {
		return fmt.Errorf("reading %s, %w", s.path, err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("parsing %s, %w", s.path, err)
	}
	process := doc
	if !s.isProcess {
		process = nil
		if err := unmarshalOptional(doc["process"], &process); err != nil {
			return fmt.Errorf("parsing the process of %s, %w", s.path, err)
		}
	}
	var sets map[string][]string
	if err := unmarshalOptional(process["capabilities"], &sets); err != nil {
		return fmt.Errorf("parsing the capabilities of %s, %w", s.path, err)
	}
	if len(sets) == 0 {
		return nil
	}
	for kind, names := range sets {
		sets[kind] = slices.DeleteFunc(names, func(name string) bool {
			return slices.Contains(capabilityNames, name) && !bounding[name]
		})
	}
	if process["capabilities"], err = json.Marshal(sets); err != nil {
		return err
	}
	if !s.isProcess {
		if doc["process"], err = json.Marshal(process); err != nil {
			return err
		}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	info, err := os.Stat(s.path)
	if err != nil {
		return err
	}
	return os.WriteFile(s.path, out, info.Mode().Perm())
}

func unmarshalOptional(raw json.RawMessage, into any) error {
	if len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, into)
}

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

package realvm

import (
	"archive/tar"
	"bytes"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/nodesim"
)

// seedDir is where cloud-init's NoCloud datasource reads a seed from the file system
// (ds-identify enables cloud-init when it finds one there).
const seedDir = "var/lib/cloud/seed/nocloud"

// seed is the NoCloud seed of a VM as a tar archive to unpack at /: meta-data with the
// instance id, local hostname and availability zone CloudStack's metadata service serves,
// and the userdata as deployVirtualMachine received it, decoded.
func seed(vm nodesim.VM, now time.Time) ([]byte, error) {
	userData, err := base64.StdEncoding.DecodeString(vm.UserData)
	if err != nil {
		return nil, fmt.Errorf("decoding the userdata of VM %s, %w", vm.ID, err)
	}
	metaData := fmt.Sprintf("instance-id: %s\nlocal-hostname: %s\navailability-zone: %s\n", vm.ID, vm.Name, vm.ZoneName)
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	dir := ""
	for _, part := range []string{"var", "var/lib", "var/lib/cloud", "var/lib/cloud/seed", seedDir} {
		dir = part
		if err := w.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir + "/", Mode: 0o755, ModTime: now}); err != nil {
			return nil, err
		}
	}
	for _, f := range []struct {
		name    string
		content []byte
	}{{"meta-data", []byte(metaData)}, {"user-data", userData}} {
		content := f.content
		h := &tar.Header{Typeflag: tar.TypeReg, Name: dir + "/" + f.name, Mode: 0o600, Size: int64(len(content)), ModTime: now}
		if err := w.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := w.Write(content); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

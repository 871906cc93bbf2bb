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

package api

import (
	"encoding/base64"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/cserr"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack/pkg/store"
)

// Userdata limits of UserDataManagerImpl, on the base64 text.
const (
	maxUserDataGET  = 4096
	maxUserDataPOST = 1048576
)

var vmName = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$`)

func validateName(name string) error {
	if !vmName.MatchString(name) {
		return cserr.InvalidParam(`Invalid name. Vm name can contain ASCII letters 'a' through 'z', the digits '0' through '9', and the hyphen ('-'), must be between 1 and 63 characters long, and can't start or end with "-" and can't start with digit`)
	}
	return nil
}

// validateUserData checks the base64 text and returns it unchanged, as CloudStack stores it.
func (b *Backend) validateUserData(r *Request) (string, error) {
	ud := r.Get("userdata")
	switch {
	case ud == "":
		return "", nil
	case r.GET && len(ud) > maxUserDataGET:
		return "", cserr.InvalidParam("User data is too long for http GET request")
	case len(ud) > maxUserDataPOST:
		return "", cserr.InvalidParam("User data is too long for http POST request")
	}
	decoded, err := decodeUserData(ud)
	if err != nil {
		return "", cserr.InvalidParam("User data is not base64 encoded.")
	}
	if len(decoded) > b.Settings.UserDataMaxLength {
		return "", cserr.InvalidParam("User data has exceeded configurable max length: %d", b.Settings.UserDataMaxLength)
	}
	return ud, nil
}

// decodeUserData is as lenient as commons-codec: line breaks, missing padding and the URL-safe
// alphabet are all accepted.
func decodeUserData(ud string) ([]byte, error) {
	clean := strings.NewReplacer("\r", "", "\n", "", " ", "", "-", "+", "_", "/").Replace(ud)
	return base64.RawStdEncoding.DecodeString(strings.TrimRight(clean, "="))
}

// customShape resolves the CPU, speed and memory of a deploy, reading details[n] for custom
// offerings and checking the offering's bounds.
func customShape(off store.ServiceOffering, details map[string]string, maxCPU, maxMemoryMiB int) (cpu, speed, memory int, err error) {
	if !off.Customized {
		return off.CPU, off.CPUSpeed, off.MemoryMiB, nil
	}
	cpu, cpuErr := strconv.Atoi(details["cpuNumber"])
	memory, memErr := strconv.Atoi(details["memory"])
	speed = off.CPUSpeed
	var speedErr error
	if speed == 0 {
		speed, speedErr = strconv.Atoi(details["cpuSpeed"])
	}
	if cpuErr != nil || memErr != nil || speedErr != nil {
		return 0, 0, 0, cserr.InvalidParam("Need to specify custom parameter values cpu, cpu speed and memory when using custom offering")
	}
	// UserVmManagerImpl.validateCustomParameters (4.18/4.19 texts): an offering's details
	// bound the shape, 1 vCPU and 32 MiB at least and Integer.MAX_VALUE at most without them,
	// and the global settings vm.serviceoffering.cpu.cores.max and .ram.size.max cap it.
	if lo, hi := bound(off, store.DetailMinCPU, 1), capped(bound(off, store.DetailMaxCPU, math.MaxInt32), maxCPU); cpu < lo || cpu > hi {
		return 0, 0, 0, cserr.InvalidParam("Invalid cpu cores value, specify a value between %d and %d", lo, hi)
	}
	if lo, hi := bound(off, store.DetailMinMemory, 32), capped(bound(off, store.DetailMaxMemory, math.MaxInt32), maxMemoryMiB); memory < lo || memory > hi {
		return 0, 0, 0, cserr.InvalidParam("Invalid memory value, specify a value between %d and %d", lo, hi)
	}
	return cpu, speed, memory, nil
}

func bound(off store.ServiceOffering, key string, def int) int {
	if v, err := strconv.Atoi(off.Details[key]); err == nil {
		return v
	}
	return def
}

// capped applies a global maximum; zero means none.
func capped(v, global int) int {
	if global > 0 {
		return min(v, global)
	}
	return v
}

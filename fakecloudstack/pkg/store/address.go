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

package store

import (
	"fmt"
	"net/netip"
)

// firstGuestOffset skips the network address, the gateway and a few addresses CloudStack keeps
// for its virtual router.
const firstGuestOffset = 10

// addressLocked gives each NIC an address and MAC derived from the VM's sequence number, which
// is unique for the life of the store, so two live VMs never share an address.
func (s *Store) addressLocked(vm *VM) {
	for i := range vm.NICs {
		nic := &vm.NICs[i]
		if nic.IP == "" {
			nic.IP = guestAddress(s.Networks.byID[nic.NetworkID].CIDR, vm.Seq)
		}
		if nic.MAC == "" {
			nic.MAC = fmt.Sprintf("02:00:%02x:%02x:%02x:%02x", byte(i), byte(vm.Seq>>16), byte(vm.Seq>>8), byte(vm.Seq))
		}
	}
}

func guestAddress(cidr string, seq int64) string {
	p, err := netip.ParsePrefix(cidr)
	if err != nil || !p.Addr().Is4() {
		return ""
	}
	size := int64(1) << (32 - p.Bits())
	if size <= 2*firstGuestOffset {
		return ""
	}
	offset := firstGuestOffset + seq%(size-firstGuestOffset-1)
	base := p.Masked().Addr().As4()
	n := uint32(base[0])<<24 | uint32(base[1])<<16 | uint32(base[2])<<8 | uint32(base[3])
	n += uint32(offset)
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}).String()
}

// Netmask returns the dotted mask of a CIDR, as NIC responses show it.
func Netmask(cidr string) string {
	p, err := netip.ParsePrefix(cidr)
	if err != nil || !p.Addr().Is4() {
		return ""
	}
	m := ^uint32(0) << (32 - p.Bits())
	return netip.AddrFrom4([4]byte{byte(m >> 24), byte(m >> 16), byte(m >> 8), byte(m)}).String()
}

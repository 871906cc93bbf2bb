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

package cache

import (
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

func TestUnavailableOfferingsExpire(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Now())
	u := NewUnavailableOfferings(clk, UnavailableOfferingsTTL)
	before := u.SeqNum()
	u.MarkUnavailable("gp.large", "zone-a")
	if !u.IsUnavailable("gp.large", "zone-a") || u.IsUnavailable("gp.large", "zone-b") || u.IsUnavailable("gp.small", "zone-a") {
		t.Fatal("only gp.large in zone-a must be unavailable")
	}
	marked := u.SeqNum()
	if marked == before || u.Len() != 1 {
		t.Fatalf("marking must change the sequence number and count one entry (seq %d -> %d, len %d)", before, marked, u.Len())
	}
	clk.Step(UnavailableOfferingsTTL - time.Second)
	if !u.IsUnavailable("gp.large", "zone-a") {
		t.Fatal("the entry expired before its TTL")
	}
	clk.Step(time.Second)
	if u.SeqNum() == marked || u.Len() != 0 || u.IsUnavailable("gp.large", "zone-a") {
		t.Fatal("the entry must expire after the TTL and change the sequence number")
	}
}

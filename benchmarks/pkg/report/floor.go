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
	"fmt"
	"math"
	"strings"
)

// acceptedDeploys are the deploys CloudStack accepted in a result: the launches the rate paced.
func acceptedDeploys(r Result) int { return r.Calls["deployVirtualMachine"]["200"] }

// throttleFloor is the least NodeClaim create -> Launched p50 that CloudStack's throttle leaves
// our provider in a paired run: the KWOK provider's p50, which is core's share of a launch on
// both sides, plus half the time the run's accepted deploys take at the rate our provider ran
// at, since the median launch waits behind half of them. NaN when the pair lacks a figure.
func throttleFloor(pair []Result) float64 {
	if len(pair) != 2 || pair[0].RateLimit <= 0 || acceptedDeploys(pair[0]) == 0 || !provisioned(pair[1]) {
		return math.NaN()
	}
	return pair[1].NodeClaimLaunched.P50 + float64(acceptedDeploys(pair[0]))/pair[0].RateLimit/2
}

// overFloor is our Launched p50 over the pair's throttle floor.
func overFloor(pair []Result) float64 {
	return ratioOf(pair[0].NodeClaimLaunched.P50, throttleFloor(pair))
}

// floorLine compares our Launched p50 with the throttle floor, in the first paired run and,
// for a repeated run, as the median and spread of every paired run's; empty when the run has
// no floor (no baseline, or recorded before the rate was read).
func floorLine(rounds [][]Result) string {
	first := rounds[0]
	floor := throttleFloor(first)
	if math.IsNaN(floor) {
		return ""
	}
	ours, base := first[0], first[1]
	var b strings.Builder
	fmt.Fprintf(&b, "**Launched p50 against the throttle floor**: ours %ss; floor %ss, the KWOK provider's %ss plus half of %d accepted deploys at %s calls/s; ours / floor %s",
		format(ours.NodeClaimLaunched.P50), format(floor), format(base.NodeClaimLaunched.P50), acceptedDeploys(ours), format(ours.RateLimit), formatRatio(overFloor(first)))
	if len(rounds) > 1 {
		if median, lowest, highest := spread(rounds, overFloor); !math.IsNaN(median) {
			fmt.Fprintf(&b, " in run 1, %s (%s to %s) as the median (lowest to highest) of %d runs",
				formatRatio(median), formatRatio(lowest), formatRatio(highest), len(rounds))
		}
	}
	b.WriteString(".\n\n")
	return b.String()
}

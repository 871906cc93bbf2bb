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

package instance_test

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/providers/instance"
	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/provider/pkg/test"
)

// stepObserved is how many launches went through the step, and how long they took in all.
func stepObserved(t *testing.T, step string) (uint64, float64) {
	t.Helper()
	m := &dto.Metric{}
	if err := instance.LaunchStepDuration.WithLabelValues(step).(prometheus.Histogram).Write(m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()
}

func TestALaunchTimesEachOfItsSteps(t *testing.T) {
	e := newEnv(t)
	steps := []string{"queued", "lookup", "choose", "userdata", "token", "deploy", "tags"}
	before := map[string]uint64{}
	for _, s := range steps {
		before[s], _ = stepObserved(t, s)
	}
	_, queuedBefore := stepObserved(t, "queued")
	nc := test.NodeClaim("node-timed", "gplarge")
	nc.CreationTimestamp = metav1.NewTime(e.clk.Now().Add(-3 * time.Second))
	if _, err := e.create(t, nc); err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		if n, _ := stepObserved(t, s); n != before[s]+1 {
			t.Errorf("step %s observed %d more times, want once: the process has not started, so the launch looks for a predecessor's VM too", s, n-before[s])
		}
	}
	if _, queued := stepObserved(t, "queued"); queued-queuedBefore < 3 {
		t.Errorf("queued for %vs, want at least the 3 s since the NodeClaim's creation", queued-queuedBefore)
	}
}

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

package run

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks/pkg/report"
)

// nodeAt is a node as one write left it, at revision rv.
func nodeAt(name string, rv int, ready corev1.ConditionStatus) *corev1.Node {
	n := node(name, ready)
	n.ResourceVersion = strconv.Itoa(rv)
	return n
}

// startedAt is a pod written Running on the node at revision rv.
func startedAt(name, node string, rv int) *corev1.Pod {
	p := runningPod(name)
	p.UID, p.ResourceVersion, p.Spec.NodeName = types.UID(name), strconv.Itoa(rv), node
	return p
}

func TestReadyOrderCountsPodsThatRanBeforeTheirNodeWasReady(t *testing.T) {
	o := newReadyOrder()
	// Both nodes register NotReady at 10 and 11; a turns Ready at 20, b at 40.
	o.node(nodeAt("a", 10, corev1.ConditionFalse))
	o.node(nodeAt("b", 11, corev1.ConditionFalse))
	o.node(nodeAt("a", 20, corev1.ConditionTrue))
	o.pod(startedAt("on-ready-a", "a", 25))
	o.pod(startedAt("early-on-b", "b", 30))
	o.node(nodeAt("b", 40, corev1.ConditionTrue))
	o.pod(startedAt("on-ready-b", "b", 45))
	// A later write of the same pod, Running still, is not a new start.
	o.pod(startedAt("early-on-b", "b", 50))
	o.node(nodeAt("a", 60, corev1.ConditionTrue))
	got, err := o.settle(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"early-on-b"}) {
		t.Errorf("pods started on a not-Ready node = %v, want only the pod written Running before b turned Ready", got)
	}
}

func TestReadyOrderWaitsForTheNodeWritesThatCameBeforeAPodsStart(t *testing.T) {
	o := newReadyOrder()
	o.node(nodeAt("a", 10, corev1.ConditionFalse))
	// The pods' watch delivers the start at 30 before the nodes' watch delivers a's Ready at 20.
	o.pod(startedAt("p", "a", 30))
	if left := o.decide(false); left != 1 {
		t.Fatalf("decided with node writes up to 10 seen only; %d left, want the pod kept for later", left)
	}
	o.node(nodeAt("a", 20, corev1.ConditionTrue))
	if left := o.decide(false); left != 1 {
		t.Fatalf("%d left after a write at 20, want the pod still waiting for writes up to 30", left)
	}
	o.node(nodeAt("other", 31, corev1.ConditionTrue))
	if left := o.decide(false); left != 0 || len(o.onNotReady) != 0 {
		t.Errorf("left %d, on a not-Ready node %v: every node write up to 31 is seen, and a was Ready at 30", left, o.onNotReady)
	}
}

func TestReadyOrderJudgesTheRestFromTheWritesSeenWhenNoneCome(t *testing.T) {
	o := newReadyOrder()
	o.node(nodeAt("a", 10, corev1.ConditionFalse))
	o.node(nodeAt("b", 12, corev1.ConditionTrue))
	o.pod(startedAt("on-a", "a", 30))
	o.pod(startedAt("on-b", "b", 31))
	// A pod on a node the watch has not shown at all had no Ready node under it either.
	o.pod(startedAt("on-unseen", "c", 32))
	if left := o.decide(true); left != 0 {
		t.Fatalf("%d left after judging all", left)
	}
	if !slices.Equal(o.onNotReady, []string{"on-a", "on-unseen"}) {
		t.Errorf("pods started on a not-Ready node = %v", o.onNotReady)
	}
}

func TestReadyOrderRefusesResourceVersionsThatAreNotRevisions(t *testing.T) {
	o := newReadyOrder()
	n := node("a", corev1.ConditionTrue)
	n.ResourceVersion = "a1b2"
	o.node(n)
	if _, err := o.settle(context.Background()); err == nil || !strings.Contains(err.Error(), "not etcd revisions") {
		t.Errorf("settle = %v, want an error: writes that cannot be ordered cannot be judged", err)
	}
}

func TestJudgeReadyGateFailsAProvisionedRunWithAPodOnANotReadyNode(t *testing.T) {
	o := newReadyOrder()
	o.node(nodeAt("a", 10, corev1.ConditionFalse))
	o.pod(startedAt("p", "a", 20))
	o.node(nodeAt("a", 30, corev1.ConditionTrue))
	var progress bytes.Buffer
	r := report.Result{Scenario: "S2", Provider: "kwok", NodeClaims: 1}
	err := judgeReadyGate(context.Background(), o, report.Sample{Nodes: 3, NodesReady: 1}, &progress, &r)
	if err == nil || !strings.Contains(err.Error(), "1 pods started Running on a node that was not Ready") {
		t.Errorf("judgeReadyGate = %v, want the run failed", err)
	}
	if r.ReadyGate == nil || *r.ReadyGate != (report.ReadyGate{Nodes: 3, PodsStartedOnNotReadyNodes: 1}) {
		t.Errorf("ReadyGate = %+v, want the nodes when all pods ran and the one pod", r.ReadyGate)
	}
	if !strings.Contains(progress.String(), "pods started on a not-Ready node: 1, first p") {
		t.Errorf("progress = %q, want the pod named", progress.String())
	}
}

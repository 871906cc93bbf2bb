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

package objects

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Namespace holds every workload of the suites, so a reset deletes them in one sweep.
const Namespace = "default"

// AppLabel selects the pods of one workload.
const AppLabel = "app"

// Resources is a shorthand for requests such as Resources("cpu", "1", "memory", "1Gi").
func Resources(nameQuantity ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(nameQuantity); i += 2 {
		out[corev1.ResourceName(nameQuantity[i])] = resource.MustParse(nameQuantity[i+1])
	}
	return out
}

// PodSpec runs one pause container with the given requests. KWOK never pulls the image; a
// zero grace period keeps drains quick.
func PodSpec(requests corev1.ResourceList) corev1.PodSpec {
	return corev1.PodSpec{
		TerminationGracePeriodSeconds: ptr.To[int64](0),
		Containers: []corev1.Container{{
			Name:      "pause",
			Image:     "registry.k8s.io/pause:3.10",
			Resources: corev1.ResourceRequirements{Requests: requests, Limits: requests},
		}},
	}
}

// Deployment returns a Deployment of pause pods labelled app=<name>.
func Deployment(name string, replicas int32, requests corev1.ResourceList, opts ...func(*corev1.PodSpec)) *appsv1.Deployment {
	labels := map[string]string{AppLabel: name}
	spec := PodSpec(requests)
	for _, o := range opts {
		o(&spec)
	}
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       spec,
			},
		},
	}
}

// Pod returns a single pause pod labelled app=<name>.
func Pod(name string, requests corev1.ResourceList, opts ...func(*corev1.PodSpec)) *corev1.Pod {
	spec := PodSpec(requests)
	for _, o := range opts {
		o(&spec)
	}
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace, Labels: map[string]string{AppLabel: name}},
		Spec:       spec,
	}
}

// Image runs the pods' container from a local image, which a real kubelet must find in its
// node's image store: nothing is pulled.
func Image(name string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		s.Containers[0].Image = name
		s.Containers[0].ImagePullPolicy = corev1.PullNever
	}
}

// NodeSelector pins pods to nodes with the given label.
func NodeSelector(key, value string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		if s.NodeSelector == nil {
			s.NodeSelector = map[string]string{}
		}
		s.NodeSelector[key] = value
	}
}

// Tolerate lets pods run on nodes with the given taint key, whatever its value and effect.
func Tolerate(key string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		s.Tolerations = append(s.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists})
	}
}

// SpreadOverZones asks for at most a skew of one between zones for the pods labelled app=<app>.
func SpreadOverZones(app string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		s.TopologySpreadConstraints = append(s.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
			MaxSkew:           1,
			TopologyKey:       corev1.LabelTopologyZone,
			WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{AppLabel: app}},
		})
	}
}

// OnePerNode keeps the pods labelled app=<app> on distinct nodes, so N replicas need N nodes.
func OnePerNode(app string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		if s.Affinity == nil {
			s.Affinity = &corev1.Affinity{}
		}
		s.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				TopologyKey:   corev1.LabelHostname,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{AppLabel: app}},
			}},
		}
	}
}

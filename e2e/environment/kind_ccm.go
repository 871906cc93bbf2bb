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

package environment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
)

// On kind the CloudStack CCM is a Deployment in kube-system, from the image app-images.sh
// builds from bin/cloudstack-ccm, with the fake's in-cluster URL in its cloud-config Secret,
// as a cluster runs it. Its log reaches the run's log of the CCM through `kubectl logs
// --follow`, so that the suites read it the same way on both runtimes.
const (
	ccmNamespace = "kube-system"
	ccmName      = component.CCMName
	// ccmPort is the CCM's default secure port, which serves /healthz for the readiness probe.
	ccmPort         = 10258
	ccmConfigDir    = "/etc/kubernetes/cloudstack"
	ccmConfigKey    = "cloud-config"
	ccmReadyTimeout = 2 * time.Minute
)

// ccmImage is the CCM's image as app-images.sh listed it in .kind/app-images.
func (e *Environment) ccmImage() (string, error) {
	path := filepath.Join(e.Root, ".kind", "app-images")
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading the kind cluster's images, %w (run 'make kind-up')", err)
	}
	for line := range strings.Lines(string(raw)) {
		if image := strings.TrimSpace(line); strings.Contains(image, "/"+ccmName+":") {
			return image, nil
		}
	}
	return "", fmt.Errorf("%s lists no %s image: run 'make kind-up' again", path, ccmName)
}

// ccmObjects are the CCM's ServiceAccount, its binding, the cloud-config Secret and the
// Deployment. The binding is to cluster-admin: the suite checks what the CCM does to Nodes,
// not the CCM's own RBAC.
func ccmObjects(image, apiKey, secretKey string) []client.Object {
	meta := metav1.ObjectMeta{Name: ccmName, Namespace: ccmNamespace, Labels: map[string]string{"app": ccmName}}
	one := int32(1)
	return []client.Object{
		&corev1.ServiceAccount{ObjectMeta: meta},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "karpenter-cloudstack-e2e:" + ccmName},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: ccmName, Namespace: ccmNamespace}},
		},
		&corev1.Secret{ObjectMeta: meta, StringData: map[string]string{
			ccmConfigKey: string(component.CloudConfig(fakeClusterURL, apiKey, secretKey)),
		}},
		&appsv1.Deployment{
			ObjectMeta: meta,
			Spec: appsv1.DeploymentSpec{
				Replicas: &one,
				Selector: &metav1.LabelSelector{MatchLabels: meta.Labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: meta.Labels},
					Spec: corev1.PodSpec{
						ServiceAccountName: ccmName,
						Tolerations:        []corev1.Toleration{{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists}},
						Containers: []corev1.Container{{
							Name:            ccmName,
							Image:           image,
							ImagePullPolicy: corev1.PullNever,
							Args: append(component.CCMArgs(ccmConfigDir+"/"+ccmConfigKey, ccmNodeStatusUpdateFrequency),
								fmt.Sprintf("--secure-port=%d", ccmPort)),
							ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
								Path: "/healthz", Port: intstr.FromInt32(ccmPort), Scheme: corev1.URISchemeHTTPS,
							}}},
							VolumeMounts: []corev1.VolumeMount{{Name: "cloud-config", MountPath: ccmConfigDir, ReadOnly: true}},
						}},
						Volumes: []corev1.Volume{{Name: "cloud-config", VolumeSource: corev1.VolumeSource{
							Secret: &corev1.SecretVolumeSource{SecretName: ccmName},
						}}},
					},
				},
			},
		},
	}
}

// installCCM creates the CCM's objects, in place of a killed run's, and waits until its pod
// is ready: its /healthz answers once the cloud provider reached the fake.
func installCCM(ctx context.Context, e *Environment) error {
	kube, err := e.client()
	if err != nil {
		return err
	}
	if err := uninstallCCM(ctx, kube); err != nil {
		return err
	}
	image, err := e.ccmImage()
	if err != nil {
		return err
	}
	for _, o := range ccmObjects(image, e.APIKey, e.SecretKey) {
		if err := kube.Create(ctx, o); err != nil {
			return fmt.Errorf("creating the CCM's %T, %w", o, err)
		}
	}
	err = wait.PollUntilContextTimeout(ctx, time.Second, ccmReadyTimeout, true, func(ctx context.Context) (bool, error) {
		d := &appsv1.Deployment{}
		if err := kube.Get(ctx, client.ObjectKey{Namespace: ccmNamespace, Name: ccmName}, d); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return d.Status.ReadyReplicas == 1, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the CCM's Deployment in %s, %w", ccmNamespace, err)
	}
	return nil
}

// uninstallCCM deletes the CCM's objects; missing ones are fine. The pod is waited for, so
// that the next run's log follower does not attach to it.
func uninstallCCM(ctx context.Context, kube client.Client) error {
	var errs []error
	for _, o := range ccmObjects("", "", "") {
		errs = append(errs, client.IgnoreNotFound(kube.Delete(ctx, o, client.PropagationPolicy(metav1.DeletePropagationForeground))))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("deleting the CCM, %w", err)
	}
	return wait.PollUntilContextTimeout(ctx, time.Second, ccmReadyTimeout, true, func(ctx context.Context) (bool, error) {
		pods := &corev1.PodList{}
		if err := kube.List(ctx, pods, client.InNamespace(ccmNamespace), client.MatchingLabels{"app": ccmName}); err != nil {
			return false, err
		}
		return len(pods.Items) == 0, nil
	})
}

// ccmLogFollower copies the CCM pod's log into the run's log of the CCM.
func (e *Environment) ccmLogFollower() component.Component {
	return component.Component{
		Name:   ccmName,
		Binary: e.Bin("kubectl"),
		Args:   []string{"--kubeconfig", e.Kubeconfig(), "--namespace", ccmNamespace, "logs", "--follow", "deploy/" + ccmName},
		Deps:   []string{component.FakeCloudName},
	}
}

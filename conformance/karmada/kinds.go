package main

import (
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// What the Karmada API server (a kube-apiserver) knows about a template's
// kind without a discovery client: whether it is namespaced, and whether the
// registry sets metadata.generation = 1 on create.
//
// Built-in kinds are listed by group. A kind of a group that is not built in
// is a custom resource: its CRD registry always sets generation 1 on create
// (apiextensions-apiserver customresource strategy), and it is taken as
// namespaced when the template carries metadata.namespace, cluster-scoped
// otherwise (the CRD is not part of the case).

// builtinGroups are the API groups a kube-apiserver serves itself.
var builtinGroups = map[string]bool{
	"": true, "admissionregistration.k8s.io": true, "apiextensions.k8s.io": true,
	"apiregistration.k8s.io": true, "apps": true, "authentication.k8s.io": true,
	"authorization.k8s.io": true, "autoscaling": true, "batch": true,
	"certificates.k8s.io": true, "coordination.k8s.io": true, "discovery.k8s.io": true,
	"events.k8s.io": true, "flowcontrol.apiserver.k8s.io": true,
	"internal.apiserver.k8s.io": true, "networking.k8s.io": true, "node.k8s.io": true,
	"policy": true, "rbac.authorization.k8s.io": true, "resource.k8s.io": true,
	"scheduling.k8s.io": true, "storage.k8s.io": true, "storagemigration.k8s.io": true,
}

// clusterScopedBuiltins are the built-in kinds that have no namespace.
var clusterScopedBuiltins = map[schema.GroupKind]bool{}

// generationBuiltins are the built-in kinds whose registry strategy sets
// metadata.generation = 1 in PrepareForCreate (k8s.io/kubernetes
// pkg/registry/**/strategy.go). Other built-in kinds (ConfigMap, Secret,
// Service, ServiceAccount, RBAC, ...) have no generation.
var generationBuiltins = map[schema.GroupKind]bool{}

func init() {
	for _, gk := range []string{
		"Namespace", "Node", "PersistentVolume", "ComponentStatus",
		"MutatingWebhookConfiguration.admissionregistration.k8s.io",
		"ValidatingWebhookConfiguration.admissionregistration.k8s.io",
		"ValidatingAdmissionPolicy.admissionregistration.k8s.io",
		"ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io",
		"MutatingAdmissionPolicy.admissionregistration.k8s.io",
		"MutatingAdmissionPolicyBinding.admissionregistration.k8s.io",
		"CustomResourceDefinition.apiextensions.k8s.io",
		"APIService.apiregistration.k8s.io",
		"TokenReview.authentication.k8s.io", "SelfSubjectReview.authentication.k8s.io",
		"SelfSubjectAccessReview.authorization.k8s.io", "SelfSubjectRulesReview.authorization.k8s.io",
		"SubjectAccessReview.authorization.k8s.io",
		"CertificateSigningRequest.certificates.k8s.io", "ClusterTrustBundle.certificates.k8s.io",
		"FlowSchema.flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io",
		"StorageVersion.internal.apiserver.k8s.io",
		"IPAddress.networking.k8s.io", "IngressClass.networking.k8s.io", "ServiceCIDR.networking.k8s.io",
		"RuntimeClass.node.k8s.io",
		"ClusterRole.rbac.authorization.k8s.io", "ClusterRoleBinding.rbac.authorization.k8s.io",
		"DeviceClass.resource.k8s.io", "DeviceTaintRule.resource.k8s.io", "ResourceSlice.resource.k8s.io",
		"PriorityClass.scheduling.k8s.io",
		"CSIDriver.storage.k8s.io", "CSINode.storage.k8s.io", "StorageClass.storage.k8s.io",
		"VolumeAttachment.storage.k8s.io", "VolumeAttributesClass.storage.k8s.io",
		"StorageVersionMigration.storagemigration.k8s.io",
	} {
		clusterScopedBuiltins[schema.ParseGroupKind(gk)] = true
	}
	for _, gk := range []string{
		"Pod", "PodTemplate", "ReplicationController",
		"Deployment.apps", "DaemonSet.apps", "ReplicaSet.apps", "StatefulSet.apps",
		"CronJob.batch", "Job.batch",
		"MutatingWebhookConfiguration.admissionregistration.k8s.io",
		"ValidatingWebhookConfiguration.admissionregistration.k8s.io",
		"ValidatingAdmissionPolicy.admissionregistration.k8s.io",
		"ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io",
		"MutatingAdmissionPolicy.admissionregistration.k8s.io",
		"MutatingAdmissionPolicyBinding.admissionregistration.k8s.io",
		"EndpointSlice.discovery.k8s.io",
		"FlowSchema.flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io",
		"Ingress.networking.k8s.io", "IngressClass.networking.k8s.io", "NetworkPolicy.networking.k8s.io",
		"PodDisruptionBudget.policy",
		"DeviceClass.resource.k8s.io", "DeviceTaintRule.resource.k8s.io", "ResourceSlice.resource.k8s.io",
		"PriorityClass.scheduling.k8s.io",
	} {
		generationBuiltins[schema.ParseGroupKind(gk)] = true
	}
}

// namespaced tells whether a template of this kind lives in a namespace.
func namespaced(gvk schema.GroupVersionKind, hasNamespace bool) bool {
	if builtinGroups[gvk.Group] {
		return !clusterScopedBuiltins[gvk.GroupKind()]
	}
	return hasNamespace
}

// tracksGeneration tells whether the API server sets generation 1 on create.
func tracksGeneration(gvk schema.GroupVersionKind) bool {
	if builtinGroups[gvk.Group] {
		return generationBuiltins[gvk.GroupKind()]
	}
	return true
}

// Identifiers the API server and Karmada's webhooks would mint at random are
// derived from the object instead, so that a case has exactly one answer:
//
//	UUIDv5(NameSpaceURL, "garrison.dev/conformance/karmada/" + parts joined by "/")
//
// A permanent-id label (policies, bindings, Works) uses
// parts = "permanent-id", kind, namespace, name (namespace "" when
// cluster-scoped). The comparison strips these labels, so only their
// stability matters.
func stableID(parts ...string) string {
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("garrison.dev/conformance/karmada/"+strings.Join(parts, "/"))).String()
}

func permanentID(kind, namespace, name string) string {
	return stableID("permanent-id", kind, namespace, name)
}

// templateUID gives a template the uid the API server would have minted.
// The uid is more than a label: Karmada breaks Webster ties (replica
// division, Job completions) in a direction picked by it
// (pkg/util/helper/binding.go, tieBreakerByUID): an empty uid or one whose
// FNV-1a-32 hash is even prefers the smaller cluster name, an odd hash the
// larger. garrison has no uid and always prefers the smaller name (SPEC §2),
// so the oracle takes the first candidate
//
//	stableID("uid", apiVersion, kind, namespace, name, "<n>")  for n = 0, 1, ...
//
// whose hash is even: a uid as random-looking as a real one, with the tie
// direction of an empty uid.
func templateUID(apiVersion, kind, namespace, name string) string {
	for n := 0; ; n++ {
		uid := stableID("uid", apiVersion, kind, namespace, name, strconv.Itoa(n))
		h := fnv.New32a()
		h.Write([]byte(uid))
		if h.Sum32()&1 == 0 {
			return uid
		}
	}
}

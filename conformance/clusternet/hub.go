package main

import (
	"encoding/json"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"garrison.dev/conformance/kubernetes-apiserver/apiserver"
)

// Labels and annotations of Clusternet's own (pkg/known).
const (
	createdByLabel           = "clusternet.io/created-by"
	hubName                  = "clusternet-hub"
	skipValidatingAnnotation = "apps.clusternet.io/skip-validating"
	lastAppliedAnnotation    = "kubectl.kubernetes.io/last-applied-configuration"
)

// The uids the hub's dry run and a member cluster give a created object;
// any two different ones.
const (
	hubDryRunUID = "0d8c8a6e-7b1e-4f3a-9a55-hub000000000"
	memberUID    = "5f2b9c1d-3e4a-4b6c-8d7e-member000000"
)

// manifest is a feed object as the hub stores it: what the shadow API's
// create leaves of a template (pkg/hub/registry/shadow/template/rest.go,
// Create and dryRunCreate), with the labels a feed is looked up by.
type manifest struct {
	index     int // in the case's templates
	group     string
	version   string
	kind      string
	namespace string
	name      string
	raw       []byte // the Manifest's template, JSON
}

// storeManifest does what the shadow API's Create does with a template:
// it labels it as created by the hub and, unless the template asks to skip
// validation, dry-runs it against the hub's API server and trims the
// answer. The dry-run is the API server stage of ../kubernetes-apiserver
// (package apiserver, Store: Kubernetes' own decoding, defaulters and
// conversions), with the API server's refusal of a create that carries a
// resourceVersion; a kind that stage does not know (a custom resource, or
// a workload of a group version the hub no longer serves) is kept as
// written, except that spec.replicas is defaulted to 1 for the kinds the
// FeedInventory divides, as every version of those kinds defaults it.
func storeManifest(index int, u *unstructured.Unstructured) (*manifest, error) {
	gv, err := schema.ParseGroupVersion(u.GetAPIVersion())
	if err != nil {
		return nil, err
	}
	if u.GetKind() == "" || u.GetName() == "" {
		return nil, fmt.Errorf("a template needs apiVersion, kind and metadata.name")
	}
	labels := u.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[createdByLabel] = hubName
	u.SetLabels(labels)

	if u.GetAnnotations()[skipValidatingAnnotation] != "true" {
		if u.GetResourceVersion() != "" {
			return nil, fmt.Errorf("resourceVersion should not be set on objects to be created")
		}
		stored, _, err := apiserver.Store(u.Object)
		if err != nil {
			return nil, err
		}
		// The dry run is a create: a Job gets the selector and pod labels
		// Kubernetes' Job strategy generates for the dry run's uid, or is
		// refused (a template carrying a controller uid of its own).
		if gv == (schema.GroupVersion{Group: "batch", Version: "v1"}) && u.GetKind() == "Job" {
			if stored, err = apiserver.CreateJob(stored, hubDryRunUID); err != nil {
				return nil, err
			}
		}
		raw, err := json.Marshal(stored)
		if err != nil {
			return nil, err
		}
		if err := u.UnmarshalJSON(raw); err != nil {
			return nil, err
		}
		if _, divides := parsers[gv.WithKind(u.GetKind())]; divides {
			if r, found, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "replicas"); !found || r == nil {
				if err := unstructured.SetNestedField(u.Object, int64(1), "spec", "replicas"); err != nil {
					return nil, fmt.Errorf("defaulting spec.replicas: %w", err)
				}
			}
		}
		trim(u, gv.WithKind(u.GetKind()).GroupKind())
	}
	raw, err := u.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return &manifest{
		index: index, group: gv.Group, version: gv.Version, kind: u.GetKind(),
		namespace: u.GetNamespace(), name: u.GetName(), raw: raw,
	}, nil
}

// trim removes what the shadow API trims from a dry-run's answer
// (pkg/hub/registry/shadow/template/trimmer.go, REST.trimResult): common
// metadata, a Job's controller-uid, a Service's allocated addresses and
// node ports, the status.
func trim(u *unstructured.Unstructured, gk schema.GroupKind) {
	for _, f := range []string{"creationTimestamp", "managedFields", "resourceVersion", "selfLink"} {
		unstructured.RemoveNestedField(u.Object, "metadata", f)
	}
	switch gk {
	case schema.GroupKind{Group: "batch", Kind: "Job"}:
		unstructured.RemoveNestedField(u.Object, "spec", "selector", "matchLabels", "controller-uid")
		unstructured.RemoveNestedField(u.Object, "spec", "template", "metadata", "creationTimestamp")
		unstructured.RemoveNestedField(u.Object, "spec", "template", "metadata", "labels", "controller-uid")
	case schema.GroupKind{Kind: "Service"}:
		trimService(u)
	}
	unstructured.RemoveNestedField(u.Object, "status")
}

func trimService(u *unstructured.Unstructured) {
	serviceType, found, err := unstructured.NestedString(u.Object, "spec", "type")
	if err != nil {
		return
	}
	if !found {
		// The dry-run has defaulted it.
		serviceType = "ClusterIP"
	}
	if ip, found, _ := unstructured.NestedString(u.Object, "spec", "clusterIP"); found && ip != "None" {
		unstructured.RemoveNestedField(u.Object, "spec", "clusterIP")
		unstructured.RemoveNestedField(u.Object, "spec", "clusterIPs")
	}
	if serviceType != "NodePort" && serviceType != "LoadBalancer" {
		return
	}
	if _, found, _ := unstructured.NestedInt64(u.Object, "spec", "healthCheckNodePort"); found {
		unstructured.RemoveNestedField(u.Object, "spec", "healthCheckNodePort")
	}
	ports, found, err := unstructured.NestedSlice(u.Object, "spec", "ports")
	if !found || err != nil {
		return
	}
	for _, p := range ports {
		port, ok := p.(map[string]interface{})
		if !ok {
			return
		}
		delete(port, "nodePort")
	}
	_ = unstructured.SetNestedSlice(u.Object, ports, "spec", "ports")
}

// manifestsFor lists the Manifests a feed selects, as
// utils.ListManifestsBySelector does with the labels
// utils.GetLabelsSelectorFromFeed makes: group, version, kind and name,
// and the namespace only when the feed names one. The lister's order is
// a map's; the oracle's is namespace ascending.
func (c *caseState) manifestsFor(f feed) ([]*manifest, error) {
	var gv schema.GroupVersion
	if f.APIVersion != "" {
		var err error
		if gv, err = schema.ParseGroupVersion(f.APIVersion); err != nil {
			return nil, err
		}
	}
	var out []*manifest
	for _, m := range c.manifests {
		if m.group == gv.Group && m.version == gv.Version && m.kind == f.Kind && m.name == f.Name &&
			(f.Namespace == "" || m.namespace == f.Namespace) {
			out = append(out, m)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].namespace < out[j].namespace })
	return out, nil
}

// formatFeed is utils.FormatFeed.
func formatFeed(f feed) string {
	return fmt.Sprintf("%s %s", f.Kind, objectKey(f.Namespace, f.Name))
}

// feedKey is utils.GetFeedKey, the key of status.replicas.
func feedKey(f feed) string {
	if f.Namespace != "" {
		return fmt.Sprintf("%s/%s/%s/%s", f.APIVersion, f.Kind, f.Namespace, f.Name)
	}
	return fmt.Sprintf("%s/%s/%s", f.APIVersion, f.Kind, f.Name)
}

// notFound words a missing object as apierrors.NewNotFound does.
func notFound(resource, name string) error {
	if resource == "" {
		return fmt.Errorf("%q not found", name)
	}
	return fmt.Errorf("%s %q not found", resource, name)
}

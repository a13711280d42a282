// Package apiserver does to an object what a kube-apiserver does between a
// create request and what a reader of the stored object gets back, for the
// built-in kinds: decode the JSON into the served version's Go type, apply
// Kubernetes' defaulters (the ones kube-apiserver registers, from
// k8s.io/kubernetes/pkg/apis/*), convert to the internal version and back
// (the conversion functions carry a few rules of their own, such as a pod's
// `serviceAccount` following `serviceAccountName`), and encode it again as
// the Go type encodes (empty structs written as `{}`, empty optional fields
// left out).
//
// Not done, because it depends on a live server: allocations (a Service's
// cluster IPs and node ports, IP families), uids, resource versions,
// timestamps, admission plugins. A kind the scheme does not know (a custom
// resource) is returned unchanged, with known == false.
package apiserver

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	// Every group kube-apiserver serves, with its defaulters and conversions.
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install"
	_ "k8s.io/kubernetes/pkg/apis/apiserverinternal/install"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/certificates/install"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	_ "k8s.io/kubernetes/pkg/apis/events/install"
	_ "k8s.io/kubernetes/pkg/apis/flowcontrol/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	_ "k8s.io/kubernetes/pkg/apis/node/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
	_ "k8s.io/kubernetes/pkg/apis/storagemigration/install"
)

var scheme = legacyscheme.Scheme

// Known reports whether kube-apiserver's scheme has the kind.
func Known(gvk schema.GroupVersionKind) bool {
	return scheme.Recognizes(gvk)
}

// Store returns obj as a reader gets it back after creating it: decoded,
// defaulted, converted to the internal version and back, defaulted again
// (reading the stored version back applies the defaulters once more), and
// encoded. known is false, and obj returned as it is, for a kind the scheme
// does not have.
func Store(obj map[string]any) (stored map[string]any, known bool, err error) {
	return pass(obj, true)
}

// RoundTrip decodes obj into its Go type and encodes it again, without
// defaulting or conversion: what the typed encoding alone adds and drops.
func RoundTrip(obj map[string]any) (map[string]any, bool, error) {
	return pass(obj, false)
}

func pass(obj map[string]any, store bool) (map[string]any, bool, error) {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return obj, false, nil
	}
	gvk := gv.WithKind(kind)
	if !scheme.Recognizes(gvk) {
		return obj, false, nil
	}
	typed, err := scheme.New(gvk)
	if err != nil {
		return nil, true, err
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, true, err
	}
	if err := json.Unmarshal(raw, typed); err != nil {
		return nil, true, fmt.Errorf("decoding %s: %w", gvk, err)
	}
	if store {
		scheme.Default(typed)
		internal, err := scheme.ConvertToVersion(typed, schema.GroupVersion{Group: gv.Group, Version: runtime.APIVersionInternal})
		if err != nil {
			return nil, true, fmt.Errorf("converting %s to the internal version: %w", gvk, err)
		}
		back, err := scheme.ConvertToVersion(internal, gv)
		if err != nil {
			return nil, true, fmt.Errorf("converting %s back: %w", gvk, err)
		}
		scheme.Default(back)
		typed = back
	}
	typed.GetObjectKind().SetGroupVersionKind(gvk)
	out, err := json.Marshal(typed)
	if err != nil {
		return nil, true, err
	}
	var result map[string]any
	if err := json.Unmarshal(out, &result); err != nil {
		return nil, true, err
	}
	return result, true, nil
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	workv1alpha1 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha1"
)

// controlPlaneExport is the case's API server after every controller ran,
// as a user exports a control plane with kubectl: `export` is what
// `kubectl get <every kind> -A -o json` prints (Clusters, policies,
// customizations, bindings, templates, each as stored: the policies after
// the webhooks' defaulting, the templates after the API server stage and
// with the claim Karmada's detector wrote on them), `works` what
// `kubectl get works -A -o json` prints. `garrison import` reads the
// first, `garrison verify --works` the second.
type controlPlaneExport struct {
	Export json.RawMessage `json:"export"`
	Works  json.RawMessage `json:"works"`
}

// exportControlPlane lists every object of st's API server: Karmada's
// kinds in the order karmadaKinds gives them, then the template kinds by
// group, version and kind, each kind's objects by namespace and name (the
// order kubectl prints a kind in), as two `v1` Lists.
func exportControlPlane(ctx context.Context, st *caseState) (*controlPlaneExport, error) {
	kinds := make([]schema.GroupVersionKind, 0, len(karmadaKinds)+len(st.kinds))
	for _, k := range karmadaKinds {
		kinds = append(kinds, k.gvk)
	}
	var templateKinds []schema.GroupVersionKind
	for gvk := range st.kinds {
		templateKinds = append(templateKinds, gvk)
	}
	sort.Slice(templateKinds, func(i, j int) bool { return templateKinds[i].String() < templateKinds[j].String() })
	kinds = append(kinds, templateKinds...)

	workKind := workv1alpha1.SchemeGroupVersion.WithKind("Work")
	var objects, works []any
	for _, gvk := range kinds {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := st.srv.client.List(ctx, list); err != nil {
			return nil, fmt.Errorf("listing %s: %w", gvk, err)
		}
		sort.Slice(list.Items, func(i, j int) bool {
			a, b := list.Items[i], list.Items[j]
			if a.GetNamespace() != b.GetNamespace() {
				return a.GetNamespace() < b.GetNamespace()
			}
			return a.GetName() < b.GetName()
		})
		for _, item := range list.Items {
			// A list's items may come back without their kind, which
			// kubectl prints on every item.
			item.SetGroupVersionKind(gvk)
			if gvk == workKind {
				works = append(works, item.Object)
			} else {
				objects = append(objects, item.Object)
			}
		}
	}
	export, err := kubectlList(objects)
	if err != nil {
		return nil, err
	}
	workList, err := kubectlList(works)
	if err != nil {
		return nil, err
	}
	return &controlPlaneExport{Export: export, Works: workList}, nil
}

// kubectlList is the List kubectl prints for several objects.
func kubectlList(items []any) (json.RawMessage, error) {
	if items == nil {
		items = []any{}
	}
	return json.Marshal(map[string]any{
		"apiVersion": "v1",
		"kind":       "List",
		"metadata":   map[string]any{"resourceVersion": ""},
		"items":      items,
	})
}

package main

import (
	"context"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"
)

// The smoke case exported as kubectl would: every object of the control
// plane in one List, the Works in another, each item with its kind, the
// templates carrying the claim the detector wrote, the Works the manifests
// the binding controller wrote.
func TestExportIsTheControlPlaneAsKubectlPrintsIt(t *testing.T) {
	o, err := newOracle(true)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/smoke.json")
	if err != nil {
		t.Fatal(err)
	}
	var in map[string]any
	if err := json.Unmarshal(raw, &in); err != nil {
		t.Fatal(err)
	}
	in["export"] = true
	raw, _ = json.Marshal(in)
	a := o.run(context.Background(), raw)
	if a.Error != "" {
		t.Fatal(a.Error)
	}
	if a.ControlPlane == nil {
		t.Fatal("no export in the answer")
	}
	type object struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Namespace   string            `json:"namespace"`
			Name        string            `json:"name"`
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
		Spec struct {
			Workload struct {
				Manifests []json.RawMessage `json:"manifests"`
			} `json:"workload"`
		} `json:"spec"`
	}
	read := func(list json.RawMessage) []object {
		var l struct {
			Kind  string   `json:"kind"`
			Items []object `json:"items"`
		}
		if err := json.Unmarshal(list, &l); err != nil {
			t.Fatal(err)
		}
		if l.Kind != "List" {
			t.Fatalf("kind %q, not List", l.Kind)
		}
		return l.Items
	}
	var kinds []string
	var claimed bool
	for _, item := range read(a.ControlPlane.Export) {
		if item.APIVersion == "" || item.Kind == "" {
			t.Errorf("an item without its kind: %+v", item)
		}
		kinds = append(kinds, item.Kind)
		if item.Kind == "Deployment" && item.Metadata.Annotations["propagationpolicy.karmada.io/name"] == "p0" {
			claimed = true
		}
	}
	got := strings.Join(dedupe(kinds), ",")
	if want := "Cluster,PropagationPolicy,ClusterPropagationPolicy,OverridePolicy,ResourceBinding,ConfigMap,Deployment"; !containsAll(got, want) {
		t.Errorf("kinds %s, want at least %s", got, want)
	}
	if !claimed {
		t.Error("the Deployment does not carry the claim of PropagationPolicy p0")
	}
	works := read(a.ControlPlane.Works)
	var where []string
	for _, w := range works {
		if w.Kind != "Work" || !strings.HasPrefix(w.Metadata.Namespace, "karmada-es-") || len(w.Spec.Workload.Manifests) != 1 {
			t.Errorf("not a Work of an execution namespace with one manifest: %+v", w)
		}
		where = append(where, w.Metadata.Namespace)
	}
	sort.Strings(where)
	if got := strings.Join(where, ","); got != "karmada-es-m0,karmada-es-m0,karmada-es-m1,karmada-es-m1" {
		t.Errorf("Works in %s", got)
	}
}

func dedupe(items []string) []string {
	var out []string
	for _, item := range items {
		if len(out) == 0 || out[len(out)-1] != item {
			out = append(out, item)
		}
	}
	return out
}

func containsAll(list, want string) bool {
	have := map[string]bool{}
	for _, k := range strings.Split(list, ",") {
		have[k] = true
	}
	for _, k := range strings.Split(want, ",") {
		if !have[k] {
			return false
		}
	}
	return true
}

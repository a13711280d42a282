package apiserver

import (
	"encoding/json"
	"testing"
)

func decode(t *testing.T, text string) map[string]any {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal([]byte(text), &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

func at(obj map[string]any, path ...string) any {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

// A Deployment written without replicas is stored with 1, and a pod that
// names its service account gets the deprecated alias from conversion.
func TestStoreDefaultsAndConverts(t *testing.T) {
	stored, known, err := Store(decode(t, `{"apiVersion":"apps/v1","kind":"Deployment",
		"metadata":{"name":"x","namespace":"d"},
		"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},
		"spec":{"serviceAccountName":"sa","containers":[{"name":"c","image":"nginx:1.2"}]}}}}`))
	if err != nil || !known {
		t.Fatalf("known %v, err %v", known, err)
	}
	if got := at(stored, "spec", "replicas"); got != float64(1) {
		t.Errorf("replicas %v", got)
	}
	if got := at(stored, "spec", "template", "spec", "serviceAccount"); got != "sa" {
		t.Errorf("serviceAccount %v", got)
	}
	containers, _ := at(stored, "spec", "template", "spec", "containers").([]any)
	if len(containers) != 1 || at(containers[0].(map[string]any), "imagePullPolicy") != "IfNotPresent" {
		t.Errorf("containers %v", containers)
	}
}

// The API server labels every Namespace with its name.
func TestStoreLabelsNamespaces(t *testing.T) {
	stored, _, err := Store(decode(t, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := at(stored, "metadata", "labels", "kubernetes.io/metadata.name"); got != "n" {
		t.Errorf("label %v", got)
	}
}

// A kind the scheme does not know comes back as it went in.
func TestStoreLeavesCustomKinds(t *testing.T) {
	obj := decode(t, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}`)
	stored, known, err := Store(obj)
	if err != nil || known || at(stored, "metadata", "name") != "w" {
		t.Fatalf("known %v, err %v, %v", known, err, stored)
	}
}

// The typed round trip alone adds empty structs and drops empty optional
// fields, without defaulting.
func TestRoundTripDoesNotDefault(t *testing.T) {
	out, _, err := RoundTrip(decode(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"x"},
		"spec":{"template":{"spec":{"hostNetwork":false,"containers":[{"name":"c","image":"i","env":[]}]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if at(out, "spec", "replicas") != nil {
		t.Errorf("replicas defaulted: %v", out)
	}
	if _, ok := at(out, "spec", "template", "spec").(map[string]any)["hostNetwork"]; ok {
		t.Errorf("hostNetwork: false kept: %v", out)
	}
	containers, _ := at(out, "spec", "template", "spec", "containers").([]any)
	c := containers[0].(map[string]any)
	if _, ok := c["env"]; ok {
		t.Errorf("env: [] kept")
	}
	if _, ok := c["resources"].(map[string]any); !ok {
		t.Errorf("resources: {} not added")
	}
}

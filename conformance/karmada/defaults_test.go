package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// crdFiles are the CRDs, in the karmada module, of the kinds crdDefaults
// covers.
var crdFiles = map[string]string{
	"PropagationPolicy":                "policy/policy.karmada.io_propagationpolicies.yaml",
	"ClusterPropagationPolicy":         "policy/policy.karmada.io_clusterpropagationpolicies.yaml",
	"OverridePolicy":                   "policy/policy.karmada.io_overridepolicies.yaml",
	"ClusterOverridePolicy":            "policy/policy.karmada.io_clusteroverridepolicies.yaml",
	"ResourceInterpreterCustomization": "config/config.karmada.io_resourceinterpretercustomizations.yaml",
	"ResourceBinding":                  "work/work.karmada.io_resourcebindings.yaml",
	"ClusterResourceBinding":           "work/work.karmada.io_clusterresourcebindings.yaml",
	"Work":                             "work/work.karmada.io_works.yaml",
}

// TestCRDDefaultsMatchModule reads every `default:` of the storage version
// of each CRD in the pinned karmada module and checks that crdDefaults has
// exactly those, so that a new or changed default fails here instead of
// being missed.
func TestCRDDefaultsMatchModule(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/karmada-io/karmada").Output()
	if err != nil {
		t.Fatalf("locating the karmada module: %v", err)
	}
	bases := filepath.Join(strings.TrimSpace(string(out)), "charts", "karmada", "_crds", "bases")
	for kind, file := range crdFiles {
		data, err := os.ReadFile(filepath.Join(bases, file))
		if err != nil {
			t.Fatal(err)
		}
		var crd struct {
			Spec struct {
				Versions []struct {
					Storage bool `json:"storage"`
					Schema  struct {
						OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
					} `json:"schema"`
				} `json:"versions"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(data, &crd); err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, v := range crd.Spec.Versions {
			if v.Storage {
				collectDefaults(v.Schema.OpenAPIV3Schema, "", &want)
			}
		}
		var got []string
		for _, d := range crdDefaults[kind] {
			got = append(got, fmt.Sprintf("%s=%v", d.path, d.value))
		}
		sort.Strings(want)
		sort.Strings(got)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: crdDefaults has %v, the CRD %v", kind, got, want)
		}
	}
}

// collectDefaults walks a structural schema; a default under a list or a
// map is written with [] or {} in its path, which applyCRDDefaults does not
// handle, so such a default fails the comparison.
func collectDefaults(schema map[string]any, path string, out *[]string) {
	if d, ok := schema["default"]; ok {
		if f, isFloat := d.(float64); isFloat && f == float64(int64(f)) {
			d = int64(f)
		}
		*out = append(*out, fmt.Sprintf("%s=%v", path, d))
	}
	if props, ok := schema["properties"].(map[string]any); ok {
		for name, sub := range props {
			if s, ok := sub.(map[string]any); ok {
				collectDefaults(s, strings.TrimPrefix(path+"."+name, "."), out)
			}
		}
	}
	if items, ok := schema["items"].(map[string]any); ok {
		collectDefaults(items, path+"[]", out)
	}
	if extra, ok := schema["additionalProperties"].(map[string]any); ok {
		collectDefaults(extra, path+"{}", out)
	}
}

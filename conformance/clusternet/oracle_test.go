package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "TestCases: rewrite the *.expected.json files with the oracle's answers")

// Clusternet's own vectors for the static division
// (pkg/scheduler/framework/plugins/defaultassigner/algorithm_test.go,
// TestStaticDivideReplicas).
func TestStaticDivideReplicas(t *testing.T) {
	for _, tc := range []struct {
		desired int32
		weights []int64
		want    []int32
	}{
		{5, []int64{2, 1, 0, 2}, []int32{2, 1, 0, 2}},
		{10, []int64{2, 1, 2}, []int32{4, 2, 4}},
		{6, []int64{2, 1, 0, 2}, []int32{3, 1, 0, 2}},
		{5, []int64{5, 1, 0, 2}, []int32{4, 0, 0, 1}},
	} {
		var sum int64
		for _, w := range tc.weights {
			sum += w
		}
		if got := divideByWeight(tc.desired, tc.weights, sum); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%d over %v: got %v, want %v", tc.desired, tc.weights, got, tc.want)
		}
	}
}

// Past 12 clusters, sort.Slice is no insertion sort: the remainder goes to
// the heaviest clusters, but not to the first of them. This is Clusternet's
// order (sortByWeight), which the oracle keeps.
func TestRemainderPastTwelveClustersIsPinnedStable(t *testing.T) {
	// Past 12 clusters sort.Slice's order of equal weights is arbitrary
	// (it is pdqsort's, on a cluster order that is itself partly a map's):
	// the oracle pins it stable, so the first clusters of equal weight get
	// the remainder, as up to 12.
	weights := []int64{1, 3, 3, 2, 1, 2, 3, 2, 1, 3, 2, 1, 3, 2}
	got := divideByWeight(31, weights, 29)
	want := []int32{1, 4, 4, 2, 1, 2, 3, 2, 1, 3, 2, 1, 3, 2}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// caseOf builds a case from clusters (name: labels), a Subscription's
// subscribers and feeds, and templates.
func caseOf(clusters map[string]map[string]string, sub map[string]interface{}, templates ...map[string]interface{}) []byte {
	c := map[string]interface{}{"subscriptions": []interface{}{sub}, "templates": templates}
	var list []interface{}
	for name, labels := range clusters {
		list = append(list, map[string]interface{}{"apiVersion": "clusters.clusternet.io/v1beta1", "kind": "ManagedCluster",
			"metadata": map[string]interface{}{"name": name, "namespace": "cluster-ns-" + name, "labels": labels}})
	}
	c["clusters"] = list
	raw, _ := json.Marshal(c)
	return raw
}

func dividing(subscribers ...map[string]interface{}) map[string]interface{} {
	return map[string]interface{}{"apiVersion": "apps.clusternet.io/v1alpha1", "kind": "Subscription",
		"metadata": map[string]interface{}{"name": "sub", "namespace": "default"},
		"spec": map[string]interface{}{"schedulingStrategy": "Dividing", "dividingScheduling": map[string]interface{}{"type": "Static"},
			"subscribers": subscribers,
			"feeds":       []interface{}{map[string]interface{}{"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "default", "name": "example-1"}}}}
}

func subscriberOf(key, value string, weight int) map[string]interface{} {
	return map[string]interface{}{"clusterAffinity": map[string]interface{}{"matchLabels": map[string]string{key: value}}, "weight": weight}
}

var deployment = map[string]interface{}{"apiVersion": "apps/v1", "kind": "Deployment",
	"metadata": map[string]interface{}{"name": "example-1", "namespace": "default"}, "spec": map[string]interface{}{"replicas": 12}}

// Clusternet's TestDivideReplicas, end to end: 12 replicas; member1 {a=1},
// member2 {b=2}, member3 {a=1, b=1}. Clusternet's test hands the assigner
// its binding clusters; here the fleet holds just those clusters, and the
// scheduler finds them.
func TestDivideReplicas(t *testing.T) {
	member1 := map[string]string{"a": "1"}
	member2 := map[string]string{"b": "2"}
	member3 := map[string]string{"a": "1", "b": "1"}
	for _, tc := range []struct {
		name     string
		clusters map[string]map[string]string
		sub      map[string]interface{}
		want     []int32
		bound    []string
	}{
		{"1 cluster", map[string]map[string]string{"member1": member1},
			dividing(subscriberOf("a", "1", 1)), []int32{12}, []string{"cluster-ns-member1/member1"}},
		{"2 clusters", map[string]map[string]string{"member1": member1, "member2": member2},
			dividing(subscriberOf("a", "1", 1), subscriberOf("b", "2", 2)), []int32{4, 8},
			[]string{"cluster-ns-member1/member1", "cluster-ns-member2/member2"}},
		{"3 clusters", map[string]map[string]string{"member1": member1, "member2": member2, "member3": member3},
			dividing(subscriberOf("a", "1", 1), subscriberOf("b", "2", 2)), []int32{3, 6, 3},
			[]string{"cluster-ns-member1/member1", "cluster-ns-member2/member2", "cluster-ns-member3/member3"}},
		{"weight 0 and a summed weight", map[string]map[string]string{"member1": member1, "member2": member2, "member3": member3},
			dividing(subscriberOf("a", "1", 1), subscriberOf("b", "2", 0), subscriberOf("b", "1", 2)), []int32{3, 0, 9},
			[]string{"cluster-ns-member1/member1", "cluster-ns-member2/member2", "cluster-ns-member3/member3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := run(caseOf(tc.clusters, tc.sub, deployment))
			if a.Error != "" {
				t.Fatal(a.Error)
			}
			s := a.Subscriptions["default/sub"]
			if s.Error != "" {
				t.Fatal(s.Error)
			}
			if !reflect.DeepEqual(s.BindingClusters, tc.bound) {
				t.Errorf("bound %v, want %v", s.BindingClusters, tc.bound)
			}
			if got := s.Replicas["apps/v1/Deployment/default/example-1"]; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("replicas %v, want %v", got, tc.want)
			}
			// Each cluster receives the Deployment with its share, a zero
			// share included.
			for i, key := range s.BindingClusters {
				name := key[strings.IndexByte(key, '/')+1:]
				objects := a.Clusters[name].Objects
				if len(objects) != 1 {
					t.Fatalf("%s: %d objects", name, len(objects))
				}
				var d struct {
					Spec struct {
						Replicas *int32 `json:"replicas"`
					} `json:"spec"`
				}
				if err := json.Unmarshal(objects[0], &d); err != nil {
					t.Fatal(err)
				}
				if d.Spec.Replicas == nil || *d.Spec.Replicas != tc.want[i] {
					t.Errorf("%s receives replicas %v, want %d", name, d.Spec.Replicas, tc.want[i])
				}
			}
		})
	}
}

// The override paths, against what Clusternet's patch_test.go expects of
// the localizer (pkg/controllermanager/deployer/localizer/patch_test.go).
func TestApplyOverrides(t *testing.T) {
	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"example-configmap","namespace":"default"},` +
		`"data":{"server.conf":"{\n    \"db_address\": \"127.0.0.1:3306\",\n    \"region_id\": \"us-west-1\",\n    \"zone_id\": \"zone-1\"\n}"}}`
	got, err := applyOverrides([]byte(cm), []overrideConfig{
		{Name: "empty", Type: mergePatchType, Value: "   "},
		{Name: "db", Type: fieldJSONPatchType, FieldPath: "/data/server.conf", FieldFormat: jsonFormat,
			Value: `[{"op":"replace","path": "/db_address","value":"localhost:3306"}]`},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"apiVersion":"v1","data":{"server.conf":"{\n    \"db_address\": \"localhost:3306\",\n    \"region_id\": \"us-west-1\",\n    \"zone_id\": \"zone-1\"\n}"},"kind":"ConfigMap","metadata":{"name":"example-configmap","namespace":"default"}}`
	if !sameJSON(t, got, []byte(want)) {
		t.Errorf("FieldJSONPatch: %s", got)
	}

	yamlCM := `{"metadata":{"labels":{"another-label":"another-value"}},"mydata":"mysql:\n  address: 127.0.0.1:3306\n"}`
	for _, tc := range []struct {
		kind, format, patch, want string
	}{
		{fieldMergePatchType, yamlFormat, `{"mysql":{"timeout":5}}`, "mysql:\n  address: 127.0.0.1:3306\n  timeout: 5\n"},
		{fieldJSONPatchType, yamlFormat, `[{"path":"/mysql/timeout","op":"add","value": 5}]`, "mysql:\n  address: 127.0.0.1:3306\n  timeout: 5\n"},
	} {
		got, err := applyOverrides([]byte(yamlCM), []overrideConfig{{Type: tc.kind, FieldPath: "/mydata", FieldFormat: tc.format, Value: tc.patch}})
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			MyData string `json:"mydata"`
		}
		_ = json.Unmarshal(got, &out)
		if out.MyData != tc.want {
			t.Errorf("%s %s: %q", tc.kind, tc.format, out.MyData)
		}
	}

	// A JSON patch meeting a missing path is dropped whole; one failing
	// otherwise fails.
	doc := `{"metadata":{"name":"x"},"spec":{"replicas":2}}`
	got, err = applyOverrides([]byte(doc), []overrideConfig{{Type: jsonPatchType,
		Value: `[{"op":"replace","path":"/spec/replicas","value":5},{"op":"remove","path":"/spec/nothing"}]`}})
	if err != nil || !sameJSON(t, got, []byte(doc)) {
		t.Errorf("missing path: %s, %v", got, err)
	}
	if _, err = applyOverrides([]byte(doc), []overrideConfig{{Type: jsonPatchType, Value: `[{"op":"test","path":"/spec/replicas","value":3}]`}}); err == nil {
		t.Errorf("a failed test operation should fail")
	}
	if _, err = applyOverrides([]byte(doc), []overrideConfig{{Type: fieldMergePatchType, FieldPath: "/metadata/name", Value: `{}`}}); err == nil ||
		!strings.Contains(err.Error(), "unsupported FieldFormatType") {
		t.Errorf("a field patch without fieldFormat should fail: %v", err)
	}
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y interface{}
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

// The hand-written cases of testdata/cases: each answer is its
// *.expected.json (go test -run TestCases -args -update rewrites them).
func TestCases(t *testing.T) {
	// The case files are garrison's too, compared with --field-patches
	// (tests/it/conformance/clusternet/oracle.rs).
	withFieldPatches(t)
	files, err := filepath.Glob("testdata/cases/*.json")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".expected.json") {
			continue
		}
		n++
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(run(raw), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			expected := strings.TrimSuffix(f, ".json") + ".expected.json"
			if *update {
				if err := os.WriteFile(expected, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(expected)
			if err != nil {
				t.Fatal(err)
			}
			if !sameJSON(t, got, want) {
				t.Errorf("the answer differs from %s:\n%s", expected, got)
			}
		})
	}
	if n < 10 {
		t.Errorf("%d cases in testdata/cases", n)
	}
}

// A case's answer does not depend on the cases answered before it, a
// malformed one included.
func TestAnswersAreIndependent(t *testing.T) {
	raw := caseOf(map[string]map[string]string{"member1": {"a": "1"}}, dividing(subscriberOf("a", "1", 1)), deployment)
	a1, _ := json.Marshal(run(raw))
	bad := run([]byte(`{"clusters": 3}`))
	if bad.Error == "" {
		t.Errorf("a malformed case should answer an error")
	}
	a2, _ := json.Marshal(run(raw))
	if string(a1) != string(a2) {
		t.Errorf("%s\n%s", a1, a2)
	}
}

// withFieldPatches turns --field-patches on for the rest of the test.
func withFieldPatches(t *testing.T) {
	fieldPatches = true
	t.Cleanup(func() { fieldPatches = false })
}

// Clusternet v0.18.0's CRDs have no field patches: their enum refuses the
// types (manifests/crds/apps.clusternet.io_localizations.yaml), and the
// case with them.
func TestV0180RefusesFieldPatches(t *testing.T) {
	raw, err := os.ReadFile("testdata/cases/field-patches.json")
	if err != nil {
		t.Fatal(err)
	}
	got := run(raw)
	if !strings.Contains(got.Error, `Unsupported value: "FieldJSONPatch"`) && !strings.Contains(got.Error, `Unsupported value: "FieldMergePatch"`) {
		t.Errorf("v0.18.0 answers %q", got.Error)
	}
}

// Clusternet v0.18.0 coalesces a Helm override into a plain object as Helm
// coalesces values (localizer applyHelmValuesOverride): the override wins,
// maps merge, a null in the override deletes the key.
func TestHelmValuesOverrideOfAPlainObject(t *testing.T) {
	object := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"1"}},"data":{"k":"v","gone":"x"}}`)
	got, err := applyOverrides(object, []overrideConfig{{Name: "h", Type: helmType,
		Value: "metadata:\n  labels:\n    b: \"2\"\ndata:\n  k: w\n  gone: null\n"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"apiVersion":"v1","data":{"k":"w"},"kind":"ConfigMap","metadata":{"labels":{"a":"1","b":"2"},"name":"c"}}`
	if string(got) != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

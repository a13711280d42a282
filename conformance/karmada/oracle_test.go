package main

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
	"github.com/karmada-io/karmada/pkg/util/helper"
	"k8s.io/apimachinery/pkg/types"
)

// A template's uid must break Webster ties the way an empty uid does
// (smaller cluster name first), whatever the template: checked against
// Karmada's own dispenser on a tie.
func TestTemplateUIDTiesLikeAnEmptyUID(t *testing.T) {
	clusters := []workv1alpha2.TargetCluster{{Name: "a", Replicas: 1}, {Name: "b", Replicas: 1}}
	want := helper.SpreadReplicasByTargetClusters(1, clusters, nil, "")
	for i := 0; i < 200; i++ {
		uid := templateUID("apps/v1", "Deployment", "ns", fmt.Sprintf("app-%d", i))
		got := helper.SpreadReplicasByTargetClusters(1, clusters, nil, types.UID(uid))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("uid %s divides 1 replica as %v, an empty uid as %v", uid, got, want)
		}
	}
}

// One case end to end: a Divided Deployment, a ConfigMap claimed by a
// ClusterPropagationPolicy, a ConfigMap in a skipped namespace; twice, to
// check that a case leaves nothing behind for the next.
func TestSmokeCase(t *testing.T) {
	o, err := newOracle(false)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/smoke.json")
	if err != nil {
		t.Fatal(err)
	}
	var first *answer
	for round := 0; round < 2; round++ {
		a := o.run(context.Background(), raw)
		if a.Error != "" {
			t.Fatal(a.Error)
		}
		if len(a.Results) != 3 || len(a.Rejected) != 0 {
			t.Fatalf("got %d results, %d rejected", len(a.Results), len(a.Rejected))
		}
		deploy, cm, skipped := a.Results[0], a.Results[1], a.Results[2]
		if got := fmt.Sprint(deploy.Clusters); got != "[{m0 2} {m1 1}]" {
			t.Errorf("Deployment clusters %s", got)
		}
		if deploy.Policy == nil || deploy.Policy.Name != "p0" || len(deploy.Works) != 2 {
			t.Errorf("Deployment: policy %v, %d works", deploy.Policy, len(deploy.Works))
		}
		if cm.Policy == nil || cm.Policy.Kind != "ClusterPropagationPolicy" || len(cm.Works) != 2 {
			t.Errorf("ConfigMap: policy %v, %d works", cm.Policy, len(cm.Works))
		}
		if skipped.Skipped == nil {
			t.Errorf("kube-system ConfigMap was not skipped")
		}
		if first == nil {
			first = a
		} else if !reflect.DeepEqual(first, a) {
			t.Errorf("the same case answered twice differs")
		}
	}
}

// Each process orders the scheduler's filter plugins at random (the
// registry is a map): the answer, FitError message included, must not
// depend on it. Every newOracle builds its own framework.
func TestAnswerDoesNotDependOnPluginOrder(t *testing.T) {
	raw, err := os.ReadFile("testdata/fit-error.json")
	if err != nil {
		t.Fatal(err)
	}
	var first string
	for i := 0; i < 8; i++ {
		o, err := newOracle(false)
		if err != nil {
			t.Fatal(err)
		}
		a := o.run(context.Background(), raw)
		if a.Error != "" || len(a.Results) != 1 || a.Results[0].ScheduleError == nil {
			t.Fatalf("expected a schedule error, got %+v", a)
		}
		if msg := *a.Results[0].ScheduleError; first == "" {
			first = msg
		} else if msg != first {
			t.Fatalf("%q, then %q", first, msg)
		}
	}
}

// runCase answers a case file with a fresh oracle (empty workloads kept,
// as garrison's test runs it).
func runCase(t *testing.T, path string) *answer {
	t.Helper()
	o, err := newOracle(true)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a := o.run(context.Background(), raw)
	if a.Error != "" || len(a.Rejected) != 0 {
		t.Fatalf("error %q, rejected %v", a.Error, a.Rejected)
	}
	return a
}

// The API server stage: a Deployment written without replicas is stored
// with 1, which a Divided placement gives one cluster; the Work carries
// the defaults (strategy, imagePullPolicy ...).
func TestTemplatesAreStoredAsTheAPIServerStoresThem(t *testing.T) {
	a := runCase(t, "testdata/cases/apiserver-replicas-default-divided.json")
	deploy := a.Results[0]
	if got := fmt.Sprint(deploy.Clusters); got != "[{m0 1} {m1 0} {m2 0}]" {
		t.Errorf("clusters %s", got)
	}
	if len(deploy.Works) != 3 {
		t.Fatalf("%d works", len(deploy.Works))
	}
	manifest := string(deploy.Works[0].Manifest)
	for _, want := range []string{`"imagePullPolicy":"IfNotPresent"`, `"strategy":{"rollingUpdate"`, `"revisionHistoryLimit":10`} {
		if !strings.Contains(manifest, want) {
			t.Errorf("the manifest lacks %s: %s", want, manifest)
		}
	}
}

// Claims on templates, as propagateResource reads them: annotations alone
// are no claim; a claim whose policy no longer selects the template leaves
// it alone; a standing claim beats a better match; a claim whose policy is
// gone is cleaned up and the next claim, or the best match, taken.
func TestClaimsOnTemplates(t *testing.T) {
	a := runCase(t, "testdata/cases/claim-on-template.json")
	want := map[string]string{
		"annotated":           "PropagationPolicy high",
		"left-alone":          "skipped",
		"kept":                "ClusterPropagationPolicy everywhere",
		"policy-gone":         "ClusterPropagationPolicy everywhere",
		"cluster-policy-gone": "PropagationPolicy high",
		"selected-low":        "PropagationPolicy low",
	}
	for _, r := range a.Results {
		got := "none"
		switch {
		case r.Skipped != nil:
			got = "skipped"
		case r.Policy != nil:
			got = r.Policy.Kind + " " + r.Policy.Name
		}
		if got != want[r.Template.Name] {
			t.Errorf("%s: %s, want %s", r.Template.Name, got, want[r.Template.Name])
		}
		if r.Template.Name == "policy-gone" && len(r.Works) == 1 {
			if m := string(r.Works[0].Manifest); strings.Contains(m, `"propagationpolicy.karmada.io/name"`) {
				t.Errorf("the cleaned-up claim is still on the manifest: %s", m)
			}
		}
	}
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	workv1alpha1 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
)

// continuing is raw, edited, as a case that continues the one before it.
func continuing(t *testing.T, raw []byte, edit func(c map[string]any)) []byte {
	t.Helper()
	c := map[string]any{}
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	delete(c, "bindings")
	c["continues"] = true
	edit(c)
	out, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// workClusters lists the clusters a result has Works on.
func workClusters(r result) string {
	var names []string
	for _, w := range r.Works {
		names = append(names, w.Cluster)
	}
	return fmt.Sprint(names)
}

// What a control plane does with the state a first case left when the user
// applies a second one, one behaviour per case; the first schedule is
// [{m0 3} {m1 3}] in each.
func TestContinuedCases(t *testing.T) {
	o, err := newOracle(true)
	if err != nil {
		t.Fatal(err)
	}
	first := previousCase(t, 6, dynamicWeights, `[]`)
	cases := []struct {
		name     string
		edit     func(c map[string]any)
		policy   bool
		clusters string
		works    string
	}{
		{"nothing changed: the same schedule and Works", func(map[string]any) {}, true, "[{m0 3} {m1 3}]", "[m0 m1]"},
		{"the policy is deleted: the binding and its Works stay, unclaimed",
			func(c map[string]any) { c["policies"] = []any{} }, false, "[{m0 3} {m1 3}]", "[m0 m1]"},
		{"the placement narrows: the orphan Work on m0 goes", func(c map[string]any) {
			policy := c["policies"].([]any)[0].(map[string]any)
			policy["spec"].(map[string]any)["placement"] = map[string]any{
				"clusterAffinity":   map[string]any{"clusterNames": []any{"m1"}},
				"replicaScheduling": map[string]any{"replicaSchedulingType": "Divided"},
			}
		}, true, "[{m1 6}]", "[m1]"},
		{"a cluster leaves: rescheduled, its Work goes with its execution namespace", func(c map[string]any) {
			c["clusters"] = c["clusters"].([]any)[1:]
		}, true, "[{m1 6}]", "[m1]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if a := o.run(context.Background(), first); a.Error != "" {
				t.Fatalf("first case: %s", a.Error)
			}
			a := o.run(context.Background(), continuing(t, first, c.edit))
			if a.Error != "" || len(a.Results) != 1 {
				t.Fatalf("answer %+v", a)
			}
			r := a.Results[0]
			if (r.Policy != nil) != c.policy {
				t.Errorf("policy %+v, want one: %v", r.Policy, c.policy)
			}
			if got := fmt.Sprint(r.Clusters); got != c.clusters {
				t.Errorf("clusters %s, want %s (schedule error %v)", got, c.clusters, deref(r.ScheduleError))
			}
			if got := workClusters(r); got != c.works {
				t.Errorf("Works on %s, want %s (sync error %v)", got, c.works, deref(r.SyncError))
			}
		})
	}
	t.Run("the template leaves: its binding and Works go", func(t *testing.T) {
		if a := o.run(context.Background(), first); a.Error != "" {
			t.Fatalf("first case: %s", a.Error)
		}
		a := o.run(context.Background(), continuing(t, first, func(c map[string]any) { c["templates"] = []any{} }))
		if a.Error != "" || len(a.Results) != 0 {
			t.Fatalf("answer %+v", a)
		}
		var bindings workv1alpha2.ResourceBindingList
		var works workv1alpha1.WorkList
		for _, list := range []client.ObjectList{&bindings, &works} {
			if err := o.last.srv.client.List(context.Background(), list); err != nil {
				t.Fatal(err)
			}
		}
		live := 0
		for _, w := range works.Items {
			if w.DeletionTimestamp.IsZero() {
				live++
			}
		}
		if len(bindings.Items) != 0 || live != 0 {
			t.Errorf("%d bindings and %d Works stay", len(bindings.Items), live)
		}
	})
	t.Run("a continuing case needs the one before it", func(t *testing.T) {
		o.last = nil
		a := o.run(context.Background(), continuing(t, first, func(map[string]any) {}))
		if a.Error == "" {
			t.Errorf("answered %+v, want an error", a)
		}
	})
}

// Each case is a fresh control plane: a script that does not define its
// function finds none, even when an earlier case's script defined it (a
// pooled Lua state keeps the globals of the scripts it ran).
func TestCasesDoNotShareLuaGlobals(t *testing.T) {
	o, err := newOracle(true)
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) []byte {
		raw, err := os.ReadFile(filepath.Join("testdata", "cases", name))
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	for i, name := range []string{"customization-lua-dependencies.json", "customization-lua-function-missing.json"} {
		ans, err := o.answer(context.Background(), read(name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		skipped := ans.Results[0].Skipped
		if (i == 1) != (skipped != nil) {
			t.Errorf("%s: skipped %v", name, skipped)
		}
	}
}

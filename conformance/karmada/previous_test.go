package main

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// previousCase is a fleet of m0, m1, m2 (m2 tainted NoSchedule, which the
// placement does not tolerate), one Deployment in shop with `replicas`,
// one PropagationPolicy with `placement`, and `bindings`.
func previousCase(t *testing.T, replicas int, placement string, bindings string) []byte {
	t.Helper()
	var clusters []string
	for i := 0; i < 3; i++ {
		taints := ""
		if i == 2 {
			taints = `,"taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"}]`
		}
		clusters = append(clusters, fmt.Sprintf(`{"apiVersion":"cluster.karmada.io/v1alpha1","kind":"Cluster",
			"metadata":{"name":"m%d","labels":{"tier":"t%d"}},"spec":{"syncMode":"Push"%s},
			"status":{"apiEnablements":[{"groupVersion":"apps/v1","resources":[{"name":"deployments","kind":"Deployment"}]}],
			"resourceSummary":{"allocatable":{"cpu":"8","memory":"32Gi","pods":"110"},"allocated":{"cpu":"0","memory":"0","pods":"0"}}}}`, i, i, taints))
	}
	raw := fmt.Sprintf(`{"clusters":[%s,%s,%s],
		"policies":[{"apiVersion":"policy.karmada.io/v1alpha1","kind":"PropagationPolicy","metadata":{"name":"p0","namespace":"shop"},
			"spec":{"resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment"}],"placement":%s}}],
		"templates":[{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"api","namespace":"shop"},
			"spec":{"replicas":%d,"selector":{"matchLabels":{"app":"api"}},"template":{"metadata":{"labels":{"app":"api"}},
			"spec":{"containers":[{"name":"api","image":"api:1","resources":{"requests":{"cpu":"1"}}}]}}}}],
		"bindings":%s}`, clusters[0], clusters[1], clusters[2], placement, replicas, bindings)
	var check any
	if err := json.Unmarshal([]byte(raw), &check); err != nil {
		t.Fatalf("the test case is not JSON: %v", err)
	}
	return []byte(raw)
}

func previousAPI(clusters string, extra string) string {
	return `[{"template":{"apiVersion":"apps/v1","kind":"Deployment","namespace":"shop","name":"api"},"clusters":` + clusters + extra + `}]`
}

const dynamicWeights = `{"replicaScheduling":{"replicaSchedulingType":"Divided","replicaDivisionPreference":"Weighted",
	"weightPreference":{"dynamicWeight":"AvailableReplicas"}}}`

const onlyM1 = `{"clusterAffinity":{"clusterNames":["m1"]},"replicaScheduling":{"replicaSchedulingType":"Divided"}}`

// What the scheduler does with a binding that carries a previous schedule,
// one behaviour of pkg/scheduler per case. The replicas are what
// Karmada's own division gives; the point of each case is in its name.
func TestPreviousBindings(t *testing.T) {
	o, err := newOracle(true)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		replicas int
		// placement now, and the binding's (absent: the same)
		placement, bindings string
		want                string
		affinity            string
	}{
		{"first schedule", 6, dynamicWeights, `[]`, "[{m0 3} {m1 3}]", ""},
		{"nothing changed: a Divided workload keeps its clusters", 6, dynamicWeights,
			previousAPI(`[{"name":"m0","replicas":1},{"name":"m1","replicas":5}]`, ""), "[{m0 1} {m1 5}]", ""},
		{"scaled up: Steady, on top of the previous replicas", 8, dynamicWeights,
			previousAPI(`[{"name":"m0","replicas":1},{"name":"m1","replicas":5}]`, ""), "[{m0 2} {m1 6}]", ""},
		{"scaled down: in proportion to the previous replicas", 3, dynamicWeights,
			previousAPI(`[{"name":"m0","replicas":1},{"name":"m1","replicas":5}]`, ""), "[{m0 1} {m1 2}]", ""},
		{"a cluster that is gone: rescheduled, its replicas go to the others", 6, dynamicWeights,
			previousAPI(`[{"name":"m0","replicas":1},{"name":"m9","replicas":5}]`, ""), "[{m0 4} {m1 2}]", ""},
		{"a cluster already scheduled passes the taint filter", 7, dynamicWeights,
			previousAPI(`[{"name":"m0","replicas":3},{"name":"m2","replicas":3}]`, ""), "[{m0 4} {m2 3} {m1 0}]", ""},
		{"applied placement as now: kept", 6, onlyM1,
			previousAPI(`[{"name":"m0","replicas":6}]`, ""), "[{m0 6}]", ""},
		{"never patched (placement null): scheduled", 6, onlyM1,
			previousAPI(`[{"name":"m0","replicas":6}]`, `,"placement":null`), "[{m1 6}]", ""},
		{"an edit of another affinity group than the observed one changes nothing",
			6, `{"clusterAffinities":[{"affinityName":"a","clusterNames":["m0"]},{"affinityName":"b","clusterNames":["m1"]}],
				"replicaScheduling":{"replicaSchedulingType":"Divided"}}`,
			previousAPI(`[{"name":"m1","replicas":6}]`, `,"affinityName":"b","placement":{"clusterAffinities":[{"affinityName":"a","clusterNames":["m0","m1"]},
				{"affinityName":"b","clusterNames":["m1"]}],"replicaScheduling":{"replicaSchedulingType":"Divided"}}`),
			"[{m1 6}]", "b"},
		{"scaled: the observed affinity group is tried first",
			4, `{"clusterAffinities":[{"affinityName":"a","clusterNames":["m0"]},{"affinityName":"b","clusterNames":["m1"]}],
				"replicaScheduling":{"replicaSchedulingType":"Divided"}}`,
			previousAPI(`[{"name":"m1","replicas":6}]`, `,"affinityName":"b"`), "[{m1 4}]", "b"},
		{"no cluster fits any more: the FitError clears the clusters", 6,
			`{"clusterAffinity":{"clusterNames":["m2"]},"replicaScheduling":{"replicaSchedulingType":"Divided"}}`,
			previousAPI(`[{"name":"m0","replicas":6}]`, `,"placement":{"replicaScheduling":{"replicaSchedulingType":"Divided"}}`), "[]", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := o.run(context.Background(), previousCase(t, c.replicas, c.placement, c.bindings))
			if a.Error != "" || len(a.Results) != 1 {
				t.Fatalf("answer %+v", a)
			}
			r := a.Results[0]
			if got := fmt.Sprint(r.Clusters); got != c.want {
				t.Errorf("clusters %s, want %s (schedule error %v)", got, c.want, deref(r.ScheduleError))
			}
			if got := deref(r.AffinityName); got != c.affinity {
				t.Errorf("affinity name %q, want %q", got, c.affinity)
			}
			if len(r.Placement) == 0 {
				t.Errorf("no applied placement in the answer")
			}
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

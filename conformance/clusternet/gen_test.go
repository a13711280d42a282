package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"testing"
)

var (
	casesOut  = flag.String("cases-out", "", "TestGeneratedCases: also write the generated cases there, one per line (the --jsonl input)")
	caseCount = flag.Int("cases", 300, "TestGeneratedCases: how many cases")
	caseSeed  = flag.Int64("seed", 1, "TestGeneratedCases: the first case's seed")
)

// obj is a JSON object under construction.
type obj = map[string]interface{}

// generate makes a random case: a fleet with labels and taints,
// Subscriptions replicating or dividing, Deployments, StatefulSets,
// ConfigMaps and Services, and Localizations and Globalizations with every
// override type the oracle answers for, on paths that exist and paths that
// do not.
func generate(seed int64) obj {
	r := rand.New(rand.NewSource(seed))
	pick := func(xs ...string) string { return xs[r.Intn(len(xs))] }
	chance := func(p float64) bool { return r.Float64() < p }

	nClusters := 1 + r.Intn(6)
	if chance(0.1) {
		nClusters = 10 + r.Intn(8)
	}
	var clusters []interface{}
	var namespaces []string
	for i := 0; i < nClusters; i++ {
		ns := fmt.Sprintf("clusternet-%c%c%03d", 'a'+r.Intn(3), 'a'+r.Intn(26), i)
		namespaces = append(namespaces, ns)
		labels := obj{"clusters.clusternet.io/cluster-name": fmt.Sprintf("m%d", i)}
		for _, k := range []string{"env", "zone", "tier"} {
			if chance(0.6) {
				labels[k] = pick("a", "b", "c")
			}
		}
		var taints []interface{}
		if chance(0.3) {
			taints = append(taints, obj{"key": pick("gpu", "edge"), "value": pick("", "true"), "effect": pick("NoSchedule", "NoExecute", "PreferNoSchedule")})
		}
		if chance(0.1) {
			taints = append(taints, obj{"key": "maint", "effect": "PreferNoSchedule"})
		}
		spec := obj{"clusterId": fmt.Sprintf("id-%d", i), "syncMode": "Pull"}
		if taints != nil {
			spec["taints"] = taints
		}
		clusters = append(clusters, obj{"apiVersion": "clusters.clusternet.io/v1beta1", "kind": "ManagedCluster",
			"metadata": obj{"name": fmt.Sprintf("m%d", i), "namespace": ns, "labels": labels}, "spec": spec})
	}

	selector := func() obj {
		switch r.Intn(5) {
		case 0:
			return obj{}
		case 1:
			return obj{"matchExpressions": []interface{}{obj{"key": pick("env", "zone"), "operator": pick("In", "NotIn"), "values": []interface{}{pick("a", "b"), pick("b", "c")}}}}
		case 2:
			return obj{"matchExpressions": []interface{}{obj{"key": pick("env", "tier", "gpu"), "operator": pick("Exists", "DoesNotExist")}}}
		default:
			return obj{"matchLabels": obj{pick("env", "zone", "tier"): pick("a", "b", "c")}}
		}
	}

	appNs := []string{"shop", "blog"}
	var templates []interface{}
	type ref struct{ apiVersion, kind, ns, name string }
	var refs []ref
	for i := 0; i < 2+r.Intn(4); i++ {
		ns := appNs[r.Intn(len(appNs))]
		name := fmt.Sprintf("app%d", i)
		meta := obj{"name": name, "namespace": ns}
		if chance(0.5) {
			meta["labels"] = obj{"app": name}
		}
		if chance(0.05) {
			meta["annotations"] = obj{skipValidatingAnnotation: "true"}
		}
		var t obj
		switch r.Intn(4) {
		case 0, 1:
			kind := pick("Deployment", "Deployment", "StatefulSet", "ReplicaSet")
			spec := obj{"selector": obj{"matchLabels": obj{"app": name}},
				"template": obj{"metadata": obj{"labels": obj{"app": name}}, "spec": obj{"containers": []interface{}{obj{"name": "c", "image": "nginx:1"}}}}}
			if !chance(0.15) {
				spec["replicas"] = r.Intn(13)
			}
			t = obj{"apiVersion": "apps/v1", "kind": kind, "metadata": meta, "spec": spec}
		case 2:
			data := obj{"plain": "x"}
			if chance(0.5) {
				data["conf.json"] = `{"db":{"host":"a","port":5432},"b":[1,2]}`
			}
			if chance(0.5) {
				data["conf.yaml"] = "db:\n  host: a\n  port: 5432\nlist:\n- 1\n"
			}
			t = obj{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data}
		default:
			spec := obj{"ports": []interface{}{obj{"port": 80, "nodePort": 30080}}, "selector": obj{"app": name}}
			if chance(0.5) {
				spec["type"] = pick("ClusterIP", "NodePort")
			}
			if chance(0.3) {
				spec["clusterIP"] = pick("None", "10.0.0.7")
			}
			t = obj{"apiVersion": "v1", "kind": "Service", "metadata": meta, "spec": spec}
		}
		if chance(0.2) {
			t["status"] = obj{"observed": 1}
		}
		templates = append(templates, t)
		refs = append(refs, ref{t["apiVersion"].(string), t["kind"].(string), ns, name})
	}

	var subs []interface{}
	for i := 0; i < 1+r.Intn(3); i++ {
		var subscribers []interface{}
		for j := 0; j < 1+r.Intn(3); j++ {
			s := obj{"clusterAffinity": selector()}
			if chance(0.8) {
				s["weight"] = r.Intn(4)
			}
			subscribers = append(subscribers, s)
		}
		var feeds []interface{}
		for _, x := range r.Perm(len(refs))[:1+r.Intn(len(refs))] {
			f := refs[x]
			feeds = append(feeds, obj{"apiVersion": f.apiVersion, "kind": f.kind, "namespace": f.ns, "name": f.name})
		}
		if chance(0.05) {
			feeds = append(feeds, obj{"apiVersion": "v1", "kind": "ConfigMap", "namespace": "shop", "name": "missing"})
		}
		spec := obj{"subscribers": subscribers, "feeds": feeds}
		switch r.Intn(4) {
		case 0, 1:
			spec["schedulingStrategy"] = "Dividing"
			spec["dividingScheduling"] = obj{"type": "Static"}
		case 2:
			if chance(0.1) {
				spec["schedulingStrategy"] = "Dividing"
			}
		}
		if chance(0.3) {
			spec["clusterTolerations"] = []interface{}{obj{"key": pick("gpu", "edge", "maint"), "operator": "Exists", "effect": pick("", "NoSchedule", "PreferNoSchedule")}}
		}
		subs = append(subs, obj{"apiVersion": "apps.clusternet.io/v1alpha1", "kind": "Subscription",
			"metadata": obj{"name": fmt.Sprintf("sub%d", i), "namespace": appNs[r.Intn(len(appNs))]}, "spec": spec})
	}

	overrideConfigs := func(f ref) []interface{} {
		var out []interface{}
		for k := 0; k < 1+r.Intn(2); k++ {
			var o obj
			choice := r.Intn(7)
			if f.kind != "ConfigMap" && choice >= 2 && choice <= 4 && chance(0.8) {
				choice = 6
			}
			switch choice {
			case 0:
				o = obj{"type": "JSONPatch", "value": pick(
					`[{"op":"add","path":"/metadata/labels/extra","value":"x"}]`,
					`[{"op":"replace","path":"/spec/replicas","value":7}]`,
					`[{"op":"remove","path":"/metadata/annotations"}]`,
					`[{"op":"add","path":"/metadata/annotations","value":{"a":"b"}}]`,
					`- op: replace
  path: /data/plain
  value: y`,
					`[{"op":"test","path":"/kind","value":"Nope"}]`,
					`[{"op":"add","path":"/spec/template/spec/containers/5","value":{}}]`)}
			case 1:
				o = obj{"type": "MergePatch", "value": pick(
					`{"metadata":{"labels":{"merged":"yes"}}}`,
					`{"spec":{"replicas":null}}`,
					`{"data":{"plain":null,"added":"1"}}`,
					"metadata:\n  annotations:\n    note: hi\n")}
			case 2:
				o = obj{"type": "FieldJSONPatch", "fieldPath": "/data/conf.json", "fieldFormat": "JSON",
					"value": pick(`[{"op":"replace","path":"/db/host","value":"b"}]`, `[{"op":"remove","path":"/nope"}]`)}
			case 3:
				o = obj{"type": "FieldMergePatch", "fieldPath": "/data/conf.yaml", "fieldFormat": pick("YAML", "JSON", ""),
					"value": `{"db":{"port":6543}}`}
			case 4:
				o = obj{"type": "FieldJSONPatch", "fieldPath": "/data/conf.yaml", "fieldFormat": "YAML",
					"value": `[{"op":"add","path":"/db/user","value":"u"}]`}
			case 5:
				o = obj{"type": "JSONPatch", "value": "  "}
			default:
				o = obj{"type": "MergePatch", "value": fmt.Sprintf(`{"metadata":{"labels":{"order":"%d"}}}`, r.Intn(100))}
			}
			o["name"] = fmt.Sprintf("o%d", k)
			out = append(out, o)
		}
		return out
	}
	feedOf := func() (obj, ref) {
		f := refs[r.Intn(len(refs))]
		fo := obj{"apiVersion": f.apiVersion, "kind": f.kind, "name": f.name}
		if !chance(0.1) {
			fo["namespace"] = f.ns
		}
		return fo, f
	}
	priority := func(s obj) {
		if chance(0.8) {
			s["priority"] = []int{100, 500, 500, 900, 1000}[r.Intn(5)]
		}
	}
	var locs, globs []interface{}
	for i := 0; i < r.Intn(4); i++ {
		fo, f := feedOf()
		ns := namespaces[r.Intn(len(namespaces))]
		if chance(0.1) {
			ns = "no-cluster-here"
		}
		spec := obj{"feed": fo, "overrides": overrideConfigs(f)}
		priority(spec)
		locs = append(locs, obj{"apiVersion": "apps.clusternet.io/v1alpha1", "kind": "Localization",
			"metadata": obj{"name": fmt.Sprintf("loc%d", i), "namespace": ns}, "spec": spec})
	}
	for i := 0; i < r.Intn(3); i++ {
		fo, f := feedOf()
		spec := obj{"feed": fo, "overrides": overrideConfigs(f)}
		priority(spec)
		if chance(0.4) {
			spec["clusterAffinity"] = selector()
		}
		globs = append(globs, obj{"apiVersion": "apps.clusternet.io/v1alpha1", "kind": "Globalization",
			"metadata": obj{"name": fmt.Sprintf("glob%d", i)}, "spec": spec})
	}
	return obj{"name": fmt.Sprintf("seed-%d", seed), "clusters": clusters, "subscriptions": subs,
		"localizations": locs, "globalizations": globs, "templates": templates}
}

// Generated cases: the oracle answers each without failing, twice the same
// (maps and goroutines must not leak into an answer), and every divided
// feed's shares add up to its replicas.
func TestGeneratedCases(t *testing.T) {
	var out *os.File
	if *casesOut != "" {
		var err error
		if out, err = os.Create(*casesOut); err != nil {
			t.Fatal(err)
		}
		defer out.Close()
	}
	// The generator writes field patches, as garrison's does.
	withFieldPatches(t)
	for i := 0; i < *caseCount; i++ {
		raw, err := json.Marshal(generate(*caseSeed + int64(i)))
		if err != nil {
			t.Fatal(err)
		}
		if out != nil {
			if _, err := out.Write(append(raw, '\n')); err != nil {
				t.Fatal(err)
			}
		}
		a, b := run(raw), run(raw)
		if a.Error != "" {
			t.Fatalf("seed %d: %s", *caseSeed+int64(i), a.Error)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("seed %d: two answers differ", *caseSeed+int64(i))
		}
		for key, s := range a.Subscriptions {
			for feed, shares := range s.Replicas {
				if len(shares) != 0 && len(shares) != len(s.BindingClusters) {
					t.Errorf("seed %d: %s %s: %d shares for %d clusters", *caseSeed+int64(i), key, feed, len(shares), len(s.BindingClusters))
				}
			}
		}
	}
}

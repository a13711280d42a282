package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// caseState is one case as the hub holds it.
type caseState struct {
	clusters       []*managedCluster // namespace/name order
	subscriptions  []*subscription   // namespace/name order
	localizations  []*override
	globalizations []*override
	manifests      []*manifest
	// refused holds the templates the shadow API refused, with why.
	refused map[string]string
}

// run answers one case. A panic or an error in the case itself becomes
// answer.Error, so that one bad case does not stop a --jsonl run.
func run(raw []byte) (ans *answer) {
	defer func() {
		if p := recover(); p != nil {
			ans = failed("", fmt.Sprintf("panic: %v\n%s", p, debug.Stack()))
		}
	}()
	var in caseInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return failed("", fmt.Sprintf("case: %v", err))
	}
	st, err := load(&in)
	if err != nil {
		return failed(in.Name, err.Error())
	}
	return st.answer(in.Name)
}

func failed(name, msg string) *answer {
	return &answer{Name: name, Subscriptions: map[string]*subscriptionResult{}, Clusters: map[string]*clusterResult{}, Error: msg}
}

// load reads a case and applies what the hub's API server does on
// create: the CRDs' defaults, and refusals where a CRD's schema refuses
// an object (enums, required fields, ranges) that the oracle would
// otherwise have to guess at. Such a refusal fails the case.
func load(in *caseInput) (*caseState, error) {
	st := &caseState{refused: map[string]string{}}
	names := map[string]string{}
	for i, raw := range in.Clusters {
		c := &managedCluster{}
		if err := json.Unmarshal(raw, c); err != nil {
			return nil, fmt.Errorf("clusters[%d]: %w", i, err)
		}
		if c.Name == "" {
			return nil, fmt.Errorf("clusters[%d]: no metadata.name", i)
		}
		if other, ok := names[c.Name]; ok {
			return nil, fmt.Errorf("clusters[%d]: two ManagedClusters named %q (%s and %s)", i, c.Name, other, c.key())
		}
		names[c.Name] = c.key()
		st.clusters = append(st.clusters, c)
	}
	sort.SliceStable(st.clusters, func(i, j int) bool { return st.clusters[i].key() < st.clusters[j].key() })

	seen := map[string]bool{}
	for i, raw := range in.Subscriptions {
		s := &subscription{}
		if err := json.Unmarshal(raw, s); err != nil {
			return nil, fmt.Errorf("subscriptions[%d]: %w", i, err)
		}
		if s.Name == "" || s.Namespace == "" {
			return nil, fmt.Errorf("subscriptions[%d]: a Subscription needs metadata.namespace and metadata.name", i)
		}
		if seen[s.key()] {
			return nil, fmt.Errorf("subscriptions[%d]: two Subscriptions %s", i, s.key())
		}
		seen[s.key()] = true
		if err := admitSubscription(s); err != nil {
			return nil, fmt.Errorf("Subscription %s refused by the API server: %w", s.key(), err)
		}
		st.subscriptions = append(st.subscriptions, s)
	}
	sort.SliceStable(st.subscriptions, func(i, j int) bool { return st.subscriptions[i].key() < st.subscriptions[j].key() })

	for _, group := range []struct {
		kind string
		raws []json.RawMessage
		into *[]*override
	}{{"Localization", in.Localizations, &st.localizations}, {"Globalization", in.Globalizations, &st.globalizations}} {
		seen := map[string]bool{}
		for i, raw := range group.raws {
			o := &override{}
			if err := json.Unmarshal(raw, o); err != nil {
				return nil, fmt.Errorf("%ss[%d]: %w", strings.ToLower(group.kind), i, err)
			}
			if group.kind == "Globalization" {
				// Cluster-scoped: the API server drops a namespace.
				o.Namespace = ""
			} else if o.Namespace == "" {
				return nil, fmt.Errorf("localizations[%d]: a Localization needs metadata.namespace", i)
			}
			if o.Name == "" || seen[o.Namespace+"/"+o.Name] {
				return nil, fmt.Errorf("%ss[%d]: no name, or a second %s %s", strings.ToLower(group.kind), i, group.kind, objectKey(o.Namespace, o.Name))
			}
			seen[o.Namespace+"/"+o.Name] = true
			if err := admitOverride(o); err != nil {
				return nil, fmt.Errorf("%s %s refused by the API server: %w", group.kind, objectKey(o.Namespace, o.Name), err)
			}
			*group.into = append(*group.into, o)
		}
	}

	stored := map[string]int{}
	for i, raw := range in.Templates {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("templates[%d]: %w", i, err)
		}
		// The Manifest's name is made of the resource, the namespace and
		// the name: a second object with those is refused.
		id := strings.ToLower(u.GetKind()) + "/" + objectKey(u.GetNamespace(), u.GetName())
		if j, ok := stored[id]; ok {
			return nil, fmt.Errorf("templates[%d]: the hub already holds %s %s (templates[%d])", i, u.GetKind(), objectKey(u.GetNamespace(), u.GetName()), j)
		}
		m, err := storeManifest(i, u)
		if err != nil {
			st.refused[fmt.Sprintf("%s %s", u.GetKind(), objectKey(u.GetNamespace(), u.GetName()))] = err.Error()
			continue
		}
		stored[id] = i
		st.manifests = append(st.manifests, m)
	}
	return st, nil
}

// admitSubscription applies the Subscription CRD's defaults and checks
// what its schema requires (manifests/crds/apps.clusternet.io_subscriptions.yaml).
func admitSubscription(s *subscription) error {
	if s.Spec.SchedulerName == "" {
		s.Spec.SchedulerName = "default"
	}
	switch s.Spec.SchedulingStrategy {
	case "":
		s.Spec.SchedulingStrategy = "Replication"
	case "Replication", "Dividing":
	default:
		return fmt.Errorf("spec.schedulingStrategy: Unsupported value: %q", s.Spec.SchedulingStrategy)
	}
	if d := s.Spec.DividingScheduling; d != nil {
		switch d.Type {
		case "":
			d.Type = "Static"
		case "Static", "Dynamic":
		default:
			return fmt.Errorf("spec.dividingScheduling.type: Unsupported value: %q", d.Type)
		}
	}
	if s.Spec.Subscribers == nil {
		return errors.New("spec.subscribers: Required value")
	}
	if s.Spec.Feeds == nil {
		return errors.New("spec.feeds: Required value")
	}
	for i, sub := range s.Spec.Subscribers {
		if sub.ClusterAffinity == nil {
			return fmt.Errorf("spec.subscribers[%d].clusterAffinity: Required value", i)
		}
		if sub.Weight < 0 {
			return fmt.Errorf("spec.subscribers[%d].weight: Invalid value: %d: should be greater than or equal to 0", i, sub.Weight)
		}
	}
	for i, f := range s.Spec.Feeds {
		if f.APIVersion == "" || f.Kind == "" || f.Name == "" {
			return fmt.Errorf("spec.feeds[%d]: apiVersion, kind and name are required", i)
		}
	}
	return nil
}

// fieldPatches is --field-patches: the override types FieldJSONPatch and
// FieldMergePatch, with fieldPath and fieldFormat, of Clusternet's CRDs and
// localizer after v0.18.1 (commit 50ab07a), which garrison follows. Off,
// the oracle is v0.18.0, whose Localization and Globalization CRDs have
// neither (their enum refuses the types; see the README).
var fieldPatches bool

// admitOverride applies the Localization/Globalization CRDs' defaults and
// checks their schema, v0.18.0's, or the later one's with --field-patches.
func admitOverride(o *override) error {
	if o.Spec.Priority == nil {
		p := int32(500)
		o.Spec.Priority = &p
	}
	if p := *o.Spec.Priority; p < 0 || p > 1000 {
		return fmt.Errorf("spec.priority: Invalid value: %d: should be between 0 and 1000", p)
	}
	switch o.Spec.OverridePolicy {
	case "":
		o.Spec.OverridePolicy = "ApplyLater"
	case "ApplyNow", "ApplyLater":
	default:
		return fmt.Errorf("spec.overridePolicy: Unsupported value: %q", o.Spec.OverridePolicy)
	}
	for i, c := range o.Spec.Overrides {
		switch c.Type {
		case helmType, jsonPatchType, mergePatchType:
		case fieldJSONPatchType, fieldMergePatchType:
			if !fieldPatches {
				return fmt.Errorf("spec.overrides[%d].type: Unsupported value: %q: supported values: \"Helm\", \"JSONPatch\", \"MergePatch\"", i, c.Type)
			}
		default:
			return fmt.Errorf("spec.overrides[%d].type: Unsupported value: %q", i, c.Type)
		}
		if !fieldPatches {
			// Not in v0.18.0's schema: pruned on create.
			o.Spec.Overrides[i].FieldPath, o.Spec.Overrides[i].FieldFormat = "", ""
			continue
		}
		switch c.FieldFormat {
		case "", yamlFormat, jsonFormat:
		default:
			return fmt.Errorf("spec.overrides[%d].fieldFormat: Unsupported value: %q", i, c.FieldFormat)
		}
	}
	return nil
}

package main

import "strings"

// crdDefault is one `default:` of a Karmada CRD's openAPIV3Schema (a
// +kubebuilder:default marker). The API server applies these itself
// (structural defaulting) when it decodes a create request, before the
// mutating webhooks run, and again when it decodes what they return.
type crdDefault struct {
	path  string // dot-separated, from the object root
	value any
}

// crdDefaults lists every default of the storage version of each Karmada
// kind the oracle admits. TestCRDDefaultsMatchModule checks this table
// against charts/karmada/_crds/bases in the karmada module, so a new or
// changed default fails the test instead of being missed.
var crdDefaults = map[string][]crdDefault{
	"PropagationPolicy":                propagationDefaults,
	"ClusterPropagationPolicy":         propagationDefaults,
	"OverridePolicy":                   nil,
	"ClusterOverridePolicy":            nil,
	"ResourceInterpreterCustomization": nil,
	"ResourceBinding":                  bindingDefaults,
	"ClusterResourceBinding":           bindingDefaults,
	"Work":                             nil,
}

var propagationDefaults = []crdDefault{
	{"spec.conflictResolution", "Abort"},
	{"spec.failover.application.decisionConditions.tolerationSeconds", int64(300)},
	{"spec.failover.application.purgeMode", "Gracefully"},
	{"spec.failover.cluster.purgeMode", "Gracefully"},
	{"spec.placement.replicaScheduling.replicaSchedulingType", "Divided"},
	{"spec.preemption", "Never"},
	{"spec.priority", int64(0)},
	{"spec.schedulerName", "default-scheduler"},
}

var bindingDefaults = []crdDefault{
	{"spec.conflictResolution", "Abort"},
	{"spec.failover.application.decisionConditions.tolerationSeconds", int64(300)},
	{"spec.failover.application.purgeMode", "Gracefully"},
	{"spec.failover.cluster.purgeMode", "Gracefully"},
	{"spec.placement.replicaScheduling.replicaSchedulingType", "Divided"},
	{"spec.schedulePriority.priority", int64(0)},
}

// applyCRDDefaults applies structural defaulting as apiextensions-apiserver
// does: a default fills a field that is absent or null, and only inside an
// object that exists (defaulting never creates a parent). None of Karmada's
// defaults sits under a list, so paths need no wildcard.
func applyCRDDefaults(kind string, obj map[string]any) {
	for _, d := range crdDefaults[kind] {
		segs := strings.Split(d.path, ".")
		parent := obj
		ok := true
		for _, s := range segs[:len(segs)-1] {
			next, isMap := parent[s].(map[string]any)
			if !isMap {
				ok = false
				break
			}
			parent = next
		}
		if !ok {
			continue
		}
		last := segs[len(segs)-1]
		if v, present := parent[last]; !present || v == nil {
			parent[last] = d.value
		}
	}
}

package main

import "encoding/json"

// caseInput is one case (conformance/karmada/README.md). Fields the oracle
// does not know yet (a later `bindings`) are ignored.
type caseInput struct {
	Clusters       []json.RawMessage `json:"clusters"`
	Policies       []json.RawMessage `json:"policies"`
	Overrides      []json.RawMessage `json:"overrides"`
	Customizations []json.RawMessage `json:"customizations"`
	Templates      []json.RawMessage `json:"templates"`
}

// answer is Karmada's outcome for one case.
type answer struct {
	Rejected []rejection `json:"rejected"`
	Results  []result    `json:"results"`
	// Error is set, and the rest left empty, when the oracle itself failed
	// on the case (bad JSON, a Karmada call returning an unexpected error).
	Error string `json:"error,omitempty"`
}

// rejection is an input object the Karmada API server would refuse.
type rejection struct {
	Object string `json:"object"` // Kind/namespace/name, or Kind/name
	Reason string `json:"reason"`
}

type templateRef struct {
	APIVersion string  `json:"apiVersion"`
	Kind       string  `json:"kind"`
	Namespace  *string `json:"namespace"`
	Name       string  `json:"name"`
}

type policyRef struct {
	Kind      string  `json:"kind"`
	Namespace *string `json:"namespace"`
	Name      string  `json:"name"`
}

type targetCluster struct {
	Name     string `json:"name"`
	Replicas int32  `json:"replicas"`
}

type workOut struct {
	Cluster   string          `json:"cluster"`
	Namespace string          `json:"namespace"`
	Name      string          `json:"name"`
	Manifest  json.RawMessage `json:"manifest"`
}

// result is one template's outcome, in the template's input order.
type result struct {
	Template      templateRef     `json:"template"`
	Policy        *policyRef      `json:"policy"`
	Skipped       *string         `json:"skipped"`
	ScheduleError *string         `json:"scheduleError"`
	Clusters      []targetCluster `json:"clusters"`
	Works         []workOut       `json:"works"`
	// Workload tells whether Karmada divides replicas for it (the binding's
	// spec.IsWorkload(): replicas or per-replica requirements were
	// interpreted); not part of the comparison contract, a hint for it.
	Workload bool `json:"workload"`
}

func strPtr(s string) *string { return &s }

// optional is nil for "" (a cluster-scoped object's namespace).
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

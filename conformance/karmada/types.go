package main

import "encoding/json"

// caseInput is one case (conformance/karmada/README.md). Unknown fields
// are ignored.
type caseInput struct {
	Clusters       []json.RawMessage `json:"clusters"`
	Policies       []json.RawMessage `json:"policies"`
	Overrides      []json.RawMessage `json:"overrides"`
	Customizations []json.RawMessage `json:"customizations"`
	Templates      []json.RawMessage `json:"templates"`
	// Bindings are the schedules a control plane already holds for some
	// templates (previous.go): the scheduler's memory.
	Bindings []previousBinding `json:"bindings"`
	// Continues: the case is the previous case's control plane after the
	// user applied this one (continued.go).
	Continues bool `json:"continues"`
	// ClustersByName, in a case that continues another: every binding's
	// spec.clusters is put in name order first, as garrison's rendered
	// bindings list them (the order its next schedule reads on ties).
	ClustersByName bool `json:"clustersByName"`
	// Export: the answer also holds the control plane as kubectl exports
	// it (export.go).
	Export bool `json:"export"`
}

// previousBinding is what an existing (Cluster)ResourceBinding carries from
// its last schedule.
type previousBinding struct {
	Template templateRef `json:"template"`
	// Clusters are its spec.clusters.
	Clusters []targetCluster `json:"clusters"`
	// AffinityName is its status.schedulerObservedAffinityName.
	AffinityName *string `json:"affinityName"`
	// Placement is the placement it was last scheduled with (the scheduler's
	// applied-placement annotation, policy.karmada.io/applied-placement).
	// Absent: the placement the binding has now (unchanged); null: none,
	// the scheduler never patched the binding.
	Placement json.RawMessage `json:"placement"`
}

// answer is Karmada's outcome for one case.
type answer struct {
	Rejected []rejection `json:"rejected"`
	Results  []result    `json:"results"`
	// Error is set, and the rest left empty, when the oracle itself failed
	// on the case (bad JSON, a Karmada call returning an unexpected error).
	Error string `json:"error,omitempty"`
	// ControlPlane is the export a case asked for (export.go).
	ControlPlane *controlPlaneExport `json:"controlPlane,omitempty"`
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
	// SuspendDispatching: the Work exists but the execution controller
	// does not apply it to the cluster (policy spec.suspension.dispatching,
	// dispatchingOnClusters).
	SuspendDispatching bool `json:"suspendDispatching"`
	// PreserveResourcesOnDeletion: the member keeps the objects when the
	// Work is deleted (policy spec.preserveResourcesOnDeletion).
	PreserveResourcesOnDeletion bool `json:"preserveResourcesOnDeletion"`
}

// result is one template's outcome, in the template's input order.
type result struct {
	Template      templateRef `json:"template"`
	Policy        *policyRef  `json:"policy"`
	Skipped       *string     `json:"skipped"`
	ScheduleError *string     `json:"scheduleError"`
	// SyncError is the binding controller's error writing the Works (an
	// override that does not apply, a failing customization): Karmada
	// retries forever, and the clusters it failed on get no Work.
	SyncError *string `json:"syncError"`
	// DependenciesError is the dependencies distributor's error on the
	// template's binding (propagateDeps): Karmada retries, and the
	// dependencies it could attach are attached.
	DependenciesError *string         `json:"dependenciesError"`
	Clusters          []targetCluster `json:"clusters"`
	// RequiredBy are the clusters the binding controller also writes the
	// template to because workloads placed there depend on it
	// (propagateDeps: the binding's spec.requiredBy, merged as the
	// binding controller's mergeTargetClusters does, without those already
	// in clusters), with the replicas it would pass to ReviseReplica.
	RequiredBy []targetCluster `json:"requiredBy"`
	Works      []workOut       `json:"works"`
	// Workload tells whether Karmada divides replicas for it (the binding's
	// spec.IsWorkload(): replicas or per-replica requirements were
	// interpreted); not part of the comparison contract, a hint for it.
	Workload bool `json:"workload"`
	// AffinityName is the binding's status.schedulerObservedAffinityName:
	// the cluster affinity group the scheduler last scheduled it into.
	AffinityName *string `json:"affinityName"`
	// Placement is the binding's applied-placement annotation (the placement
	// the scheduler last patched a result for), as JSON; null when it never
	// did. With clusters and affinityName, what a next case's `bindings`
	// entry for the template takes.
	Placement json.RawMessage `json:"placement"`
}

func strPtr(s string) *string { return &s }

// optional is nil for "" (a cluster-scoped object's namespace).
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

package main

import (
	"encoding/json"
	"fmt"
	"reflect"

	policyv1alpha1 "github.com/karmada-io/karmada/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
	"github.com/karmada-io/karmada/pkg/util"
)

// A case's `bindings` are what a control plane that already scheduled some
// templates holds for them: the binding's spec.clusters, its
// status.schedulerObservedAffinityName, and the applied-placement
// annotation the scheduler wrote with its last result. The detector, on a
// later change, updates an existing binding without touching those
// (detector.ApplyPolicy's CreateOrUpdate copies the resource, replicas,
// requirements, placement ... from the template and the policy, and keeps
// spec.clusters, annotations it does not set and the status). So the oracle
// lets the detector build the binding as for a first schedule, then puts
// the previous schedule's three fields on it before the scheduler looks at
// it: the same binding as the updated one.

// bindingKey names a template's previous binding.
type bindingKey struct {
	apiVersion, kind, namespace, name string
}

func keyOf(ref templateRef) bindingKey {
	k := bindingKey{apiVersion: ref.APIVersion, kind: ref.Kind, name: ref.Name}
	if ref.Namespace != nil {
		k.namespace = *ref.Namespace
	}
	return k
}

// previousBindings indexes a case's bindings by template; a template named
// twice is a mistake in the case.
func previousBindings(in []previousBinding) (map[bindingKey]*previousBinding, error) {
	out := make(map[bindingKey]*previousBinding, len(in))
	for i := range in {
		k := keyOf(in[i].Template)
		if _, twice := out[k]; twice {
			return nil, fmt.Errorf("bindings[%d]: a second binding for %s %s/%s", i, k.kind, k.namespace, k.name)
		}
		out[k] = &in[i]
	}
	return out, nil
}

// recall writes a previous schedule onto a binding the detector just
// built: spec.clusters, the applied-placement annotation (the placement
// the binding has now when the entry gives none, removed when it gives
// null) and the observed affinity name.
func recall(prev *previousBinding, annotations map[string]string, spec *workv1alpha2.ResourceBindingSpec,
	status *workv1alpha2.ResourceBindingStatus) error {
	spec.Clusters = make([]workv1alpha2.TargetCluster, 0, len(prev.Clusters))
	for _, c := range prev.Clusters {
		spec.Clusters = append(spec.Clusters, workv1alpha2.TargetCluster{Name: c.Name, Replicas: c.Replicas})
	}
	status.SchedulerObservedAffinityName = ""
	if prev.AffinityName != nil {
		status.SchedulerObservedAffinityName = *prev.AffinityName
	}
	switch {
	case len(prev.Placement) == 0:
		if spec.Placement == nil {
			return fmt.Errorf("the binding has no placement")
		}
		now, err := json.Marshal(*spec.Placement)
		if err != nil {
			return err
		}
		annotations[util.PolicyPlacementAnnotation] = string(now)
	case string(prev.Placement) == "null":
		delete(annotations, util.PolicyPlacementAnnotation)
	default:
		annotations[util.PolicyPlacementAnnotation] = string(prev.Placement)
	}
	return nil
}

// scheduleReason is karmada-scheduler's decision, for a binding it picks
// from its queue, whether to run the scheduling algorithm at all
// (pkg/scheduler/scheduler.go, doScheduleBinding / doScheduleClusterBinding,
// unexported), and why; "" when the binding keeps its clusters.
//
// In a settled control plane every binding that may need it has been
// queued: a binding whose spec changed (its generation), and on a cluster
// change the bindings it affects. Asking every binding gives the same
// result, since the checks below are the only way a queued binding is
// rescheduled: an unchanged Divided workload is left alone; a Duplicated
// one, or one without replicas, is scheduled again over the same fleet.
//
// A cluster of the binding that is not in the case is one being deleted:
// Karmada reschedules the bindings on a cluster as soon as its deletion
// starts (HasTerminatingTargetClusters, on the update that sets its
// deletionTimestamp), and the generic scheduler skips a deleting cluster
// (findClustersThatFit), as it skips a cluster that is gone. No
// rescheduleTriggeredAt is ever set, so util.RescheduleRequired never holds.
func scheduleReason(spec *workv1alpha2.ResourceBindingSpec, applied string, observedAffinity string, fleet map[string]bool) string {
	if placementChanged(*spec.Placement, applied, observedAffinity) {
		return "placement changed"
	}
	if util.IsBindingReplicasChanged(spec, spec.Placement.ReplicaScheduling) {
		return "replicas changed"
	}
	if !spec.IsWorkload() || spec.Placement.ReplicaSchedulingType() == policyv1alpha1.ReplicaSchedulingTypeDuplicated {
		return "duplicated, or no replicas: always scheduled"
	}
	for _, c := range spec.Clusters {
		if !fleet[c.Name] {
			return fmt.Sprintf("cluster %s is being deleted", c.Name)
		}
	}
	return ""
}

// placementChanged stands for the unexported function of that name in
// pkg/scheduler/helper.go: no applied placement means a change; one that
// cannot be read means none; otherwise a difference outside
// clusterAffinities is a change, and within them only a difference in the
// term the scheduler observed (or that term missing on either side, or no
// observed term at all).
func placementChanged(now policyv1alpha1.Placement, applied string, observedAffinity string) bool {
	if applied == "" {
		return true
	}
	var before policyv1alpha1.Placement
	if err := json.Unmarshal([]byte(applied), &before); err != nil {
		return false
	}
	if reflect.DeepEqual(now, before) {
		return false
	}
	if !reflect.DeepEqual(now.ClusterAffinity, before.ClusterAffinity) ||
		!reflect.DeepEqual(now.ClusterTolerations, before.ClusterTolerations) ||
		!reflect.DeepEqual(now.SpreadConstraints, before.SpreadConstraints) ||
		!reflect.DeepEqual(now.ReplicaScheduling, before.ReplicaScheduling) {
		return true
	}
	if observedAffinity == "" {
		return true
	}
	termNow, termBefore := affinityTerm(now.ClusterAffinities, observedAffinity), affinityTerm(before.ClusterAffinities, observedAffinity)
	if termNow == nil || termBefore == nil {
		return true
	}
	return !reflect.DeepEqual(*termNow, *termBefore)
}

// affinityTerm is the first term named name, or nil.
func affinityTerm(terms []policyv1alpha1.ClusterAffinityTerm, name string) *policyv1alpha1.ClusterAffinityTerm {
	for i := range terms {
		if terms[i].AffinityName == name {
			return &terms[i]
		}
	}
	return nil
}

// affinityIndex stands for pkg/scheduler/helper.go's getAffinityIndex: the
// scheduler tries the cluster affinity terms from the one it observed last
// (the first when it observed none, or one no longer in the placement).
func affinityIndex(terms []policyv1alpha1.ClusterAffinityTerm, observed string) int {
	if observed == "" {
		return 0
	}
	for i := range terms {
		if terms[i].AffinityName == observed {
			return i
		}
	}
	return 0
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	clusterv1alpha1 "github.com/karmada-io/karmada/pkg/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
	"github.com/karmada-io/karmada/pkg/scheduler/core"
	"github.com/karmada-io/karmada/pkg/scheduler/framework"
)

// defaultSchedulerName is the name karmada-scheduler answers to by default
// (scheduler.DefaultScheduler, --scheduler-name).
const defaultSchedulerName = "default-scheduler"

// scheduleOutcome is what karmada-scheduler does with a binding.
type scheduleOutcome struct {
	// skipped says why the scheduler never picks the binding up.
	skipped string
	// kept: the scheduler picks the binding up and leaves it as it is
	// (nothing that triggers rescheduling changed).
	kept bool
	// patch tells whether the scheduler writes clusters (and the
	// applied-placement annotation) back to the binding.
	patch     bool
	clusters  []workv1alpha2.TargetCluster
	placement string
	// affinityName is the binding's status.schedulerObservedAffinityName
	// afterwards.
	affinityName string
	err          error
}

// schedule runs karmada-scheduler's decision for one binding: a fresh one
// the detector just created, or one that carries a previous schedule
// (spec.clusters, the applied-placement annotation `applied`, the observed
// affinity name in status; see previous.go), with the generic scheduler
// (core.ScheduleAlgorithm.Schedule, the whole filter/score/select/assign
// pipeline, Steady assignment on top of spec.clusters included) doing all
// the work. `fleet` names the clusters of the case. The glue mirrors the
// unexported parts of pkg/scheduler (v1.18.2) that decide whether and how
// often it is called:
//
//   - event_handler.go, resourceBindingEventFilter: a binding whose
//     schedulerName is not ours (empty counts as default-scheduler,
//     schedulerNameFilter) or whose scheduling is suspended
//     (Spec.SchedulingSuspended) never reaches the queue.
//   - scheduler.go, doScheduleBinding: whether to schedule at all
//     (scheduleReason in previous.go; a binding without the
//     applied-placement annotation always has a "placement changed", so a
//     fresh binding is scheduled); it works on a DeepCopy, and what
//     Schedule writes into that copy's spec (a default static weight list)
//     is never persisted.
//   - scheduleResourceBindingWithClusterAffinity: a FitError still patches
//     (an empty cluster list); any other error patches nothing.
//   - scheduleResourceBindingWithClusterAffinities: terms are tried in order
//     from the observed one (getAffinityIndex: the first when none is
//     observed), each with status.schedulerObservedAffinityName set to the
//     term's name on one status copy, all with the same spec object; the
//     first success wins and its name is written to the status. When every
//     term fails, the status keeps the name it had, and the clusters are
//     cleared only if the first error was a FitError.
//
// The ClusterResourceBinding paths (doScheduleClusterBinding and friends)
// are the same code for another type.
func (o *oracle) schedule(ctx context.Context, spec workv1alpha2.ResourceBindingSpec, status workv1alpha2.ResourceBindingStatus,
	applied string, fleet map[string]bool) scheduleOutcome {
	if name := spec.SchedulerName; name != "" && name != defaultSchedulerName {
		return scheduleOutcome{skipped: fmt.Sprintf("schedulerName %q is not karmada-scheduler's %q", name, defaultSchedulerName)}
	}
	if spec.SchedulingSuspended() {
		return scheduleOutcome{skipped: "scheduling is suspended (spec.suspension.scheduling)"}
	}
	spec = *spec.DeepCopy()
	status = *status.DeepCopy()
	if spec.Placement == nil {
		return scheduleOutcome{err: errors.New("binding has no placement")}
	}
	if scheduleReason(&spec, applied, status.SchedulerObservedAffinityName, fleet) == "" {
		return scheduleOutcome{kept: true, clusters: spec.Clusters, placement: applied, affinityName: status.SchedulerObservedAffinityName}
	}
	placement, err := json.Marshal(*spec.Placement)
	if err != nil {
		return scheduleOutcome{err: err}
	}
	option := &core.ScheduleAlgorithmOption{EnableEmptyWorkloadPropagation: o.emptyWorkloads}

	if spec.Placement.ClusterAffinities == nil {
		result, err := o.algorithm.Schedule(ctx, &spec, &status, option)
		var fitErr *framework.FitError
		if err != nil && !errors.As(err, &fitErr) {
			return scheduleOutcome{err: err, affinityName: status.SchedulerObservedAffinityName}
		}
		if fitErr != nil {
			err = o.stableFitError(ctx, &spec, &status, fitErr)
		}
		return scheduleOutcome{patch: true, clusters: result.SuggestedClusters, placement: string(placement),
			affinityName: status.SchedulerObservedAffinityName, err: err}
	}

	var firstErr error
	var firstStatus *workv1alpha2.ResourceBindingStatus
	observed := status.DeepCopy()
	terms := spec.Placement.ClusterAffinities
	for index := affinityIndex(terms, status.SchedulerObservedAffinityName); index < len(terms); index++ {
		observed.SchedulerObservedAffinityName = terms[index].AffinityName
		result, err := o.algorithm.Schedule(ctx, &spec, observed, option)
		if err == nil {
			return scheduleOutcome{patch: true, clusters: result.SuggestedClusters, placement: string(placement),
				affinityName: observed.SchedulerObservedAffinityName}
		}
		if firstErr == nil {
			firstErr, firstStatus = err, observed.DeepCopy()
		}
	}
	var fitErr *framework.FitError
	if !errors.As(firstErr, &fitErr) {
		return scheduleOutcome{err: firstErr, affinityName: status.SchedulerObservedAffinityName}
	}
	return scheduleOutcome{patch: true, placement: string(placement), affinityName: status.SchedulerObservedAffinityName,
		err: o.stableFitError(ctx, &spec, firstStatus, fitErr)}
}

// stableFitError gives a FitError a message that does not change from one
// run to the next. Karmada's message (FitError.Error) counts, for each
// cluster that did not fit, the reason of the first filter plugin that
// refused it, and runtime.NewFramework orders the plugins as it ranges over
// the registry map: a cluster that two plugins refuse is counted under
// either, differently in each process. The clusters are asked again here,
// the plugins in name order, and Karmada's FitError formats the result.
// Only the message changes: which clusters fit does not depend on the order.
func (o *oracle) stableFitError(ctx context.Context, spec *workv1alpha2.ResourceBindingSpec,
	status *workv1alpha2.ResourceBindingStatus, fitErr *framework.FitError) error {
	stable := &framework.FitError{
		NumAllClusters: fitErr.NumAllClusters,
		Diagnosis:      framework.Diagnosis{ClusterToResultMap: framework.ClusterToResultMap{}},
	}
	for name := range fitErr.Diagnosis.ClusterToResultMap {
		item, exists, err := o.clusters.GetByKey(name)
		if err != nil || !exists {
			return fitErr
		}
		filterCtx := &framework.FilterContext{Context: ctx, BindingSpec: spec, BindingStatus: status, Cluster: item.(*clusterv1alpha1.Cluster)}
		for _, p := range o.filters {
			var result *framework.Result
			if withContext, ok := p.(framework.FilterPluginWithContext); ok {
				result = withContext.FilterWithContext(filterCtx)
			} else {
				result = p.Filter(ctx, spec, status, filterCtx.Cluster)
			}
			if !result.IsSuccess() {
				stable.Diagnosis.ClusterToResultMap[name] = result
				break
			}
		}
		if _, found := stable.Diagnosis.ClusterToResultMap[name]; !found {
			return fitErr
		}
	}
	return stable
}

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

// scheduleOutcome is what karmada-scheduler does with a fresh binding.
type scheduleOutcome struct {
	// skipped says why the scheduler never picks the binding up.
	skipped string
	// patch tells whether the scheduler writes clusters (and the
	// applied-placement annotation) back to the binding.
	patch     bool
	clusters  []workv1alpha2.TargetCluster
	placement string
	err       error
}

// schedule runs karmada-scheduler's decision for one binding that was just
// created, with the generic scheduler (core.ScheduleAlgorithm.Schedule, the
// whole filter/score/select/assign pipeline) doing all the work. The glue
// mirrors the unexported parts of pkg/scheduler (v1.18.2) that decide
// whether and how often it is called:
//
//   - event_handler.go, resourceBindingEventFilter: a binding whose
//     schedulerName is not ours (empty counts as default-scheduler,
//     schedulerNameFilter) or whose scheduling is suspended
//     (Spec.SchedulingSuspended) never reaches the queue.
//   - scheduler.go, doScheduleBinding: a binding without the
//     applied-placement annotation always has a "placement changed"
//     (placementChanged returns true for ""), so a fresh binding is
//     scheduled; it works on a DeepCopy, and what Schedule writes into that
//     copy's spec (a default static weight list) is never persisted.
//   - scheduleResourceBindingWithClusterAffinity: a FitError still patches
//     (an empty cluster list); any other error patches nothing.
//   - scheduleResourceBindingWithClusterAffinities: terms are tried in order
//     from the first (a fresh status has no observed affinity name), each
//     with status.schedulerObservedAffinityName set to the term's name, all
//     with the same spec object; the first success wins. When every term
//     fails, the clusters are cleared only if the first error was a
//     FitError.
//
// The ClusterResourceBinding paths (doScheduleClusterBinding and friends)
// are the same code for another type.
func (o *oracle) schedule(ctx context.Context, spec workv1alpha2.ResourceBindingSpec, status workv1alpha2.ResourceBindingStatus) scheduleOutcome {
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
	placement, err := json.Marshal(*spec.Placement)
	if err != nil {
		return scheduleOutcome{err: err}
	}
	option := &core.ScheduleAlgorithmOption{EnableEmptyWorkloadPropagation: o.emptyWorkloads}

	if spec.Placement.ClusterAffinities == nil {
		result, err := o.algorithm.Schedule(ctx, &spec, &status, option)
		var fitErr *framework.FitError
		if err != nil && !errors.As(err, &fitErr) {
			return scheduleOutcome{err: err}
		}
		if fitErr != nil {
			err = o.stableFitError(ctx, &spec, &status, fitErr)
		}
		return scheduleOutcome{patch: true, clusters: result.SuggestedClusters, placement: string(placement), err: err}
	}

	var firstErr error
	var firstStatus *workv1alpha2.ResourceBindingStatus
	for index := range spec.Placement.ClusterAffinities {
		observed := status.DeepCopy()
		observed.SchedulerObservedAffinityName = spec.Placement.ClusterAffinities[index].AffinityName
		result, err := o.algorithm.Schedule(ctx, &spec, observed, option)
		if err == nil {
			return scheduleOutcome{patch: true, clusters: result.SuggestedClusters, placement: string(placement)}
		}
		if firstErr == nil {
			firstErr, firstStatus = err, observed
		}
	}
	var fitErr *framework.FitError
	if !errors.As(firstErr, &fitErr) {
		return scheduleOutcome{err: firstErr}
	}
	return scheduleOutcome{patch: true, placement: string(placement), err: o.stableFitError(ctx, &spec, firstStatus, fitErr)}
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

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	controllerruntime "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	policyv1alpha1 "github.com/karmada-io/karmada/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
	"github.com/karmada-io/karmada/pkg/detector"
	"github.com/karmada-io/karmada/pkg/util"
	"github.com/karmada-io/karmada/pkg/util/fedinformer/keys"
	"github.com/karmada-io/karmada/pkg/util/names"
)

// templateRun is one template on its way through the control plane.
type templateRun struct {
	t   *unstructured.Unstructured
	res result
	// final: res is complete, nothing further happens to the template.
	final bool
	// binding is the key of the template's (Cluster)ResourceBinding, which
	// the detector or the dependencies distributor may create.
	binding types.NamespacedName
	// applied and affinityName are the binding's applied-placement
	// annotation and observed affinity name once the scheduler is done.
	applied, affinityName string
}

func (r *templateRun) namespaced() bool { return r.t.GetNamespace() != "" }

// propagate runs the controllers over every template, in the order a
// control plane that sees all the objects at once settles on: the resource
// detector claims templates and writes bindings, the scheduler places them,
// the dependencies distributor attaches what placed workloads depend on
// (propagateDeps), then the binding controller writes the Works. Each step
// is Karmada's own reconcile function; templates are independent of each
// other except through dependencies, hence the phases.
func (o *oracle) propagate(ctx context.Context, st *caseState) ([]*templateRun, error) {
	runs := make([]*templateRun, 0, len(st.templates))
	for i, t := range st.templates {
		r := &templateRun{
			t:       t,
			res:     result{Template: refOf(t), Clusters: []targetCluster{}, RequiredBy: []targetCluster{}, Works: []workOut{}},
			binding: types.NamespacedName{Namespace: t.GetNamespace(), Name: names.GenerateBindingName(t.GetKind(), t.GetName())},
		}
		if reason, refused := st.refused[i]; refused {
			r.res.Skipped = strPtr("the API server refuses it: " + reason)
			r.final = true
		}
		runs = append(runs, r)
	}
	steps := []struct {
		name string
		do   func(context.Context, *caseState, *templateRun) error
	}{
		{"resource detector", o.detect},
		{"scheduler", o.scheduleBinding},
		{"dependencies distributor", o.distributeDependencies},
		{"binding controller", o.writeWorks},
		{"reading the outcome", o.collect},
	}
	for _, step := range steps {
		for _, r := range runs {
			if r.final {
				continue
			}
			if err := step.do(ctx, st, r); err != nil {
				return nil, fmt.Errorf("%s %s/%s, %s: %w", r.t.GetKind(), r.t.GetNamespace(), r.t.GetName(), step.name, err)
			}
		}
	}
	return runs, nil
}

// detect is the resource detector's handling of the template.
func (o *oracle) detect(ctx context.Context, st *caseState, r *templateRun) error {
	d, t := st.detector, r.t

	// What never reaches the detector's queue: the informer event filter
	// (fedinformer.NewFilteringHandlerOnAllEvents(d.EventFilter, ...)), and
	// kinds whose informer is never started (discoverResources skips
	// d.gvrDisabled; the check is unexported, its three calls are the same
	// exported SkippedResourceConfig methods).
	if !d.EventFilter(t) {
		r.res.Skipped = strPtr(fmt.Sprintf("namespace %q is never propagated (Karmada's reserved namespaces and --skipped-propagating-namespaces ^kube-.*$)", t.GetNamespace()))
		r.final = true
		return nil
	}
	gvk := t.GroupVersionKind()
	if o.skippedResources.GroupVersionDisabled(gvk.GroupVersion()) || o.skippedResources.GroupDisabled(gvk.Group) ||
		o.skippedResources.GroupVersionKindDisabled(gvk) {
		r.res.Skipped = strPtr(fmt.Sprintf("%s is never propagated (util.NewSkippedResourceConfig)", gvk))
		r.final = true
		return nil
	}

	// The detector's worker: the queue key as ResourceItemKeyFunc builds it,
	// then ResourceDetector.Reconcile, which skips a template claimed by
	// another controller (ResourceTemplateClaimedByLabel) and runs the
	// unexported propagateResource: an existing claim, else the best
	// PropagationPolicy of the template's namespace, else the best
	// ClusterPropagationPolicy, then ApplyPolicy / ApplyClusterPolicy (claim
	// the template, BuildResourceBinding with the resource interpreter,
	// create the binding).
	//
	// One guard: with no matching policy at all, propagateResource adds the
	// template to the detector's waiting list, a map only
	// ResourceDetector.Start allocates. The same two exported look-ups it
	// would make tell that case apart first; such a template may still be
	// propagated as another's dependency.
	//
	// A template that carries a claim (a policy's permanent-id label and
	// name annotations, as the detector writes them) goes to Reconcile
	// whatever matches: propagateResource reads the claim first. When the
	// claimed policy is gone, Reconcile removes the claim from the template
	// (through the dynamic client, see writeThrough) and returns; the
	// update event queues the template again, so Reconcile runs again
	// while it removed a claim.
	key, err := detector.ResourceItemKeyFunc(detector.ResourceItem{Obj: t})
	if err != nil {
		return err
	}
	stored, err := st.template(ctx, t)
	if err != nil {
		return err
	}
	var reconcileErr error
	for attempt := 0; attempt < 3; attempt++ {
		if util.GetLabelValue(stored.GetLabels(), util.ResourceTemplateClaimedByLabel) == "" && !carriesClaim(stored) {
			cwk := key.(keys.ClusterWideKeyWithConfig).ClusterWideKey
			pp, err := d.LookForMatchedPolicy(stored, cwk)
			if err != nil {
				return err
			}
			cpp, err := d.LookForMatchedClusterPolicy(stored, cwk)
			if err != nil {
				return err
			}
			if pp == nil && cpp == nil {
				return nil
			}
		}
		before := claimOf(stored)
		reconcileErr = d.Reconcile(key)
		if stored, err = st.template(ctx, t); err != nil {
			return err
		}
		if reconcileErr != nil || claimOf(stored) == before {
			break
		}
		if obj, _, err := r.getBinding(ctx, st.srv.client); err != nil || obj != nil {
			if err != nil {
				return err
			}
			break
		}
	}
	if by := util.GetLabelValue(stored.GetLabels(), util.ResourceTemplateClaimedByLabel); by != "" {
		r.res.Skipped = strPtr(fmt.Sprintf("claimed by %s (label %s): no policy may propagate it", by, util.ResourceTemplateClaimedByLabel))
		r.final = true
		return nil
	}
	r.res.Policy = claimedPolicy(stored)
	if reconcileErr != nil {
		// E.g. "waiting for dependent overrides": Karmada retries until the
		// override policies the policy depends on exist, which in a static
		// case is never.
		r.res.Skipped = strPtr("the resource detector does not bind it: " + reconcileErr.Error())
		r.final = true
		return nil
	}
	if r.res.Policy == nil {
		return fmt.Errorf("the detector reconciled without error but claimed no policy")
	}
	if obj, _, err := r.getBinding(ctx, st.srv.client); err != nil || obj == nil {
		// getAndApplyPolicy / getAndApplyClusterPolicy: the claimed policy
		// exists but no longer selects the template; the detector returns
		// without applying it, and nothing ever binds the template.
		r.res.Skipped = strPtr(fmt.Sprintf("claimed by %s, which does not select it: the resource detector leaves it alone",
			objectName(r.res.Policy.Kind, derefOr(r.res.Policy.Namespace), r.res.Policy.Name)))
		r.final = true
		return err
	}
	return nil
}

// carriesClaim tells whether the template carries a claim the detector
// honours (propagateResource): a PropagationPolicy's namespace and name
// annotations with its permanent-id label, or a ClusterPropagationPolicy's
// name annotation with its permanent-id label, all non-empty.
func carriesClaim(t *unstructured.Unstructured) bool {
	a, l := t.GetAnnotations(), t.GetLabels()
	pp := a[policyv1alpha1.PropagationPolicyNamespaceAnnotation] != "" && a[policyv1alpha1.PropagationPolicyNameAnnotation] != "" &&
		l[policyv1alpha1.PropagationPolicyPermanentIDLabel] != ""
	cpp := a[policyv1alpha1.ClusterPropagationPolicyAnnotation] != "" && l[policyv1alpha1.ClusterPropagationPolicyPermanentIDLabel] != ""
	return pp || cpp
}

// claimOf is the claim metadata of a template, as one comparable value.
func claimOf(t *unstructured.Unstructured) [5]string {
	a, l := t.GetAnnotations(), t.GetLabels()
	return [5]string{
		a[policyv1alpha1.PropagationPolicyNamespaceAnnotation], a[policyv1alpha1.PropagationPolicyNameAnnotation],
		l[policyv1alpha1.PropagationPolicyPermanentIDLabel],
		a[policyv1alpha1.ClusterPropagationPolicyAnnotation], l[policyv1alpha1.ClusterPropagationPolicyPermanentIDLabel],
	}
}

// template reads t as the case's API server holds it now.
func (st *caseState) template(ctx context.Context, t *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	stored := &unstructured.Unstructured{}
	stored.SetGroupVersionKind(t.GroupVersionKind())
	err := st.srv.client.Get(ctx, client.ObjectKey{Namespace: t.GetNamespace(), Name: t.GetName()}, stored)
	return stored, err
}

func derefOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// binding reads the template's binding, as a ResourceBinding or a
// ClusterResourceBinding; nil when there is none.
func (r *templateRun) getBinding(ctx context.Context, c client.Client) (client.Object, *workv1alpha2.ResourceBindingSpec, error) {
	var obj client.Object
	var spec *workv1alpha2.ResourceBindingSpec
	if r.namespaced() {
		rb := &workv1alpha2.ResourceBinding{}
		obj, spec = rb, &rb.Spec
	} else {
		crb := &workv1alpha2.ClusterResourceBinding{}
		obj, spec = crb, &crb.Spec
	}
	if err := c.Get(ctx, r.binding, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	return obj, spec, nil
}

// scheduleBinding is karmada-scheduler's pass over the binding the
// detector wrote (see schedule), with the template's previous schedule on
// it when the case has one (previous.go), and the patch it writes.
func (o *oracle) scheduleBinding(ctx context.Context, st *caseState, r *templateRun) error {
	if r.res.Policy == nil {
		return nil
	}
	obj, spec, err := r.getBinding(ctx, st.srv.client)
	if err != nil {
		return err
	}
	if obj == nil {
		return fmt.Errorf("the detector claimed it but wrote no binding %s", r.binding)
	}
	var status *workv1alpha2.ResourceBindingStatus
	switch b := obj.(type) {
	case *workv1alpha2.ResourceBinding:
		status = &b.Status
	case *workv1alpha2.ClusterResourceBinding:
		status = &b.Status
	}
	annotations := obj.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	if prev := st.previous[keyOf(r.res.Template)]; prev != nil {
		if err := recall(prev, annotations, spec, status); err != nil {
			return fmt.Errorf("previous binding: %w", err)
		}
		obj.SetAnnotations(annotations)
		if err := st.srv.client.Update(ctx, obj); err != nil {
			return fmt.Errorf("recording the previous schedule: %w", err)
		}
	}
	outcome := o.schedule(ctx, *spec, *status, annotations[util.PolicyPlacementAnnotation], st.fleet)
	r.applied, r.affinityName = annotations[util.PolicyPlacementAnnotation], status.SchedulerObservedAffinityName
	if outcome.skipped != "" {
		if len(spec.Clusters) > 0 {
			// Never scheduled again, but the binding controller still
			// writes the Works of the clusters it has.
			return nil
		}
		r.res.Skipped = strPtr("karmada-scheduler never schedules it: " + outcome.skipped)
		r.final = true
		return nil
	}
	if outcome.err != nil {
		r.res.ScheduleError = strPtr(outcome.err.Error())
	}
	if outcome.affinityName != status.SchedulerObservedAffinityName {
		// patchBindingStatusWithAffinityName: only after a success.
		status.SchedulerObservedAffinityName = outcome.affinityName
		r.affinityName = outcome.affinityName
		if err := st.srv.client.Update(ctx, obj); err != nil {
			return fmt.Errorf("recording the observed affinity: %w", err)
		}
	}
	if !outcome.patch {
		return nil
	}
	// patchScheduleResultFor{,Cluster}ResourceBinding: the result and the
	// applied-placement annotation, nothing else.
	annotations[util.PolicyPlacementAnnotation] = outcome.placement
	obj.SetAnnotations(annotations)
	spec.Clusters = outcome.clusters
	r.applied = outcome.placement
	if err := st.srv.client.Update(ctx, obj); err != nil {
		return fmt.Errorf("recording the schedule: %w", err)
	}
	return nil
}

// distributeDependencies runs the dependencies distributor (a controller
// karmada-controller-manager starts with PropagateDeps, on by default) on a
// scheduled ResourceBinding whose policy has propagateDeps: it writes or
// updates the bindings of what the workload depends on (per the resource
// interpreter's InterpretDependency), with this binding's clusters in their
// spec.requiredBy.
//
// The distributor goes on with the other dependencies when one fails (a
// reference with neither a name nor a selector, such as an Ingress TLS
// entry without a secretName; a kind the API server does not serve) and
// returns the error, on which Karmada requeues the binding and does the
// same again: what it attached stands, so the error is the template's
// outcome, not the oracle's failure.
func (o *oracle) distributeDependencies(ctx context.Context, st *caseState, r *templateRun) error {
	if r.res.Policy == nil || !r.namespaced() {
		return nil
	}
	obj, spec, err := r.getBinding(ctx, st.srv.client)
	if err != nil || obj == nil {
		return err
	}
	// A binding whose policy stopped propagating dependencies still has the
	// distributor's finalizer: the distributor then detaches it from what
	// it attached (handleIndependentBindingDeletion).
	if !spec.PropagateDeps && !controllerutil.ContainsFinalizer(obj, util.BindingDependenciesDistributorFinalizer) {
		return nil
	}
	if err := reconcile(func() (controllerruntime.Result, error) {
		return st.distributor.Reconcile(ctx, controllerruntime.Request{NamespacedName: r.binding})
	}); err != nil {
		r.res.DependenciesError = strPtr(err.Error())
	}
	return nil
}

// reconcile runs one reconcile as controller-runtime's controller does
// (RecoverPanic, on by default): a panic in Karmada's code, such as its
// override manager's on an image predicate past the last container, is
// that reconcile's error, so the binding gets no Work, while the other
// templates of the case go on.
func reconcile(run func() (controllerruntime.Result, error)) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v [recovered]", p)
		}
	}()
	_, err = run()
	return err
}

// writeWorks runs the binding controller once on the template's binding,
// if it has one (its own, or one the distributor attached).
func (o *oracle) writeWorks(ctx context.Context, st *caseState, r *templateRun) error {
	obj, _, err := r.getBinding(ctx, st.srv.client)
	if err != nil || obj == nil {
		return err
	}
	req := controllerruntime.Request{NamespacedName: r.binding}
	err = reconcile(func() (controllerruntime.Result, error) {
		if r.namespaced() {
			return st.rbc.Reconcile(ctx, req)
		}
		return st.crbc.Reconcile(ctx, req)
	})
	if err != nil {
		// ensureWork goes on with the other clusters when one fails, so
		// some Works may exist; the error is the template's outcome, not
		// the oracle's failure.
		r.res.SyncError = strPtr(err.Error())
	}
	return nil
}

// collect reads what the binding ends up with, and its Works.
func (o *oracle) collect(ctx context.Context, st *caseState, r *templateRun) error {
	obj, spec, err := r.getBinding(ctx, st.srv.client)
	if err != nil || obj == nil {
		return err
	}
	r.res.Workload = spec.IsWorkload()
	if r.affinityName != "" {
		r.res.AffinityName = strPtr(r.affinityName)
	}
	if r.applied != "" {
		r.res.Placement = json.RawMessage(r.applied)
	}
	scheduled := map[string]bool{}
	for _, tc := range spec.Clusters {
		r.res.Clusters = append(r.res.Clusters, targetCluster{Name: tc.Name, Replicas: tc.Replicas})
		scheduled[tc.Name] = true
	}
	for _, snapshot := range spec.RequiredBy {
		for _, tc := range snapshot.Clusters {
			if !scheduled[tc.Name] {
				scheduled[tc.Name] = true
				r.res.RequiredBy = append(r.res.RequiredBy, targetCluster{Name: tc.Name, Replicas: tc.Replicas})
			}
		}
	}
	idLabel := workv1alpha2.ResourceBindingPermanentIDLabel
	if !r.namespaced() {
		idLabel = workv1alpha2.ClusterResourceBindingPermanentIDLabel
	}
	works := &workv1alpha1.WorkList{}
	selector := labels.SelectorFromSet(labels.Set{idLabel: obj.GetLabels()[idLabel]})
	if err := st.srv.client.List(ctx, works, client.MatchingLabelsSelector{Selector: selector}); err != nil {
		return err
	}
	for i := range works.Items {
		w := &works.Items[i]
		if !w.DeletionTimestamp.IsZero() {
			// An orphan the binding controller deleted: the execution
			// controller removes what it applied on the member, then its
			// finalizer, and the Work is gone.
			if err := finishDeletion(ctx, st.srv.client, w); err != nil {
				return err
			}
			continue
		}
		cluster, err := names.GetClusterName(w.Namespace)
		if err != nil {
			return err
		}
		if len(w.Spec.Workload.Manifests) == 0 {
			return fmt.Errorf("work %s/%s has no manifest", w.Namespace, w.Name)
		}
		r.res.Works = append(r.res.Works, workOut{
			Cluster: cluster, Namespace: w.Namespace, Name: w.Name,
			Manifest:                    json.RawMessage(w.Spec.Workload.Manifests[0].Raw),
			SuspendDispatching:          ptr.Deref(w.Spec.SuspendDispatching, false),
			PreserveResourcesOnDeletion: ptr.Deref(w.Spec.PreserveResourcesOnDeletion, false),
		})
	}
	sort.Slice(r.res.Works, func(i, j int) bool { return r.res.Works[i].Cluster < r.res.Works[j].Cluster })
	return nil
}

// finishDeletion lets an object being deleted go, as the controller that
// holds its finalizers does once it cleaned up.
func finishDeletion(ctx context.Context, c client.Client, obj client.Object) error {
	obj.SetFinalizers(nil)
	if err := c.Update(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("%s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
	}
	return nil
}

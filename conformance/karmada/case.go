package main

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	controllerruntime "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/karmada-io/karmada/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/karmada/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
	"github.com/karmada-io/karmada/pkg/controllers/binding"
	"github.com/karmada-io/karmada/pkg/detector"
	"github.com/karmada-io/karmada/pkg/util"
	"github.com/karmada-io/karmada/pkg/util/fedinformer/keys"
	"github.com/karmada-io/karmada/pkg/util/names"
	"github.com/karmada-io/karmada/pkg/util/overridemanager"
)

// run answers one case. A panic or an unexpected error from Karmada's code
// becomes answer.Error, so that one bad case does not stop a --jsonl run.
func (o *oracle) run(ctx context.Context, raw []byte) (ans *answer) {
	defer func() {
		if p := recover(); p != nil {
			ans = &answer{Rejected: []rejection{}, Results: []result{}, Error: fmt.Sprintf("panic: %v\n%s", p, debug.Stack())}
		}
	}()
	ans, err := o.answer(ctx, raw)
	if err != nil {
		return &answer{Rejected: []rejection{}, Results: []result{}, Error: err.Error()}
	}
	return ans
}

// caseState is one case loaded into its API server.
type caseState struct {
	srv       *apiServer
	templates []*unstructured.Unstructured
	detector  *detector.ResourceDetector
	rbc       *binding.ResourceBindingController
	crbc      *binding.ClusterResourceBindingController
}

func (o *oracle) answer(ctx context.Context, raw []byte) (*answer, error) {
	var in caseInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf("case: %w", err)
	}
	ans := &answer{Rejected: []rejection{}, Results: []result{}}
	st, err := o.load(ctx, &in, ans)
	if err != nil {
		return nil, err
	}
	for _, t := range st.templates {
		r, err := o.propagate(ctx, st, t)
		if err != nil {
			return nil, fmt.Errorf("%s %s/%s: %w", t.GetKind(), t.GetNamespace(), t.GetName(), err)
		}
		ans.Results = append(ans.Results, r)
	}
	return ans, nil
}

// decode reads an object as a dynamic informer does
// (unstructured.Unstructured.UnmarshalJSON: integers stay int64).
func decode(raw json.RawMessage) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	return u, nil
}

// load stores a case in a fresh API server, as if every object had been
// created through the Karmada API server before any controller ran:
// Karmada's own objects pass the API server's defaulting and the
// karmada-webhook admission (a refused one is reported and left out), the
// templates get the uid and generation the API server would give them.
func (o *oracle) load(ctx context.Context, in *caseInput, ans *answer) (*caseState, error) {
	var templates []*unstructured.Unstructured
	templateKinds := map[schema.GroupVersionKind]bool{}
	for i, raw := range in.Templates {
		t, err := decode(raw)
		if err != nil {
			return nil, fmt.Errorf("templates[%d]: %w", i, err)
		}
		gvk := t.GroupVersionKind()
		isNamespaced := namespaced(gvk, t.GetNamespace() != "")
		if !isNamespaced {
			t.SetNamespace("")
		}
		templateKinds[gvk] = isNamespaced
		templates = append(templates, t)
	}

	srv := newAPIServer(o.scheme, newRESTMapper(templateKinds), o.hooks)
	c := srv.client

	// Clusters are served by karmada-aggregated-apiserver; their status is
	// what the cluster-status controller would report, taken as given.
	clusterObjs := make([]any, 0, len(in.Clusters))
	for i, raw := range in.Clusters {
		cluster := &clusterv1alpha1.Cluster{}
		if err := json.Unmarshal(raw, cluster); err != nil {
			return nil, fmt.Errorf("clusters[%d]: %w", i, err)
		}
		if err := c.Create(ctx, cluster); err != nil {
			return nil, fmt.Errorf("clusters[%d]: %w", i, err)
		}
		clusterObjs = append(clusterObjs, cluster.DeepCopy())
	}

	// Customizations first: the RIC validating webhook compares each with
	// those already admitted. Then the policies.
	for _, group := range [][]json.RawMessage{in.Customizations, in.Policies, in.Overrides} {
		for _, raw := range group {
			if err := o.create(ctx, srv, raw, ans); err != nil {
				return nil, err
			}
		}
	}

	for _, t := range templates {
		t.SetUID(types.UID(templateUID(t.GetAPIVersion(), t.GetKind(), t.GetNamespace(), t.GetName())))
		if tracksGeneration(t.GroupVersionKind()) {
			t.SetGeneration(1)
		}
		stored := t.DeepCopy()
		if err := c.Create(ctx, stored); err != nil {
			return nil, fmt.Errorf("template %s %s/%s: %w", t.GetKind(), t.GetNamespace(), t.GetName(), err)
		}
	}

	// Point the process-wide pieces at this case.
	o.informers.switchTo(srv)
	if err := o.clusters.Replace(clusterObjs, ""); err != nil {
		return nil, err
	}

	overrides := overridemanager.New(c, o.recorder)
	st := &caseState{
		srv:       srv,
		templates: templates,
		// The fields karmada-controller-manager sets that the reconcile path
		// reads (cmd/controller-manager/app/controllermanager.go).
		detector: &detector.ResourceDetector{
			Client:                       c,
			DynamicClient:                o.dynamic,
			InformerManager:              o.informers,
			RESTMapper:                   srv.mapper,
			SkippedResourceConfig:        o.skippedResources,
			SkippedPropagatingNamespaces: o.skippedNamespaces,
			ResourceInterpreter:          o.interpreter,
			EventRecorder:                o.recorder,
		},
		rbc: &binding.ResourceBindingController{
			Client:              c,
			DynamicClient:       o.dynamic,
			InformerManager:     o.informers,
			EventRecorder:       o.recorder,
			RESTMapper:          srv.mapper,
			OverrideManager:     overrides,
			ResourceInterpreter: o.interpreter,
		},
		crbc: &binding.ClusterResourceBindingController{
			Client:              c,
			DynamicClient:       o.dynamic,
			InformerManager:     o.informers,
			EventRecorder:       o.recorder,
			RESTMapper:          srv.mapper,
			OverrideManager:     overrides,
			ResourceInterpreter: o.interpreter,
		},
	}
	return st, nil
}

// create admits one of Karmada's own objects and stores it, or records why
// the API server refuses it.
func (o *oracle) create(ctx context.Context, srv *apiServer, raw json.RawMessage, ans *answer) error {
	u, err := decode(raw)
	if err != nil {
		return err
	}
	gvk := u.GroupVersionKind()
	admitted, reason, err := o.hooks.admit(ctx, srv.client, gvk, u.Object)
	if err != nil {
		return fmt.Errorf("admitting %s %s/%s: %w", gvk.Kind, u.GetNamespace(), u.GetName(), err)
	}
	if reason != "" {
		ans.Rejected = append(ans.Rejected, rejection{Object: objectName(gvk.Kind, u.GetNamespace(), u.GetName()), Reason: reason})
		return nil
	}
	typed, err := o.scheme.New(gvk)
	if err != nil {
		return fmt.Errorf("%s is not a Karmada kind the oracle knows: %w", gvk, err)
	}
	data, err := json.Marshal(admitted)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, typed); err != nil {
		return err
	}
	obj, ok := typed.(client.Object)
	if !ok {
		return fmt.Errorf("%s is not an object", gvk)
	}
	return srv.client.Create(ctx, obj)
}

func objectName(kind, namespace, name string) string {
	if namespace == "" {
		return kind + "/" + name
	}
	return kind + "/" + namespace + "/" + name
}

// propagate is what the control plane does with one template: the resource
// detector claims it for a policy and writes its binding, the scheduler
// places the binding, the binding controller writes the Works.
func (o *oracle) propagate(ctx context.Context, st *caseState, t *unstructured.Unstructured) (result, error) {
	r := result{
		Template: templateRef{APIVersion: t.GetAPIVersion(), Kind: t.GetKind(), Namespace: optional(t.GetNamespace()), Name: t.GetName()},
		Clusters: []targetCluster{},
		Works:    []workOut{},
	}
	d := st.detector

	// What never reaches the detector's queue: the informer event filter
	// (fedinformer.NewFilteringHandlerOnAllEvents(d.EventFilter, ...)), and
	// kinds whose informer is never started (discoverResources skips
	// d.gvrDisabled; the check is unexported, its three calls are the same
	// exported SkippedResourceConfig methods).
	if !d.EventFilter(t) {
		r.Skipped = strPtr(fmt.Sprintf("namespace %q is never propagated (Karmada's reserved namespaces and --skipped-propagating-namespaces ^kube-.*$)", t.GetNamespace()))
		return r, nil
	}
	gvk := t.GroupVersionKind()
	if o.skippedResources.GroupVersionDisabled(gvk.GroupVersion()) || o.skippedResources.GroupDisabled(gvk.Group) ||
		o.skippedResources.GroupVersionKindDisabled(gvk) {
		r.Skipped = strPtr(fmt.Sprintf("%s is never propagated (util.NewSkippedResourceConfig)", gvk))
		return r, nil
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
	// One guard: with no matching policy at all propagateResource adds the
	// template to the detector's waiting list, a map that only
	// ResourceDetector.Start allocates. The same two exported look-ups it
	// would make tell that case apart first.
	key, err := detector.ResourceItemKeyFunc(detector.ResourceItem{Obj: t})
	if err != nil {
		return r, err
	}
	cwk := key.(keys.ClusterWideKeyWithConfig).ClusterWideKey
	if util.GetLabelValue(t.GetLabels(), util.ResourceTemplateClaimedByLabel) == "" {
		pp, err := d.LookForMatchedPolicy(t, cwk)
		if err != nil {
			return r, err
		}
		cpp, err := d.LookForMatchedClusterPolicy(t, cwk)
		if err != nil {
			return r, err
		}
		if pp == nil && cpp == nil {
			return r, nil
		}
	}
	reconcileErr := d.Reconcile(key)

	stored := &unstructured.Unstructured{}
	stored.SetGroupVersionKind(gvk)
	if err := st.srv.client.Get(ctx, client.ObjectKey{Namespace: t.GetNamespace(), Name: t.GetName()}, stored); err != nil {
		return r, err
	}
	if util.GetLabelValue(stored.GetLabels(), util.ResourceTemplateClaimedByLabel) != "" {
		r.Skipped = strPtr(fmt.Sprintf("claimed by %s (label %s): no policy may propagate it",
			stored.GetLabels()[util.ResourceTemplateClaimedByLabel], util.ResourceTemplateClaimedByLabel))
		return r, nil
	}
	r.Policy = claimedPolicy(stored)
	if reconcileErr != nil {
		// E.g. "waiting for dependent overrides": Karmada retries until the
		// override policies the policy depends on exist, which in a static
		// case is never.
		r.Skipped = strPtr("the resource detector does not bind it: " + reconcileErr.Error())
		return r, nil
	}
	if r.Policy == nil {
		return r, fmt.Errorf("the detector reconciled without error but claimed no policy")
	}

	bindingName := names.GenerateBindingName(t.GetKind(), t.GetName())
	var (
		spec      workv1alpha2.ResourceBindingSpec
		status    workv1alpha2.ResourceBindingStatus
		bindingID string
		idLabel   string
	)
	rb := &workv1alpha2.ResourceBinding{}
	crb := &workv1alpha2.ClusterResourceBinding{}
	namespaced := t.GetNamespace() != ""
	if namespaced {
		if err := st.srv.client.Get(ctx, client.ObjectKey{Namespace: t.GetNamespace(), Name: bindingName}, rb); err != nil {
			return r, fmt.Errorf("binding: %w", err)
		}
		spec, status = rb.Spec, rb.Status
		idLabel = workv1alpha2.ResourceBindingPermanentIDLabel
		bindingID = rb.Labels[idLabel]
	} else {
		if err := st.srv.client.Get(ctx, client.ObjectKey{Name: bindingName}, crb); err != nil {
			return r, fmt.Errorf("binding: %w", err)
		}
		spec, status = crb.Spec, crb.Status
		idLabel = workv1alpha2.ClusterResourceBindingPermanentIDLabel
		bindingID = crb.Labels[idLabel]
	}

	outcome := o.schedule(ctx, spec, status)
	if outcome.skipped != "" {
		r.Skipped = strPtr("karmada-scheduler never schedules it: " + outcome.skipped)
		return r, nil
	}
	if outcome.err != nil {
		r.ScheduleError = strPtr(outcome.err.Error())
	}
	if outcome.patch {
		// patchScheduleResultFor{,Cluster}ResourceBinding: the result and the
		// applied-placement annotation, nothing else.
		var obj client.Object = rb
		if !namespaced {
			obj = crb
		}
		annotations := obj.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[util.PolicyPlacementAnnotation] = outcome.placement
		obj.SetAnnotations(annotations)
		if namespaced {
			rb.Spec.Clusters = outcome.clusters
		} else {
			crb.Spec.Clusters = outcome.clusters
		}
		if err := st.srv.client.Update(ctx, obj); err != nil {
			return r, fmt.Errorf("recording the schedule: %w", err)
		}
	}

	// The binding controller, once, on the scheduled binding.
	req := controllerruntime.Request{NamespacedName: types.NamespacedName{Namespace: t.GetNamespace(), Name: bindingName}}
	if namespaced {
		_, err = st.rbc.Reconcile(ctx, req)
	} else {
		_, err = st.crbc.Reconcile(ctx, req)
	}
	if err != nil {
		return r, fmt.Errorf("binding controller: %w", err)
	}

	// What the binding ends up with, and its Works.
	if namespaced {
		err = st.srv.client.Get(ctx, req.NamespacedName, rb)
		spec = rb.Spec
	} else {
		err = st.srv.client.Get(ctx, req.NamespacedName, crb)
		spec = crb.Spec
	}
	if err != nil {
		return r, err
	}
	r.Workload = spec.IsWorkload()
	for _, tc := range spec.Clusters {
		r.Clusters = append(r.Clusters, targetCluster{Name: tc.Name, Replicas: tc.Replicas})
	}
	works := &workv1alpha1.WorkList{}
	selector := labels.SelectorFromSet(labels.Set{idLabel: bindingID})
	if err := st.srv.client.List(ctx, works, client.MatchingLabelsSelector{Selector: selector}); err != nil {
		return r, err
	}
	for _, w := range works.Items {
		cluster, err := names.GetClusterName(w.Namespace)
		if err != nil {
			return r, err
		}
		if len(w.Spec.Workload.Manifests) == 0 {
			return r, fmt.Errorf("work %s/%s has no manifest", w.Namespace, w.Name)
		}
		r.Works = append(r.Works, workOut{Cluster: cluster, Namespace: w.Namespace, Name: w.Name, Manifest: json.RawMessage(w.Spec.Workload.Manifests[0].Raw)})
	}
	sort.Slice(r.Works, func(i, j int) bool { return r.Works[i].Cluster < r.Works[j].Cluster })
	return r, nil
}

// claimedPolicy reads the claim the detector wrote on the template
// (detector.AddPPClaimMetadata / AddCPPClaimMetadata).
func claimedPolicy(t *unstructured.Unstructured) *policyRef {
	a := t.GetAnnotations()
	if name := a[policyv1alpha1.PropagationPolicyNameAnnotation]; name != "" {
		return &policyRef{Kind: "PropagationPolicy", Namespace: optional(a[policyv1alpha1.PropagationPolicyNamespaceAnnotation]), Name: name}
	}
	if name := a[policyv1alpha1.ClusterPropagationPolicyAnnotation]; name != "" {
		return &policyRef{Kind: "ClusterPropagationPolicy", Name: name}
	}
	return nil
}

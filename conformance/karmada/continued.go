package main

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	controllerruntime "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	clusterv1alpha1 "github.com/karmada-io/karmada/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
	"github.com/karmada-io/karmada/pkg/detector"
	"github.com/karmada-io/karmada/pkg/util"
	"github.com/karmada-io/karmada/pkg/util/fedinformer/keys"
	"github.com/karmada-io/karmada/pkg/util/names"
)

// A case with `"continues": true` is the control plane of the case answered
// just before it, some time later: the user applied a changed repository
// (as `kubectl apply` does, so what Karmada wrote on an object stays: a
// template's claim, a policy's permanent id and finalizer), and the
// controllers settled again. Nothing is rebuilt: the bindings the detector
// wrote, their schedules, the attached bindings of dependencies and the
// Works stay in the API server, so a second render is compared with what
// Karmada's own update paths do (the detector's CreateOrUpdate of an
// existing binding, the policy controller's reaction to a changed or
// deleted policy, the dependencies distributor's update of attached
// bindings, the binding controller's removal of orphan Works), rather than
// with a first schedule given the previous one's result (previous.go).
//
// Per object kind, what the user's change does in a control plane:
//   - a Cluster is updated as the registry updates it (updateCluster); one
//     the registry refuses keeps its old version; one that left is deleted
//     with its execution namespace, the Works in it included (the cluster
//     controller removes the execution space before the Cluster goes);
//   - Karmada's objects (customizations, policies, overrides) pass the
//     admission webhooks as an UPDATE; a changed or deleted
//     (Cluster)PropagationPolicy then goes through the detector's policy
//     reconcile (ReconcilePropagationPolicy, ReconcileClusterPropagationPolicy),
//     as its informer event would queue it;
//   - a template is stored again (the API server stage) and updated, its
//     generation raised when anything but its metadata changed; one that
//     left the repository is deleted, and its binding with it
//     (removeTemplates).
//
// The detector's queue is not emulated: every template is reconciled
// afterwards anyway (propagate), which is what the queued keys would cause.
// A template kind the first case did not have is not emulated and fails the
// case.

// advance applies a continuing case to the control plane prev left.
func (o *oracle) advance(ctx context.Context, prev *caseState, in *caseInput, ans *answer) (*caseState, error) {
	if len(in.Bindings) > 0 {
		return nil, fmt.Errorf("a case that continues another has its bindings in the control plane: give it no bindings")
	}
	st := *prev
	st.input, st.previous, st.refused = in, nil, map[int]string{}
	if in.ClustersByName {
		if err := bindingClustersByName(ctx, st.srv.client); err != nil {
			return nil, err
		}
	}

	fleet, clusterObjs, err := o.advanceClusters(ctx, prev.srv.client, in, ans)
	if err != nil {
		return nil, err
	}
	st.fleet = fleet

	groups := [][2][]json.RawMessage{
		{prev.input.Customizations, in.Customizations},
		{prev.input.Policies, in.Policies},
		{prev.input.Overrides, in.Overrides},
	}
	var policies []policyChange
	for _, g := range groups {
		changed, err := o.advanceObjects(ctx, st.srv, g[0], g[1], ans)
		if err != nil {
			return nil, err
		}
		policies = append(policies, changed...)
	}
	if err := o.advanceTemplates(ctx, &st, prev, in, ans); err != nil {
		return nil, err
	}

	o.informers.notify(st.srv, customizationChanges(prev.input.Customizations, in.Customizations))
	if err := o.clusters.Replace(clusterObjs, ""); err != nil {
		return nil, err
	}
	for _, p := range policies {
		if err := reconcilePolicy(&st, p); err != nil {
			return nil, err
		}
	}
	if err := o.removeTemplates(ctx, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// bindingClustersByName puts every binding's spec.clusters in name order.
func bindingClustersByName(ctx context.Context, c client.Client) error {
	byName := func(clusters []workv1alpha2.TargetCluster) {
		sort.SliceStable(clusters, func(i, j int) bool { return clusters[i].Name < clusters[j].Name })
	}
	rbs := &workv1alpha2.ResourceBindingList{}
	if err := c.List(ctx, rbs); err != nil {
		return err
	}
	for i := range rbs.Items {
		byName(rbs.Items[i].Spec.Clusters)
		if err := c.Update(ctx, &rbs.Items[i]); err != nil {
			return err
		}
	}
	crbs := &workv1alpha2.ClusterResourceBindingList{}
	if err := c.List(ctx, crbs); err != nil {
		return err
	}
	for i := range crbs.Items {
		byName(crbs.Items[i].Spec.Clusters)
		if err := c.Update(ctx, &crbs.Items[i]); err != nil {
			return err
		}
	}
	return nil
}

// advanceClusters updates, creates and deletes Clusters; it returns the
// fleet and the scheduler's cluster list.
func (o *oracle) advanceClusters(ctx context.Context, c client.Client, in *caseInput, ans *answer) (map[string]bool, []any, error) {
	list := &clusterv1alpha1.ClusterList{}
	if err := c.List(ctx, list); err != nil {
		return nil, nil, err
	}
	current := map[string]*clusterv1alpha1.Cluster{}
	for i := range list.Items {
		current[list.Items[i].Name] = &list.Items[i]
	}
	fleet := map[string]bool{}
	var objs []any
	for i, raw := range in.Clusters {
		cluster := &clusterv1alpha1.Cluster{}
		if err := json.Unmarshal(raw, cluster); err != nil {
			return nil, nil, fmt.Errorf("clusters[%d]: %w", i, err)
		}
		old := current[cluster.Name]
		store := storeCluster
		if old != nil {
			store = func(c *clusterv1alpha1.Cluster) (*clusterv1alpha1.Cluster, string, error) {
				return updateCluster(c, old)
			}
		}
		stored, reason, err := store(cluster)
		if err != nil {
			return nil, nil, fmt.Errorf("clusters[%d]: %w", i, err)
		}
		switch {
		case reason != "":
			ans.Rejected = append(ans.Rejected, rejection{Object: objectName("Cluster", "", cluster.Name), Reason: reason})
			if old == nil {
				continue
			}
			stored = old
		case old != nil:
			if err := c.Update(ctx, stored); err != nil {
				return nil, nil, fmt.Errorf("clusters[%d]: %w", i, err)
			}
		default:
			if err := c.Create(ctx, stored); err != nil {
				return nil, nil, fmt.Errorf("clusters[%d]: %w", i, err)
			}
		}
		fleet[cluster.Name] = true
		objs = append(objs, stored.DeepCopy())
	}
	gone := make([]string, 0)
	for name := range current {
		if !fleet[name] {
			gone = append(gone, name)
		}
	}
	sort.Strings(gone)
	for _, name := range gone {
		if err := removeCluster(ctx, c, current[name]); err != nil {
			return nil, nil, err
		}
	}
	return fleet, objs, nil
}

// removeCluster deletes a Cluster as the cluster controller lets it go:
// its execution namespace first, with the Works in it.
func removeCluster(ctx context.Context, c client.Client, cluster *clusterv1alpha1.Cluster) error {
	works := &workv1alpha1.WorkList{}
	if err := c.List(ctx, works, client.InNamespace(names.GenerateExecutionSpaceName(cluster.Name))); err != nil {
		return err
	}
	for i := range works.Items {
		w := &works.Items[i]
		if err := c.Delete(ctx, w); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("work %s/%s: %w", w.Namespace, w.Name, err)
		}
		held := &workv1alpha1.Work{}
		err := c.Get(ctx, client.ObjectKeyFromObject(w), held)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		if err := finishDeletion(ctx, c, held); err != nil {
			return fmt.Errorf("work %w", err)
		}
	}
	return c.Delete(ctx, cluster)
}

// objectKey names one of a case's objects.
type objectKey struct {
	apiVersion, kind, namespace, name string
}

func keyOfObject(u *unstructured.Unstructured) objectKey {
	return objectKey{u.GetAPIVersion(), u.GetKind(), u.GetNamespace(), u.GetName()}
}

// advanceObjects applies one group of Karmada's objects: before as the
// previous case wrote it, after as this one does. It returns the
// (Cluster)PropagationPolicies it changed or deleted.
func (o *oracle) advanceObjects(ctx context.Context, srv *apiServer, before, after []json.RawMessage, ans *answer) ([]policyChange, error) {
	written := map[objectKey]*unstructured.Unstructured{}
	for _, raw := range before {
		u, err := decode(raw)
		if err != nil {
			return nil, err
		}
		written[keyOfObject(u)] = u
	}
	var policies []policyChange
	kept := map[objectKey]bool{}
	for _, raw := range after {
		u, err := decode(raw)
		if err != nil {
			return nil, err
		}
		k := keyOfObject(u)
		kept[k] = true
		stored := &unstructured.Unstructured{}
		stored.SetGroupVersionKind(u.GroupVersionKind())
		err = srv.client.Get(ctx, client.ObjectKey{Namespace: u.GetNamespace(), Name: u.GetName()}, stored)
		if apierrors.IsNotFound(err) {
			obj, err := o.admitted(ctx, srv, u, nil, ans)
			if err != nil || obj == nil {
				return nil, err
			}
			if err := srv.client.Create(ctx, obj); err != nil {
				return nil, err
			}
			policies = appendPolicy(policies, u.GetKind(), obj)
			continue
		}
		if err != nil {
			return nil, err
		}
		keepControlPlaneMetadata(u, written[k], stored)
		obj, err := o.admitted(ctx, srv, u, stored, ans)
		if err != nil || obj == nil {
			return nil, err
		}
		next, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, err
		}
		sameSpec := reflect.DeepEqual(stored.Object["spec"], next["spec"])
		if sameSpec && reflect.DeepEqual(stored.GetLabels(), obj.GetLabels()) &&
			reflect.DeepEqual(stored.GetAnnotations(), obj.GetAnnotations()) {
			continue // applying what the API server holds changes nothing
		}
		if !sameSpec {
			obj.SetGeneration(stored.GetGeneration() + 1)
		}
		if err := srv.client.Update(ctx, obj); err != nil {
			return nil, err
		}
		policies = appendPolicy(policies, u.GetKind(), obj)
	}
	gone := make([]objectKey, 0)
	for k := range written {
		if !kept[k] {
			gone = append(gone, k)
		}
	}
	sort.Slice(gone, func(i, j int) bool { return fmt.Sprint(gone[i]) < fmt.Sprint(gone[j]) })
	for _, k := range gone {
		stored := &unstructured.Unstructured{}
		stored.SetGroupVersionKind(written[k].GroupVersionKind())
		err := srv.client.Get(ctx, client.ObjectKey{Namespace: k.namespace, Name: k.name}, stored)
		if apierrors.IsNotFound(err) {
			continue // the API server refused it in the previous case
		}
		if err != nil {
			return nil, err
		}
		if err := srv.client.Delete(ctx, stored); err != nil {
			return nil, err
		}
		policies = appendPolicy(policies, k.kind, stored)
	}
	return policies, nil
}

// appendPolicy adds obj, of kind, when it is a policy the detector
// reconciles (a typed object the fake client returns has no kind).
func appendPolicy(policies []policyChange, kind string, obj client.Object) []policyChange {
	switch kind {
	case "PropagationPolicy", "ClusterPropagationPolicy":
		return append(policies, policyChange{kind, obj.GetNamespace(), obj.GetName()})
	}
	return policies
}

// admitted is an object through admission, typed; nil when a webhook
// refuses it (the refusal is recorded in ans).
func (o *oracle) admitted(ctx context.Context, srv *apiServer, u, old *unstructured.Unstructured, ans *answer) (client.Object, error) {
	gvk := u.GroupVersionKind()
	var oldObj map[string]any
	if old != nil {
		oldObj = old.Object
	}
	admitted, reason, err := o.hooks.admit(ctx, srv.client, gvk, u.Object, oldObj)
	if err != nil {
		return nil, fmt.Errorf("admitting %s %s/%s: %w", gvk.Kind, u.GetNamespace(), u.GetName(), err)
	}
	if reason != "" {
		ans.Rejected = append(ans.Rejected, rejection{Object: objectName(gvk.Kind, u.GetNamespace(), u.GetName()), Reason: reason})
		return nil, nil
	}
	typed, err := o.scheme.New(gvk)
	if err != nil {
		return nil, fmt.Errorf("%s is not a Karmada kind the oracle knows: %w", gvk, err)
	}
	data, err := json.Marshal(admitted)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, typed); err != nil {
		return nil, err
	}
	obj, ok := typed.(client.Object)
	if !ok {
		return nil, fmt.Errorf("%s is not an object", gvk)
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return obj, nil
}

// keepControlPlaneMetadata gives next, the object the user applies, what
// the control plane holds of it beyond what the user wrote before
// (written, nil for none): the labels and annotations Karmada added (a
// claim, a permanent id) unless next sets them, the finalizers, and the
// identity and version the update needs.
func keepControlPlaneMetadata(next, written, stored *unstructured.Unstructured) {
	keep := func(now, before, held map[string]string) map[string]string {
		for k, v := range held {
			if _, user := before[k]; user {
				continue
			}
			if _, set := now[k]; !set {
				if now == nil {
					now = map[string]string{}
				}
				now[k] = v
			}
		}
		return now
	}
	var labelsBefore, annotationsBefore map[string]string
	if written != nil {
		labelsBefore, annotationsBefore = written.GetLabels(), written.GetAnnotations()
	}
	if l := keep(next.GetLabels(), labelsBefore, stored.GetLabels()); len(l) > 0 {
		next.SetLabels(l)
	}
	if a := keep(next.GetAnnotations(), annotationsBefore, stored.GetAnnotations()); len(a) > 0 {
		next.SetAnnotations(a)
	}
	next.SetFinalizers(stored.GetFinalizers())
	next.SetUID(stored.GetUID())
	next.SetResourceVersion(stored.GetResourceVersion())
	next.SetCreationTimestamp(stored.GetCreationTimestamp())
	next.SetGeneration(stored.GetGeneration())
}

// advanceTemplates stores this case's templates over the previous ones.
func (o *oracle) advanceTemplates(ctx context.Context, st, prev *caseState, in *caseInput, ans *answer) error {
	written := map[objectKey]*unstructured.Unstructured{}
	for _, t := range prev.templates {
		written[keyOfObject(t)] = t
	}
	kept := map[objectKey]bool{}
	st.templates = nil
	c := st.srv.client
	for i, raw := range in.Templates {
		t, err := decode(raw)
		if err != nil {
			return fmt.Errorf("templates[%d]: %w", i, err)
		}
		gvk := t.GroupVersionKind()
		isNamespaced, known := st.kinds[gvk]
		if !known {
			return fmt.Errorf("templates[%d]: a continuing case cannot bring a kind (%s) the case before it did not have", i, gvk)
		}
		if !isNamespaced {
			t.SetNamespace("")
		}
		k := keyOfObject(t)
		kept[k] = true
		st.templates = append(st.templates, t)
		if t.GetResourceVersion() != "" {
			st.refuse(ans, len(st.templates)-1, t, "resourceVersion should not be set on objects to be created")
			continue
		}
		stored, err := storeTemplate(t)
		if err != nil {
			st.refuse(ans, len(st.templates)-1, t, err.Error())
			continue
		}
		*t = *stored
		current, err := st.template(ctx, t)
		if apierrors.IsNotFound(err) {
			t.SetUID(types.UID(templateUID(t.GetAPIVersion(), t.GetKind(), t.GetNamespace(), t.GetName())))
			if tracksGeneration(gvk) {
				t.SetGeneration(1)
			}
			if err := c.Create(ctx, t.DeepCopy()); err != nil {
				return fmt.Errorf("template %s %s/%s: %w", t.GetKind(), t.GetNamespace(), t.GetName(), err)
			}
			continue
		}
		if err != nil {
			return err
		}
		next := t.DeepCopy()
		keepControlPlaneMetadata(next, written[k], current)
		same := sameBeyondMetadata(next, current)
		if same && reflect.DeepEqual(next.GetLabels(), current.GetLabels()) &&
			reflect.DeepEqual(next.GetAnnotations(), current.GetAnnotations()) {
			t.SetUID(current.GetUID())
			continue
		}
		if tracksGeneration(gvk) && !same {
			next.SetGeneration(current.GetGeneration() + 1)
		}
		if err := c.Update(ctx, next); err != nil {
			return fmt.Errorf("template %s %s/%s: %w", t.GetKind(), t.GetNamespace(), t.GetName(), err)
		}
		// What the user wrote stays the case's template: the next case
		// that continues this one tells Karmada's metadata from it.
		t.SetUID(current.GetUID())
	}
	var gone []objectKey
	for k := range written {
		if !kept[k] {
			gone = append(gone, k)
		}
	}
	sort.Slice(gone, func(i, j int) bool { return fmt.Sprint(gone[i]) < fmt.Sprint(gone[j]) })
	for _, k := range gone {
		current, err := st.template(ctx, written[k])
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		if err := c.Delete(ctx, current); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("template %s %s/%s: %w", k.kind, k.namespace, k.name, err)
		}
		st.removed = append(st.removed, current)
	}
	return nil
}

// removeTemplates is what a control plane does with the templates the user
// deleted: the detector's worker finds each gone; the garbage collector
// deletes the binding a template owns (the detector made it the binding's
// controller), which the dependencies distributor (detaching what it
// attached) and the binding controller (deleting its Works) hold by their
// finalizers and let go once done.
func (o *oracle) removeTemplates(ctx context.Context, st *caseState) error {
	c := st.srv.client
	for _, t := range st.removed {
		key, err := detector.ResourceItemKeyFunc(detector.ResourceItem{Obj: t})
		if err != nil {
			return err
		}
		if err := st.detector.Reconcile(key); err != nil {
			return fmt.Errorf("template %s %s/%s, resource detector: %w", t.GetKind(), t.GetNamespace(), t.GetName(), err)
		}
		r := &templateRun{t: t, binding: types.NamespacedName{Namespace: t.GetNamespace(), Name: names.GenerateBindingName(t.GetKind(), t.GetName())}}
		obj, _, err := r.getBinding(ctx, c)
		if err != nil {
			return err
		}
		if obj == nil || !ownedBy(obj, t.GetUID()) {
			continue
		}
		if err := c.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		req := controllerruntime.Request{NamespacedName: r.binding}
		if r.namespaced() && controllerutil.ContainsFinalizer(obj, util.BindingDependenciesDistributorFinalizer) {
			if err := reconcile(func() (controllerruntime.Result, error) {
				return st.distributor.Reconcile(ctx, req)
			}); err != nil {
				return fmt.Errorf("binding %s, dependencies distributor: %w", r.binding, err)
			}
		}
		if err := reconcile(func() (controllerruntime.Result, error) {
			if r.namespaced() {
				return st.rbc.Reconcile(ctx, req)
			}
			return st.crbc.Reconcile(ctx, req)
		}); err != nil {
			return fmt.Errorf("binding %s, binding controller: %w", r.binding, err)
		}
		if obj, _, err = r.getBinding(ctx, c); err != nil {
			return err
		}
		if obj != nil {
			if err := finishDeletion(ctx, c, obj); err != nil {
				return err
			}
		}
	}
	st.removed = nil
	return nil
}

// ownedBy tells whether uid is among obj's owners.
func ownedBy(obj client.Object, uid types.UID) bool {
	for _, ref := range obj.GetOwnerReferences() {
		if ref.UID == uid {
			return true
		}
	}
	return false
}

// refuse records a template the API server does not store.
func (st *caseState) refuse(ans *answer, i int, t *unstructured.Unstructured, reason string) {
	st.refused[i] = reason
	ans.Rejected = append(ans.Rejected, rejection{Object: objectName(t.GetKind(), t.GetNamespace(), t.GetName()), Reason: reason})
}

// sameBeyondMetadata tells whether two objects differ only in metadata
// (the API server raises a generation on any other change).
func sameBeyondMetadata(a, b *unstructured.Unstructured) bool {
	strip := func(u *unstructured.Unstructured) map[string]any {
		out := map[string]any{}
		for k, v := range u.Object {
			if k != "metadata" && k != "status" {
				out[k] = v
			}
		}
		return out
	}
	return reflect.DeepEqual(strip(a), strip(b))
}

// policyChange names a (Cluster)PropagationPolicy the user changed.
type policyChange struct {
	kind, namespace, name string
}

// reconcilePolicy is the detector's policy worker on one policy the user
// created, changed or deleted.
func reconcilePolicy(st *caseState, p policyChange) error {
	key := keys.NamespacedKey{Namespace: p.namespace, Name: p.name}
	var err error
	if p.kind == "PropagationPolicy" {
		err = st.detector.ReconcilePropagationPolicy(key)
	} else {
		err = st.detector.ReconcileClusterPropagationPolicy(key)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", p.kind, key.NamespaceKey(), err)
	}
	return nil
}

// droppedQueue is the detector's work queue: what a policy's reconcile
// queues is every template, which propagate reconciles in any case.
type droppedQueue struct{}

var _ util.AsyncPriorityWorker = droppedQueue{}

func (droppedQueue) Add(any)                           {}
func (droppedQueue) AddAfter(any, time.Duration)       {}
func (droppedQueue) Enqueue(any)                       {}
func (droppedQueue) Run(context.Context, int)          {}
func (droppedQueue) EnqueueWithOpts(util.AddOpts, any) {}
func (droppedQueue) AddWithOpts(util.AddOpts, ...any)  {}

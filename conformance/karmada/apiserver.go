package main

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	clusterv1alpha1 "github.com/karmada-io/karmada/pkg/apis/cluster/v1alpha1"
	configv1alpha1 "github.com/karmada-io/karmada/pkg/apis/config/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/karmada/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
	"github.com/karmada-io/karmada/pkg/util/indexregistry"
)

// newKarmadaScheme holds Karmada's own API groups and nothing else. The
// fake client converts an object of a kind its scheme knows into that Go
// type and back, which would rewrite a template (a typed Deployment gains
// `"resources": {}`, `"strategy": {}`, `"status": {}` ...). Leaving the
// Kubernetes groups out keeps every template byte for byte as the case
// gives it, as a dynamic informer would hand it to Karmada.
func newKarmadaScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clusterv1alpha1.Install(s))
	utilruntime.Must(configv1alpha1.Install(s))
	utilruntime.Must(policyv1alpha1.Install(s))
	utilruntime.Must(workv1alpha1.Install(s))
	utilruntime.Must(workv1alpha2.Install(s))
	return s
}

// karmadaKinds are the kinds of Karmada's API the oracle stores, with their
// scope, for the RESTMapper.
var karmadaKinds = []struct {
	gvk        schema.GroupVersionKind
	namespaced bool
}{
	{clusterv1alpha1.SchemeGroupVersion.WithKind("Cluster"), false},
	{policyv1alpha1.SchemeGroupVersion.WithKind("PropagationPolicy"), true},
	{policyv1alpha1.SchemeGroupVersion.WithKind("ClusterPropagationPolicy"), false},
	{policyv1alpha1.SchemeGroupVersion.WithKind("OverridePolicy"), true},
	{policyv1alpha1.SchemeGroupVersion.WithKind("ClusterOverridePolicy"), false},
	{configv1alpha1.SchemeGroupVersion.WithKind("ResourceInterpreterCustomization"), false},
	{configv1alpha1.SchemeGroupVersion.WithKind("ResourceInterpreterWebhookConfiguration"), false},
	{workv1alpha2.SchemeGroupVersion.WithKind("ResourceBinding"), true},
	{workv1alpha2.SchemeGroupVersion.WithKind("ClusterResourceBinding"), false},
	{workv1alpha1.SchemeGroupVersion.WithKind("Work"), true},
}

// newRESTMapper knows Karmada's kinds and the case's template kinds. The
// plural of a resource is guessed (meta.UnsafeGuessKindToResource): it is
// only ever used as a key between the RESTMapper and the listers, never
// shown.
func newRESTMapper(templates map[schema.GroupVersionKind]bool) meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	for _, k := range karmadaKinds {
		m.Add(k.gvk, scopeOf(k.namespaced))
	}
	for gvk, isNamespaced := range templates {
		m.Add(gvk, scopeOf(isNamespaced))
	}
	return m
}

func scopeOf(namespaced bool) meta.RESTScope {
	if namespaced {
		return meta.RESTScopeNamespace
	}
	return meta.RESTScopeRoot
}

// newAPIServer builds one case's Karmada API server: a controller-runtime
// fake client with
//   - the Work indexes Karmada's controller-manager registers
//     (indexregistry.RegisterWorkIndexByLabel{,Cluster}ResourceBindingID),
//     without which helper.FindOrphanWorks cannot list,
//   - the mutating webhooks karmada-webhook runs when a controller writes a
//     ResourceBinding, ClusterResourceBinding (CREATE) or Work (CREATE,
//     UPDATE), and its ResourceBinding validator (CREATE, UPDATE), as
//     artifacts/deploy/webhook-configuration.yaml registers them.
func newAPIServer(scheme *runtime.Scheme, mapper meta.RESTMapper, hooks *webhooks) *apiServer {
	onWrite := func(ctx context.Context, c client.Reader, obj client.Object, create bool) error {
		gvk, err := gvkOf(scheme, obj)
		if err != nil {
			return err
		}
		// The stored object, for an update's admission request.
		var old client.Object
		if _, isBinding := obj.(*workv1alpha2.ResourceBinding); isBinding && !create {
			stored := &workv1alpha2.ResourceBinding{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(obj), stored); err != nil {
				return err
			}
			old = stored
		}
		return hooks.mutateOnWrite(ctx, obj, old, gvk, create)
	}
	c := fake.NewClientBuilder().
		WithScheme(scheme).
		// A plain object tracker: the default one keeps managedFields
		// through a RESTMapper built from the scheme alone, which
		// mistakes the kind of a template whose group the scheme does not
		// hold (a Service stored as a ConfigMap), and the API server's
		// managedFields are pruned from every manifest anyway.
		WithObjectTracker(clienttesting.NewObjectTracker(scheme, serializer.NewCodecFactory(scheme).UniversalDecoder())).
		WithRESTMapper(mapper).
		WithIndex(&workv1alpha1.Work{}, indexregistry.WorkIndexByLabelResourceBindingID,
			indexregistry.GenLabelIndexerFunc(workv1alpha2.ResourceBindingPermanentIDLabel)).
		WithIndex(&workv1alpha1.Work{}, indexregistry.WorkIndexByLabelClusterResourceBindingID,
			indexregistry.GenLabelIndexerFunc(workv1alpha2.ClusterResourceBindingPermanentIDLabel)).
		WithInterceptorFuncs(interceptor.Funcs{
			Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				if err := onWrite(ctx, c, obj, true); err != nil {
					return err
				}
				return c.Create(ctx, obj, opts...)
			},
			Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
				if err := onWrite(ctx, c, obj, false); err != nil {
					return err
				}
				return c.Update(ctx, obj, opts...)
			},
			Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
				// Nothing the oracle drives patches a Work or a binding; were
				// that to change, the webhooks above would be bypassed.
				if _, isWork := obj.(*workv1alpha1.Work); isWork {
					return fmt.Errorf("patching a Work is not emulated (the Work webhook would be skipped)")
				}
				return c.Patch(ctx, obj, patch, opts...)
			},
		}).
		Build()
	return &apiServer{client: c, mapper: mapper}
}

// gvkOf is the kind of a typed or unstructured object.
func gvkOf(scheme *runtime.Scheme, obj runtime.Object) (schema.GroupVersionKind, error) {
	if gvk := obj.GetObjectKind().GroupVersionKind(); !gvk.Empty() {
		return gvk, nil
	}
	gvks, _, err := scheme.ObjectKinds(obj)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	return gvks[0], nil
}

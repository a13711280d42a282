package main

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	clusterv1alpha1 "github.com/karmada-io/karmada/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/karmada/pkg/apis/policy/v1alpha1"
	"github.com/karmada-io/karmada/pkg/controllers/binding"
	"github.com/karmada-io/karmada/pkg/dependenciesdistributor"
	"github.com/karmada-io/karmada/pkg/detector"
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
	// input is the case as given; a case that continues this one is
	// applied over it (continued.go).
	input *caseInput
	srv   *apiServer
	// kinds are the template kinds the API server serves, namespaced or
	// not.
	kinds     map[schema.GroupVersionKind]bool
	templates []*unstructured.Unstructured
	// refused holds, by index, the templates the API server would not
	// create, with its reason.
	refused map[int]string
	// previous holds the case's bindings by template; fleet names its
	// clusters.
	previous    map[bindingKey]*previousBinding
	fleet       map[string]bool
	detector    *detector.ResourceDetector
	distributor *dependenciesdistributor.DependenciesDistributor
	rbc         *binding.ResourceBindingController
	crbc        *binding.ClusterResourceBindingController
	// removed are the templates a continuing case deleted, until the
	// controllers let their bindings go (removeTemplates).
	removed []*unstructured.Unstructured
}

func (o *oracle) answer(ctx context.Context, raw []byte) (*answer, error) {
	var in caseInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf("case: %w", err)
	}
	ans := &answer{Rejected: []rejection{}, Results: []result{}}
	prev := o.last
	o.last = nil
	var st *caseState
	var err error
	if in.Continues {
		if prev == nil {
			return nil, fmt.Errorf("the case continues another, but the case before it failed or there is none")
		}
		st, err = o.advance(ctx, prev, &in, ans)
	} else {
		if o.luaRan && len(in.Customizations) > 0 {
			if err := o.startInterpreter(); err != nil {
				return nil, err
			}
		}
		st, err = o.load(ctx, &in, ans)
	}
	if err != nil {
		return nil, err
	}
	o.luaRan = o.luaRan || len(in.Customizations) > 0
	runs, err := o.propagate(ctx, st)
	if err != nil {
		return nil, err
	}
	o.last = st
	for _, r := range runs {
		ans.Results = append(ans.Results, r.res)
	}
	if in.Export {
		if ans.ControlPlane, err = exportControlPlane(ctx, st); err != nil {
			return nil, err
		}
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

// dependencyKinds are the built-in kinds Karmada's native dependencies
// interpreter names (pkg/resourceinterpreter/default/native/dependencies.go).
var dependencyKinds = []schema.GroupVersionKind{
	{Version: "v1", Kind: "ConfigMap"},
	{Version: "v1", Kind: "Secret"},
	{Version: "v1", Kind: "ServiceAccount"},
	{Version: "v1", Kind: "PersistentVolumeClaim"},
	{Version: "v1", Kind: "Service"},
	{Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSlice"},
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

	// A real API server serves every built-in kind, so the dependencies
	// distributor finds the kinds the native interpreter names (a pod
	// template's ConfigMaps, Secrets, ServiceAccount and PVCs, an Ingress's
	// Secrets, a ServiceImport's derived Service and its EndpointSlices)
	// even when the case holds none of them: it then finds no object of
	// the kind, as Karmada would, instead of failing on an unknown kind.
	for _, gvk := range dependencyKinds {
		if _, ok := templateKinds[gvk]; !ok {
			templateKinds[gvk] = true
		}
	}
	srv := newAPIServer(o.scheme, newRESTMapper(templateKinds), o.hooks)
	dynamic := o.newDynamicClient(srv.mapper, templateKinds)
	c := srv.client

	// Clusters are served by karmada-aggregated-apiserver; their status is
	// what the cluster-status controller would report, taken as given.
	previous, err := previousBindings(in.Bindings)
	if err != nil {
		return nil, err
	}
	fleet := map[string]bool{}
	clusterObjs := make([]any, 0, len(in.Clusters))
	for i, raw := range in.Clusters {
		cluster := &clusterv1alpha1.Cluster{}
		if err := json.Unmarshal(raw, cluster); err != nil {
			return nil, fmt.Errorf("clusters[%d]: %w", i, err)
		}
		stored, reason, err := storeCluster(cluster)
		if err != nil {
			return nil, fmt.Errorf("clusters[%d]: %w", i, err)
		}
		if reason != "" {
			ans.Rejected = append(ans.Rejected, rejection{Object: objectName("Cluster", "", cluster.Name), Reason: reason})
			continue
		}
		cluster = stored
		if err := c.Create(ctx, cluster); err != nil {
			return nil, fmt.Errorf("clusters[%d]: %w", i, err)
		}
		clusterObjs = append(clusterObjs, cluster.DeepCopy())
		fleet[cluster.Name] = true
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

	refused := map[int]string{}
	for i, t := range templates {
		// The storage layer refuses a create that carries a resourceVersion
		// (k8s.io/apiserver storage.ErrResourceVersionSetOnCreate); uid
		// and creationTimestamp are overwritten (rest.FillObjectMetaSystemFields).
		if t.GetResourceVersion() != "" {
			refused[i] = "resourceVersion should not be set on objects to be created"
			ans.Rejected = append(ans.Rejected, rejection{Object: objectName(t.GetKind(), t.GetNamespace(), t.GetName()), Reason: refused[i]})
			continue
		}
		stored, err := storeTemplate(t)
		if err != nil {
			refused[i] = err.Error()
			ans.Rejected = append(ans.Rejected, rejection{Object: objectName(t.GetKind(), t.GetNamespace(), t.GetName()), Reason: refused[i]})
			continue
		}
		*t = *stored
		t.SetUID(types.UID(templateUID(t.GetAPIVersion(), t.GetKind(), t.GetNamespace(), t.GetName())))
		if tracksGeneration(t.GroupVersionKind()) {
			t.SetGeneration(1)
		}
		if err := c.Create(ctx, t.DeepCopy()); err != nil {
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
		input:     in,
		srv:       srv,
		kinds:     templateKinds,
		templates: templates,
		refused:   refused,
		previous:  previous,
		fleet:     fleet,
		// The fields karmada-controller-manager sets that the reconcile path
		// reads (cmd/controller-manager/app/controllermanager.go).
		detector: &detector.ResourceDetector{
			Client:                       c,
			DynamicClient:                dynamic,
			InformerManager:              o.informers,
			RESTMapper:                   srv.mapper,
			SkippedResourceConfig:        o.skippedResources,
			SkippedPropagatingNamespaces: o.skippedNamespaces,
			ResourceInterpreter:          o.interpreter,
			EventRecorder:                o.recorder,
			Processor:                    droppedQueue{},
		},
		distributor: &dependenciesdistributor.DependenciesDistributor{
			Client:              c,
			DynamicClient:       dynamic,
			InformerManager:     o.informers,
			EventRecorder:       o.recorder,
			RESTMapper:          srv.mapper,
			ResourceInterpreter: o.interpreter,
		},
		rbc: &binding.ResourceBindingController{
			Client:              c,
			DynamicClient:       dynamic,
			InformerManager:     o.informers,
			EventRecorder:       o.recorder,
			RESTMapper:          srv.mapper,
			OverrideManager:     overrides,
			ResourceInterpreter: o.interpreter,
		},
		crbc: &binding.ClusterResourceBindingController{
			Client:              c,
			DynamicClient:       dynamic,
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
	obj, err := o.admitted(ctx, srv, u, nil, ans)
	if err != nil || obj == nil {
		return err
	}
	return srv.client.Create(ctx, obj)
}

func objectName(kind, namespace, name string) string {
	if namespace == "" {
		return kind + "/" + name
	}
	return kind + "/" + namespace + "/" + name
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

func refOf(t *unstructured.Unstructured) templateRef {
	return templateRef{APIVersion: t.GetAPIVersion(), Kind: t.GetKind(), Namespace: optional(t.GetNamespace()), Name: t.GetName()}
}

package main

import (
	"context"
	"fmt"
	"regexp"
	"sort"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	corev1listers "k8s.io/client-go/listers/core/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	clusterlister "github.com/karmada-io/karmada/pkg/generated/listers/cluster/v1alpha1"
	"github.com/karmada-io/karmada/pkg/resourceinterpreter"
	schedulercache "github.com/karmada-io/karmada/pkg/scheduler/cache"
	"github.com/karmada-io/karmada/pkg/scheduler/core"
	"github.com/karmada-io/karmada/pkg/scheduler/framework"
	frameworkplugins "github.com/karmada-io/karmada/pkg/scheduler/framework/plugins"
	"github.com/karmada-io/karmada/pkg/scheduler/framework/runtime"
	"github.com/karmada-io/karmada/pkg/util"
)

// oracle is what lives for the whole process: the pieces of Karmada that are
// costly to build or that keep global state (the scheduler framework starts
// a metrics goroutine per instance; the resource interpreter compiles the
// thirdparty customizations once). Everything a case adds lives in that
// case's apiServer, which the informer manager and the cluster indexer are
// pointed at for the duration of the case.
type oracle struct {
	scheme      *kruntime.Scheme
	hooks       *webhooks
	informers   *informerManager
	interpreter resourceinterpreter.ResourceInterpreter
	// clusters is the store behind the scheduler's cluster lister; each
	// case replaces its content.
	clusters  cache.Indexer
	algorithm core.ScheduleAlgorithm
	// filters are the same registry's filter plugins, in name order (see
	// stableFitError).
	filters []framework.FilterPlugin
	// emptyWorkloads is karmada-scheduler's
	// --enable-empty-workload-propagation (default false): keep the selected
	// clusters whose share of a workload is zero replicas, with 0.
	emptyWorkloads bool
	recorder       record.EventRecorder

	skippedNamespaces []*regexp.Regexp
	skippedResources  *util.SkippedResourceConfig

	// last is the control plane the last case left, for a case that
	// continues it; nil after a case that failed.
	last *caseState
	// luaRan tells that a case since the interpreter was built declared
	// customizations: Karmada's Lua VM pools its states, and a pooled state
	// keeps the globals earlier scripts defined, so a script that does not
	// define its function would find another case's. A fresh control plane
	// has none.
	luaRan bool
}

// startInterpreter builds the controller-manager's interpreter
// (cmd/controller-manager/app: resourceinterpreter.NewResourceInterpreter
// over the control plane's informer manager).
func (o *oracle) startInterpreter() error {
	serviceLister := corev1listers.NewServiceLister(cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}))
	o.interpreter = resourceinterpreter.NewResourceInterpreter(o.informers, serviceLister)
	o.luaRan = false
	return o.interpreter.Start(context.Background())
}

func newOracle(emptyWorkloads bool) (*oracle, error) {
	scheme := newKarmadaScheme()
	o := &oracle{
		scheme:         scheme,
		emptyWorkloads: emptyWorkloads,
		hooks:          newWebhooks(scheme),
		informers:      newInformerManager(),
		clusters:       cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}),
		// A FakeRecorder without a channel drops events instead of blocking.
		recorder: &record.FakeRecorder{},
		// karmada-controller-manager's defaults: --skipped-propagating-namespaces
		// is "kube-.*", compiled as "^kube-.*$" (options.SkippedNamespacesRegexps),
		// and --skipped-propagating-apis is empty on top of
		// util.NewSkippedResourceConfig().
		skippedNamespaces: []*regexp.Regexp{regexp.MustCompile("^kube-.*$")},
		skippedResources:  util.NewSkippedResourceConfig(),
	}

	// The controller-manager's interpreter (cmd/controller-manager/app:
	// resourceinterpreter.NewResourceInterpreter over the control plane's
	// informer manager). Start builds the declarative (Lua), webhook,
	// thirdparty and native interpreters; the declarative one reloads its
	// customizations whenever the informer manager switches case.
	if err := o.startInterpreter(); err != nil {
		return nil, err
	}

	// The scheduler as karmada-scheduler builds it (scheduler.NewScheduler):
	// the in-tree registry filtered by the --plugins default "*", over a
	// cache of the cluster lister. The ResourceBinding indexer only serves
	// the WorkloadAffinity plugins, off by default.
	registry := frameworkplugins.NewInTreeRegistry().Filter([]string{"*"})
	filters, err := filterPlugins(registry)
	if err != nil {
		return nil, err
	}
	o.filters = filters
	schedCache := schedulercache.NewCache(clusterlister.NewClusterLister(o.clusters),
		cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}), 0)
	algorithm, err := core.NewGenericScheduler(schedCache, registry)
	if err != nil {
		return nil, err
	}
	o.algorithm = algorithm
	return o, nil
}

// filterPlugins instantiates a registry's filter plugins, in name order.
func filterPlugins(registry runtime.Registry) ([]framework.FilterPlugin, error) {
	names := make([]string, 0, len(registry))
	for name := range registry {
		names = append(names, name)
	}
	sort.Strings(names)
	var filters []framework.FilterPlugin
	for _, name := range names {
		p, err := registry[name]()
		if err != nil {
			return nil, err
		}
		if f, ok := p.(framework.FilterPlugin); ok {
			filters = append(filters, f)
		}
	}
	return filters, nil
}

// newDynamicClient is one case's dynamic client: the detector's, the
// dependencies distributor's and the binding controller's fallback when an
// informer misses an object or a label selector matches nothing. Every
// template is in the informers, which read the case's API server live, so
// what the fallback would find there the informers found already: it stays
// empty. It serves a list of every kind the case's RESTMapper knows (the
// fake client panics on a list of a kind it was not told about, where an
// API server answers an empty list). The detector also writes templates
// through it when it cleans up a claim whose policy is gone
// (CleanupResourceTemplateClaimMetadata): its updates go to the current
// case's API server (writeThrough).
func (o *oracle) newDynamicClient(mapper meta.RESTMapper, templateKinds map[schema.GroupVersionKind]bool) *dynamicfake.FakeDynamicClient {
	listKinds := map[schema.GroupVersionResource]string{}
	add := func(gvk schema.GroupVersionKind) {
		if mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err == nil {
			listKinds[mapping.Resource] = gvk.Kind + "List"
		}
	}
	for _, k := range karmadaKinds {
		add(k.gvk)
	}
	for gvk := range templateKinds {
		add(gvk)
	}
	dynamic := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(kruntime.NewScheme(), listKinds)
	dynamic.PrependReactor("update", "*", o.writeThrough)
	return dynamic
}

// writeThrough stores an object the detector updates through its dynamic
// client in the current case's API server, where the informers read it.
func (o *oracle) writeThrough(action clienttesting.Action) (bool, kruntime.Object, error) {
	update, ok := action.(clienttesting.UpdateAction)
	if !ok {
		return false, nil, nil
	}
	u, ok := update.GetObject().(*unstructured.Unstructured)
	if !ok {
		return true, nil, fmt.Errorf("the oracle's dynamic client updates unstructured objects only, not %T", update.GetObject())
	}
	stored := u.DeepCopy()
	if err := o.informers.current().client.Update(context.Background(), stored); err != nil {
		return true, nil, err
	}
	return true, stored, nil
}

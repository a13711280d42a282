package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/karmada-io/karmada/pkg/util"
	"github.com/karmada-io/karmada/pkg/util/fedinformer/genericmanager"
)

// informerManager stands in for the controller-manager's
// genericmanager.SingleClusterInformerManager (the dynamic informers over the
// Karmada API server). It is built once per process, because the resource
// interpreter captures it (and its listers) when it starts; each case then
// points it at that case's fake API server (a controller-runtime fake client).
//
// Listers read the fake client live and hand out *unstructured.Unstructured,
// as dynamic informers do, so the detector, the binding controller and the
// interpreter's configuration manager all see what the case's API server
// holds, including the claim labels the detector writes onto a template.
type informerManager struct {
	mu       sync.Mutex
	handlers map[schema.GroupVersionResource][]cache.ResourceEventHandler
	cur      *apiServer
}

var _ genericmanager.SingleClusterInformerManager = &informerManager{}

// apiServer is the per-case state behind the listers.
type apiServer struct {
	client client.Client
	mapper meta.RESTMapper
}

func newInformerManager() *informerManager {
	return &informerManager{handlers: map[schema.GroupVersionResource][]cache.ResourceEventHandler{}}
}

// switchTo points the listers at a new case and, like an informer that sees
// the ResourceInterpreterCustomizations change, calls the handlers registered
// for them: the declarative interpreter's configuration manager then relists
// and reloads its Lua scripts (configmanager.updateConfiguration).
func (m *informerManager) switchTo(s *apiServer) {
	m.notify(s, customizationEvents{added: 1})
}

// customizationEvents counts what an informer of the
// ResourceInterpreterCustomizations reports when a control plane moves from
// one set of them to the next.
type customizationEvents struct{ added, updated, deleted int }

// customizationChanges compares two sets of customizations by name: one
// added, changed or deleted in the second is an event of that kind.
func customizationChanges(before, after []json.RawMessage) customizationEvents {
	byName := func(docs []json.RawMessage) map[string]string {
		out := map[string]string{}
		for _, doc := range docs {
			var meta struct {
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
			}
			if json.Unmarshal(doc, &meta) == nil {
				out[meta.Metadata.Name] = string(doc)
			}
		}
		return out
	}
	old, now := byName(before), byName(after)
	var events customizationEvents
	for name, doc := range now {
		switch was, ok := old[name]; {
		case !ok:
			events.added++
		case was != doc:
			events.updated++
		}
	}
	for name := range old {
		if _, ok := now[name]; !ok {
			events.deleted++
		}
	}
	return events
}

// notify points the listers at `s` and calls the customization handlers
// once per kind of event that happened, as the informer would (each of them
// makes the configuration manager relist and reload its Lua scripts).
func (m *informerManager) notify(s *apiServer, events customizationEvents) {
	m.mu.Lock()
	m.cur = s
	hs := append([]cache.ResourceEventHandler(nil), m.handlers[util.ResourceInterpreterCustomizationsGVR]...)
	m.mu.Unlock()
	obj := &unstructured.Unstructured{}
	for _, h := range hs {
		if events.added > 0 {
			h.OnAdd(obj, false)
		}
		if events.updated > 0 {
			h.OnUpdate(obj, obj)
		}
		if events.deleted > 0 {
			h.OnDelete(obj)
		}
		if events == (customizationEvents{}) {
			h.OnAdd(obj, false)
		}
	}
}

func (m *informerManager) current() *apiServer {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cur
}

func (m *informerManager) ForResource(gvr schema.GroupVersionResource, h cache.ResourceEventHandler) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.handlers[gvr] = append(m.handlers[gvr], h)
}

func (m *informerManager) IsInformerSynced(schema.GroupVersionResource) bool { return true }

func (m *informerManager) IsHandlerExist(schema.GroupVersionResource, cache.ResourceEventHandler) bool {
	return false
}

func (m *informerManager) Lister(gvr schema.GroupVersionResource) cache.GenericLister {
	return &liveLister{m: m, gvr: gvr}
}

func (m *informerManager) Start() {}
func (m *informerManager) Stop()  {}
func (m *informerManager) WaitForCacheSync() map[schema.GroupVersionResource]bool {
	return map[schema.GroupVersionResource]bool{}
}
func (m *informerManager) WaitForCacheSyncWithTimeout(time.Duration) map[schema.GroupVersionResource]bool {
	return map[schema.GroupVersionResource]bool{}
}
func (m *informerManager) Context() context.Context     { return context.Background() }
func (m *informerManager) GetClient() dynamic.Interface { return nil }

// liveLister implements cache.GenericLister (and, through ByNamespace,
// cache.GenericNamespaceLister) over the current case's fake client.
type liveLister struct {
	m         *informerManager
	gvr       schema.GroupVersionResource
	namespace string
}

func (l *liveLister) gvk(s *apiServer) (schema.GroupVersionKind, error) {
	return s.mapper.KindFor(l.gvr)
}

func (l *liveLister) List(selector labels.Selector) ([]runtime.Object, error) {
	s := l.m.current()
	if s == nil {
		return nil, nil
	}
	gvk, err := l.gvk(s)
	if err != nil {
		// An informer for a resource the API server does not serve lists nothing.
		return nil, nil
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	opts := []client.ListOption{client.MatchingLabelsSelector{Selector: selector}}
	if l.namespace != "" {
		opts = append(opts, client.InNamespace(l.namespace))
	}
	if err := s.client.List(context.Background(), list, opts...); err != nil {
		return nil, err
	}
	out := make([]runtime.Object, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, &list.Items[i])
	}
	return out, nil
}

// Get takes a name, or "namespace/name" on the cluster-wide lister, as a
// cache.Indexer key does.
func (l *liveLister) Get(name string) (runtime.Object, error) {
	ns := l.namespace
	if ns == "" {
		if i := strings.IndexByte(name, '/'); i >= 0 {
			ns, name = name[:i], name[i+1:]
		}
	}
	s := l.m.current()
	if s == nil {
		return nil, apierrors.NewNotFound(l.gvr.GroupResource(), name)
	}
	gvk, err := l.gvk(s)
	if err != nil {
		return nil, apierrors.NewNotFound(l.gvr.GroupResource(), name)
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(gvk)
	if err := s.client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

func (l *liveLister) ByNamespace(namespace string) cache.GenericNamespaceLister {
	return &liveLister{m: l.m, gvr: l.gvr, namespace: namespace}
}

func (l *liveLister) String() string { return fmt.Sprintf("lister(%s)", l.gvr) }

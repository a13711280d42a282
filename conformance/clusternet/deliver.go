package main

import (
	"garrison.dev/conformance/kubernetes-apiserver/apiserver"

	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// scheduled is one Subscription after the scheduler and the FeedInventory
// controller.
type scheduled struct {
	sub    *subscription
	result targetClusters
	orders []feedOrder
	// deliver is false when the deployer writes no Description for it.
	deliver bool
}

// answer schedules every Subscription, then builds, for each binding
// cluster, the generic Description of each Subscription and applies the
// overrides to it, as the deployer and its localizer do.
func (c *caseState) answer(name string) *answer {
	ans := &answer{Name: name, Subscriptions: map[string]*subscriptionResult{}, Clusters: map[string]*clusterResult{}}
	for _, mc := range c.clusters {
		ans.Clusters[mc.Name] = &clusterResult{Objects: []json.RawMessage{}}
	}

	var all []*scheduled
	for _, sub := range c.subscriptions {
		res, s := c.scheduleOne(sub)
		ans.Subscriptions[sub.key()] = res
		if s != nil {
			all = append(all, s)
		}
	}

	// The division's Localizations, per dedicated namespace.
	divisions := map[string][]division{}
	for _, s := range all {
		for i, key := range s.result.bindingClusters {
			ns, _ := splitKey(key)
			for _, o := range s.orders {
				if o.desiredReplicas == nil {
					continue
				}
				r, ok := s.result.replicas[feedKey(o.feed)]
				if !ok || len(r) == 0 || len(r) <= i || o.replicaJSONPath == "" {
					continue
				}
				divisions[ns] = append(divisions[ns], division{feed: o.feed, override: overrideConfig{
					Name:  "dividing scheduling replicas",
					Value: fmt.Sprintf(`[{"path":%q,"value":%d,"op":"replace"}]`, o.replicaJSONPath, r[i]),
					Type:  jsonPatchType,
				}})
			}
		}
	}

	byKey := map[string]*managedCluster{}
	for _, mc := range c.clusters {
		byKey[mc.key()] = mc
	}
	for _, s := range all {
		if !s.deliver {
			continue
		}
		for _, key := range s.result.bindingClusters {
			mc := byKey[key]
			if mc == nil {
				continue
			}
			out := ans.Clusters[mc.Name]
			objects, err := c.describe(s.sub, mc.Namespace, divisions[mc.Namespace])
			if err != nil {
				msg := fmt.Sprintf("Subscription %s: %v", s.sub.key(), err)
				if out.Error == "" {
					out.Error = msg
				} else {
					out.Error += "; " + msg
				}
				continue
			}
			out.Objects = append(out.Objects, objects...)
		}
	}
	return ans
}

// division is a Localization the deployer generates for a divided feed in
// a binding cluster's namespace (deployer.go, populateLocalizations).
type division struct {
	feed     feed
	override overrideConfig
}

// scheduleOne answers for one Subscription; the second result is nil when
// nothing of it is bound.
func (c *caseState) scheduleOne(sub *subscription) (*subscriptionResult, *scheduled) {
	res := &subscriptionResult{BindingClusters: []string{}, Replicas: map[string][]int32{}}
	fail := func(err error) (*subscriptionResult, *scheduled) {
		res.Error = err.Error()
		return res, nil
	}
	if sub.DeletionTimestamp != nil {
		return fail(errors.New("the Subscription is being deleted"))
	}
	if sub.Spec.SchedulerName != "default" {
		return fail(fmt.Errorf("no scheduler profile handles schedulerName %q: never scheduled", sub.Spec.SchedulerName))
	}
	for _, f := range sub.Spec.Feeds {
		if f.Kind == "HelmChart" {
			return fail(fmt.Errorf("%w: HelmChart feeds", errUnsupported))
		}
	}
	dividing := sub.Spec.SchedulingStrategy == "Dividing"
	var orders []feedOrder
	if dividing {
		if d := sub.Spec.DividingScheduling; d != nil && d.Type == "Dynamic" {
			return fail(fmt.Errorf("%w: Dynamic dividing (it asks each child cluster's capacity)", errUnsupported))
		}
		var err error
		if orders, err = c.feedInventory(sub); err != nil {
			// No FeedInventory: the scheduler waits for one.
			return fail(fmt.Errorf("FeedInventory: %w", err))
		}
	}
	result, bound, err := schedule(sub, c.clusters, orders)
	if !bound {
		return fail(err)
	}
	if err != nil {
		res.Error = err.Error()
	}
	res.BindingClusters = append(res.BindingClusters, result.bindingClusters...)
	for k, v := range result.replicas {
		res.Replicas[k] = append([]int32{}, v...)
	}
	s := &scheduled{sub: sub, result: result, orders: orders, deliver: true}

	// The deployer's Description needs every feed (populateDescriptions).
	for _, f := range sub.Spec.Feeds {
		ms, err := c.manifestsFor(f)
		if err == nil && len(ms) == 0 {
			msg := fmt.Sprintf("Base is using a nonexistent %s", formatFeed(f))
			if why, ok := c.refused[formatFeed(f)]; ok {
				msg += fmt.Sprintf(" (the hub refused its template: %s)", why)
			}
			err = errors.New(msg)
		}
		if err != nil {
			if res.Error == "" {
				res.Error = err.Error()
			}
			s.deliver = false
			break
		}
	}
	return res, s
}

// describe returns the objects of one Subscription's generic Description
// for the binding cluster whose dedicated namespace is ns: every Manifest
// of every feed, with its overrides applied (Localizer.
// ApplyOverridesToDescription), then as the agent applies it
// (utils.ApplyDescription). One object failing fails the Description.
func (c *caseState) describe(sub *subscription, ns string, divisions []division) ([]json.RawMessage, error) {
	var objects []json.RawMessage
	var errs []string
	for _, f := range sub.Spec.Feeds {
		ms, err := c.manifestsFor(f)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			var extra []overrideConfig
			for _, d := range divisions {
				if c.selects(d.feed, m) {
					extra = append(extra, d.override)
				}
			}
			overrides, err := c.overridesFor(ns, m, extra)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			out, err := applyOverrides(m.raw, overrides)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			applied, err := asApplied(out)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			if err := memberCreates(applied); err != nil {
				errs = append(errs, fmt.Sprintf("object `%s/%s/%s`: %v", m.kind, m.namespace, m.name, err))
				continue
			}
			objects = append(objects, applied)
		}
	}
	switch len(errs) {
	case 0:
		return objects, nil
	case 1:
		return nil, errors.New(errs[0])
	default:
		return nil, fmt.Errorf("[%s]", strings.Join(errs, ", "))
	}
}

// memberCreates is the member cluster's API server creating a delivered
// batch/v1 Job: Kubernetes' Job strategy and validation, under the
// member's own uid (apiserver.CreateJob). A Job whose pod template or
// selector carries another uid's controller-uid label is refused there
// ("`selector` not auto-generated"), which fails the Description. Other
// kinds are not checked here.
func memberCreates(raw json.RawMessage) error {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return err
	}
	if u.GetAPIVersion() != "batch/v1" || u.GetKind() != "Job" {
		return nil
	}
	_, err := apiserver.CreateJob(u.Object, memberUID)
	return err
}

// asApplied is what the agent makes of a Description's object before it
// applies it (pkg/utils/deployer.go, ApplyDescription): the system fields
// of the metadata wiped (rest.WipeObjectMetaSystemFields), the kubectl
// last-applied annotation removed. The agent's own two annotations
// (owned-by-description, last-applied-config) are left out: they name the
// Description and repeat the object.
func asApplied(raw []byte) (json.RawMessage, error) {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	for _, f := range []string{"creationTimestamp", "uid", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"} {
		unstructured.RemoveNestedField(u.Object, "metadata", f)
	}
	if a := u.GetAnnotations(); a != nil {
		if _, ok := a[lastAppliedAnnotation]; ok {
			delete(a, lastAppliedAnnotation)
			if len(a) == 0 {
				// The agent's own annotation would be there.
				unstructured.RemoveNestedField(u.Object, "metadata", "annotations")
			} else {
				u.SetAnnotations(a)
			}
		}
	}
	return u.MarshalJSON()
}

func splitKey(key string) (string, string) {
	if i := strings.IndexByte(key, '/'); i >= 0 {
		return key[:i], key[i+1:]
	}
	return "", key
}

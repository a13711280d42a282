package main

import (
	"encoding/json"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// feedOrder is one entry of a FeedInventory: a feed, the replicas it
// desires and where they are written.
type feedOrder struct {
	feed            feed
	desiredReplicas *int32
	replicaJSONPath string
}

// feedInventory builds the FeedInventory of a Dividing Subscription as the
// FeedInventory controller's handleSubscription does
// (pkg/controllers/apps/feedinventory/feedinventory.go): for each feed,
// the first Manifest it selects, parsed by the registry's plugin for the
// Manifest's kind; a kind without a plugin desires no replicas. A feed
// that selects no Manifest fails the whole inventory, and the scheduler
// then never schedules the Subscription.
func (c *caseState) feedInventory(sub *subscription) ([]feedOrder, error) {
	orders := make([]feedOrder, len(sub.Spec.Feeds))
	var errs []string
	for i, f := range sub.Spec.Feeds {
		ms, err := c.manifestsFor(f)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if len(ms) == 0 {
			errs = append(errs, notFound(f.Kind, f.Name).Error())
			continue
		}
		gvk, err := groupVersionKind(ms[0].raw)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		orders[i] = feedOrder{feed: f}
		if parse, ok := parsers[gvk]; ok {
			desired, path, err := parse(ms[0].raw)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			orders[i].desiredReplicas, orders[i].replicaJSONPath = desired, path
		}
	}
	switch len(errs) {
	case 0:
		return orders, nil
	case 1:
		return nil, fmt.Errorf("%s", errs[0])
	default:
		// utilerrors.NewAggregate's wording.
		return nil, fmt.Errorf("[%s]", strings.Join(errs, ", "))
	}
}

func groupVersionKind(raw []byte) (schema.GroupVersionKind, error) {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return schema.GroupVersionKind{}, err
	}
	gv, err := schema.ParseGroupVersion(u.GetAPIVersion())
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	return gv.WithKind(u.GetKind()), nil
}

// parser reads a workload's desired replicas and the JSON pointer they are
// written at. Clusternet's plugins decode every version into the apps/v1
// type (pkg/controllers/apps/feedinventory/{deployment,replicaset,statefulset}).
type parser func(raw []byte) (*int32, string, error)

func parseDeployment(raw []byte) (*int32, string, error) {
	d := &appsv1.Deployment{}
	if err := json.Unmarshal(raw, d); err != nil {
		return nil, "", err
	}
	return d.Spec.Replicas, "/spec/replicas", nil
}

func parseReplicaSet(raw []byte) (*int32, string, error) {
	rs := &appsv1.ReplicaSet{}
	if err := json.Unmarshal(raw, rs); err != nil {
		return nil, "", err
	}
	return rs.Spec.Replicas, "/spec/replicas", nil
}

func parseStatefulSet(raw []byte) (*int32, string, error) {
	sts := &appsv1.StatefulSet{}
	if err := json.Unmarshal(raw, sts); err != nil {
		return nil, "", err
	}
	return sts.Spec.Replicas, "/spec/replicas", nil
}

// parsers is the in-tree registry (feedinventory.NewInTreeRegistry).
var parsers = map[schema.GroupVersionKind]parser{
	{Group: "apps", Version: "v1", Kind: "Deployment"}:             parseDeployment,
	{Group: "apps", Version: "v1beta1", Kind: "Deployment"}:        parseDeployment,
	{Group: "apps", Version: "v1beta2", Kind: "Deployment"}:        parseDeployment,
	{Group: "extensions", Version: "v1beta1", Kind: "Deployment"}:  parseDeployment,
	{Group: "apps", Version: "v1", Kind: "ReplicaSet"}:             parseReplicaSet,
	{Group: "extensions", Version: "v1beta1", Kind: "ReplicaSet"}:  parseReplicaSet,
	{Group: "apps", Version: "v1", Kind: "StatefulSet"}:            parseStatefulSet,
	{Group: "apps", Version: "v1beta1", Kind: "StatefulSet"}:       parseStatefulSet,
	{Group: "apps", Version: "v1beta2", Kind: "StatefulSet"}:       parseStatefulSet,
	{Group: "extensions", Version: "v1beta1", Kind: "StatefulSet"}: parseStatefulSet,
}

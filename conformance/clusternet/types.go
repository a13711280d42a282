package main

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// caseInput is one case: a hub's ManagedClusters, Clusternet's policy
// objects and the feeds' objects as a user wrote them.
type caseInput struct {
	Name           string            `json:"name,omitempty"`
	Clusters       []json.RawMessage `json:"clusters"`
	Subscriptions  []json.RawMessage `json:"subscriptions"`
	Localizations  []json.RawMessage `json:"localizations"`
	Globalizations []json.RawMessage `json:"globalizations"`
	Templates      []json.RawMessage `json:"templates"`
}

// answer is what the oracle says a Clusternet hub delivers for a case.
type answer struct {
	Name          string                         `json:"name,omitempty"`
	Subscriptions map[string]*subscriptionResult `json:"subscriptions"`
	Clusters      map[string]*clusterResult      `json:"clusters"`
	Error         string                         `json:"error,omitempty"`
}

// subscriptionResult is a Subscription's status as the scheduler's binder
// writes it (status.bindingClusters, status.replicas), or why it has none.
type subscriptionResult struct {
	Error           string             `json:"error,omitempty"`
	BindingClusters []string           `json:"bindingClusters"`
	Replicas        map[string][]int32 `json:"replicas"`
}

// clusterResult is what one ManagedCluster receives: the objects of every
// Description generated for it, and why a Description was not.
type clusterResult struct {
	Objects []json.RawMessage `json:"objects"`
	Error   string            `json:"error,omitempty"`
}

// The Clusternet API objects a case holds, with the fields the hub's
// scheduler and deployer read (pkg/apis/apps/v1alpha1,
// pkg/apis/clusters/v1beta1). Unknown fields are ignored.

type managedCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Taints []corev1.Taint `json:"taints,omitempty"`
	} `json:"spec"`
}

// key is how the scheduler names a cluster: namespace/name (klog.KObj).
func (c *managedCluster) key() string { return objectKey(c.Namespace, c.Name) }

type feed struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
}

type subscriber struct {
	ClusterAffinity  *metav1.LabelSelector `json:"clusterAffinity"`
	Weight           int32                 `json:"weight,omitempty"`
	SubGroupStrategy *struct {
		MinClusters int32 `json:"minClusters,omitempty"`
	} `json:"subGroupStrategy,omitempty"`
}

type dividingScheduling struct {
	Type            string          `json:"type"`
	DynamicDividing json.RawMessage `json:"dynamicDividing,omitempty"`
}

type subscription struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		SchedulerName        string              `json:"schedulerName,omitempty"`
		SchedulingBySubGroup *bool               `json:"schedulingBySubGroup,omitempty"`
		SchedulingStrategy   string              `json:"schedulingStrategy,omitempty"`
		DividingScheduling   *dividingScheduling `json:"dividingScheduling,omitempty"`
		Subscribers          []subscriber        `json:"subscribers"`
		ClusterTolerations   []corev1.Toleration `json:"clusterTolerations,omitempty"`
		Feeds                []feed              `json:"feeds"`
	} `json:"spec"`
}

func (s *subscription) key() string { return objectKey(s.Namespace, s.Name) }

type overrideConfig struct {
	Name          string `json:"name,omitempty"`
	Value         string `json:"value"`
	Type          string `json:"type"`
	OverrideChart bool   `json:"overrideChart,omitempty"`
	FieldPath     string `json:"fieldPath,omitempty"`
	FieldFormat   string `json:"fieldFormat,omitempty"`
}

// override is a Localization or a Globalization: the same spec, one
// namespaced, the other cluster-scoped with a cluster affinity.
type override struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Feed            feed                  `json:"feed,omitempty"`
		Priority        *int32                `json:"priority,omitempty"`
		OverridePolicy  string                `json:"overridePolicy,omitempty"`
		Overrides       []overrideConfig      `json:"overrides,omitempty"`
		ClusterAffinity *metav1.LabelSelector `json:"clusterAffinity,omitempty"`
	} `json:"spec"`
}

func objectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

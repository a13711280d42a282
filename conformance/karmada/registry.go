package main

import (
	"fmt"

	clusterapis "github.com/karmada-io/karmada/pkg/apis/cluster"
	"github.com/karmada-io/karmada/pkg/apis/cluster/mutation"
	clusterv1alpha1 "github.com/karmada-io/karmada/pkg/apis/cluster/v1alpha1"
	"github.com/karmada-io/karmada/pkg/apis/cluster/validation"
	"github.com/karmada-io/karmada/pkg/features"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// storeClusterModels gives a case's Cluster the resource models
// karmada-aggregated-apiserver stores for it (pkg/registry/cluster/strategy.go,
// PrepareForCreate, v1.18.2): with CustomizedClusterResourceModeling on,
// the default grades when none are given (SetDefaultClusterResourceModels),
// the given ones standardized otherwise (StandardizeClusterResourceModels),
// and the create refused when ValidateClusterResourceModels refuses them.
// The general estimator reads these models whenever the status reports
// allocatableModelings. The rest of PrepareForCreate (clearing the status,
// which the case gives as the cluster-status controller reports it) does not
// apply here; the status is kept as given.
func storeClusterModels(cluster *clusterv1alpha1.Cluster) error {
	if !features.FeatureGate.Enabled(features.CustomizedClusterResourceModeling) {
		return nil
	}
	internal := &clusterapis.Cluster{}
	if err := clusterv1alpha1.Convert_v1alpha1_Cluster_To_cluster_Cluster(cluster, internal, nil); err != nil {
		return err
	}
	if len(internal.Spec.ResourceModels) == 0 {
		mutation.SetDefaultClusterResourceModels(internal)
	} else {
		mutation.StandardizeClusterResourceModels(internal.Spec.ResourceModels)
	}
	if err := validation.ValidateClusterResourceModels(field.NewPath("spec", "resourceModels"), internal.Spec.ResourceModels); err != nil {
		return fmt.Errorf("cluster %s refused: %v", cluster.Name, err)
	}
	stored := &clusterv1alpha1.Cluster{}
	if err := clusterv1alpha1.Convert_cluster_Cluster_To_v1alpha1_Cluster(internal, stored, nil); err != nil {
		return err
	}
	cluster.Spec.ResourceModels = stored.Spec.ResourceModels
	return nil
}

package main

import (
	"fmt"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"

	clusterapis "github.com/karmada-io/karmada/pkg/apis/cluster"
	"github.com/karmada-io/karmada/pkg/apis/cluster/mutation"
	clusterv1alpha1 "github.com/karmada-io/karmada/pkg/apis/cluster/v1alpha1"
	"github.com/karmada-io/karmada/pkg/apis/cluster/validation"
	"github.com/karmada-io/karmada/pkg/features"
)

// storeCluster does what karmada-aggregated-apiserver does with a Cluster
// create, in the order k8s.io/apiserver's BeforeCreate calls its registry
// strategy (pkg/registry/cluster/strategy.go, v1.18.2), on the internal
// type:
//   - PrepareForCreate: with CustomizedClusterResourceModeling on, the
//     default grades when no resource models are given
//     (SetDefaultClusterResourceModels), the given ones standardized
//     otherwise (StandardizeClusterResourceModels); generation 1;
//   - Validate: ValidateCluster (the name, sync mode, endpoints, secret
//     references, taints, zones, resource models); a refusal is the
//     Cluster's, and the case goes on without it;
//   - Canonicalize: MutateCluster (a lone `zone` moved into `zones`, the
//     taints' timestamps).
//
// The strategy's own package is not imported: it brings the registry's
// etcd storage with it. The strategy also clears the status, which the
// case gives as the cluster-status controller reports it later, so the
// status is kept as given.
func storeCluster(cluster *clusterv1alpha1.Cluster) (*clusterv1alpha1.Cluster, string, error) {
	internal := &clusterapis.Cluster{}
	if err := clusterv1alpha1.Convert_v1alpha1_Cluster_To_cluster_Cluster(cluster, internal, nil); err != nil {
		return nil, "", err
	}
	if features.FeatureGate.Enabled(features.CustomizedClusterResourceModeling) {
		if len(internal.Spec.ResourceModels) == 0 {
			mutation.SetDefaultClusterResourceModels(internal)
		} else {
			mutation.StandardizeClusterResourceModels(internal.Spec.ResourceModels)
		}
	}
	internal.Generation = 1
	return canonical(cluster, internal, validation.ValidateCluster(internal))
}

// canonical is the registry's last steps on a Cluster it validated (errs):
// refused with its reason, or canonicalized (MutateCluster) and given back
// in v1alpha1 with the status as the case gives it.
func canonical(cluster *clusterv1alpha1.Cluster, internal *clusterapis.Cluster, errs field.ErrorList) (*clusterv1alpha1.Cluster, string, error) {
	if len(errs) > 0 {
		return nil, fmt.Sprintf("Cluster.cluster.karmada.io %q is invalid: %v", cluster.Name, errs.ToAggregate()), nil
	}
	mutation.MutateCluster(internal)
	stored := &clusterv1alpha1.Cluster{}
	if err := clusterv1alpha1.Convert_cluster_Cluster_To_v1alpha1_Cluster(internal, stored, nil); err != nil {
		return nil, "", err
	}
	stored.TypeMeta = cluster.TypeMeta
	stored.Status = cluster.Status
	return stored, "", nil
}

// updateCluster does what karmada-aggregated-apiserver does with an update
// of a stored Cluster (BeforeUpdate with the same strategy): the spec as
// applied, with the resource models kept from the stored Cluster when the
// user gives none (`kubectl apply` leaves what it did not write, and
// PrepareForUpdate sets no default grades), the given ones standardized;
// the generation raised when the spec changed; ValidateClusterUpdate
// (the metadata's immutable fields, then ValidateCluster); MutateCluster.
func updateCluster(cluster, old *clusterv1alpha1.Cluster) (*clusterv1alpha1.Cluster, string, error) {
	internal, oldInternal := &clusterapis.Cluster{}, &clusterapis.Cluster{}
	if err := clusterv1alpha1.Convert_v1alpha1_Cluster_To_cluster_Cluster(cluster, internal, nil); err != nil {
		return nil, "", err
	}
	if err := clusterv1alpha1.Convert_v1alpha1_Cluster_To_cluster_Cluster(old, oldInternal, nil); err != nil {
		return nil, "", err
	}
	internal.ResourceVersion, internal.UID, internal.CreationTimestamp = old.ResourceVersion, old.UID, old.CreationTimestamp
	internal.Generation = old.Generation
	if len(internal.Spec.ResourceModels) == 0 {
		internal.Spec.ResourceModels = oldInternal.Spec.ResourceModels
	} else if features.FeatureGate.Enabled(features.CustomizedClusterResourceModeling) {
		mutation.StandardizeClusterResourceModels(internal.Spec.ResourceModels)
	}
	if !apiequality.Semantic.DeepEqual(internal.Spec, oldInternal.Spec) {
		internal.Generation = old.Generation + 1
	}
	return canonical(cluster, internal, validation.ValidateClusterUpdate(internal, oldInternal))
}

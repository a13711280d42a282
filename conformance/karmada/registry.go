package main

import (
	"fmt"

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
	if errs := validation.ValidateCluster(internal); len(errs) > 0 {
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

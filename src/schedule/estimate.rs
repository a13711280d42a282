//! Available-replica estimation from `Cluster.status.resourceSummary`, the
//! input of dynamic-weight and Aggregated division.
//!
//! Reproduces Karmada's general estimator (`pkg/estimator/client/general.go`,
//! v1.18 and v1.19 alike): allowed pods = allocatable − allocated −
//! allocating pods; then, for every requested resource, ⌊available /
//! request⌋ (CPU in milli-units, everything else in whole units, both rounded
//! up the way `resource.Quantity` does); the minimum of all, never negative. A
//! cluster without a resource summary can take nothing. A cluster that
//! reports `allocatableModelings` is estimated on its resource models
//! instead ([`super::models`]).
//! What one replica asks is [`super::requirements`]'s.
//!
//! Assumed in-flight workloads (feature gate SchedulingOvercommitProtection,
//! off by default) do not exist offline.

use super::models::model_replicas;
pub use super::requirements::{requirements_from_pod_spec, ReplicaRequirements};
use crate::model::quantity::ResourceSummary;
use crate::model::resource_model::ModelGrade;

/// How many more replicas the cluster can take (Karmada's general estimator,
/// `GeneralEstimator.maxAvailableReplicas`).
///
/// No summary ⇒ 0. Allowed pods = allocatable − allocated − allocating `pods`
/// (missing ⇒ 0), and 0 when that is not positive. Without requirements that
/// is the answer. With `allocatableModelings` reported, the replicas the
/// modelled nodes hold (`models`, as stored) bounded by the allowed pods are
/// the answer, and the summary's other resources are not looked at; only
/// where that estimate fails does the summary decide. There every requested
/// resource with a positive request bounds the allowed pods by ⌊(allocatable
/// − allocated − allocating) / request⌋, CPU in milli-units and the rest in
/// whole units rounded up; a requested resource the cluster does not list as
/// allocatable, or has none of left, gives 0.
pub fn available_replicas(
    summary: Option<&ResourceSummary>,
    models: &[ModelGrade],
    requirements: Option<&ReplicaRequirements>,
) -> u64 {
    let Some(summary) = summary else { return 0 };
    let allowed = summary.allowed_pods();
    if allowed <= 0 {
        return 0;
    }
    let allowed_u64 = u64::try_from(allowed).unwrap_or(0);
    let Some(requirements) = requirements else {
        return allowed_u64;
    };
    let modelings = summary.allocatable_modelings.as_deref().unwrap_or_default();
    if !modelings.is_empty() {
        if let Some(modelled) = model_replicas(models, modelings, requirements) {
            return modelled.min(allowed_u64);
        }
    }
    let mut maximum = allowed;
    for (name, request) in &requirements.resource_request {
        if request.value() <= 0 {
            continue;
        }
        let Some(allocatable) = ResourceSummary::get(&summary.allocatable, name) else {
            return 0;
        };
        let used = |map| ResourceSummary::get(map, name).unwrap_or_default();
        let left = allocatable
            .minus(used(&summary.allocated))
            .minus(used(&summary.allocating));
        if left.value() <= 0 {
            return 0;
        }
        let fits = if name == "cpu" {
            left.milli_value() / request.milli_value()
        } else {
            left.value() / request.value()
        };
        maximum = maximum.min(fits);
    }
    u64::try_from(maximum).unwrap_or(0)
}

/// What Karmada's scheduler reads from an estimate (`calAvailableReplicas`,
/// `pkg/scheduler/core/util.go`): it starts every cluster at `MaxInt32`,
/// lowers it to the estimators' answer, and then reads a cluster still at
/// `MaxInt32` as the template's own replica count ("best-effort" pods and
/// no estimator to bound them), so that a division never weighs a cluster
/// by 2147483647. Without replicas no estimator runs and the scheduler
/// keeps `MaxInt32`, which [`super::spread`] accounts for itself.
pub fn as_scheduler_reads(estimate: u64, replicas: u64) -> u64 {
    const MAX_INT32: u64 = i32::MAX as u64;
    if replicas > 0 && estimate == MAX_INT32 {
        replicas
    } else {
        estimate
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::quantity::{parse_quantity, Quantity};
    use serde_json::json;

    fn q(s: &str) -> Quantity {
        parse_quantity(s).unwrap()
    }

    fn summary(value: serde_json::Value) -> ResourceSummary {
        serde_json::from_value(value).unwrap()
    }

    fn requests(pairs: &[(&str, &str)]) -> ReplicaRequirements {
        ReplicaRequirements {
            resource_request: pairs.iter().map(|(n, v)| (n.to_string(), q(v))).collect(),
        }
    }

    #[test]
    fn no_summary_means_no_capacity() {
        assert_eq!(available_replicas(None, &[], None), 0);
        assert_eq!(
            available_replicas(None, &[], Some(&requests(&[("cpu", "1")]))),
            0
        );
    }

    #[test]
    fn allowed_pods_bound_the_estimate() {
        let s = summary(json!({
            "allocatable": {"pods": "110", "cpu": "100"},
            "allocated": {"pods": "50"},
            "allocating": {"pods": "10"},
        }));
        assert_eq!(available_replicas(Some(&s), &[], None), 50);
        assert_eq!(
            available_replicas(Some(&s), &[], Some(&requests(&[("cpu", "100m")]))),
            50
        );
        let full = summary(json!({"allocatable": {"pods": "10"}, "allocated": {"pods": "12"}}));
        assert_eq!(available_replicas(Some(&full), &[], None), 0);
        assert_eq!(available_replicas(Some(&summary(json!({}))), &[], None), 0);
    }

    #[test]
    fn each_request_divides_what_is_left() {
        let s = summary(json!({
            "allocatable": {"pods": "1000", "cpu": "10", "memory": "16Gi", "nvidia.com/gpu": "4"},
            "allocated": {"cpu": "2500m", "memory": "4Gi"},
            "allocating": {"cpu": "500m", "nvidia.com/gpu": "1"},
        }));
        // 7000m / 300m = 23; 12Gi / 1Gi = 12.
        assert_eq!(
            available_replicas(Some(&s), &[], Some(&requests(&[("cpu", "300m")]))),
            23
        );
        assert_eq!(
            available_replicas(
                Some(&s),
                &[],
                Some(&requests(&[("cpu", "300m"), ("memory", "1Gi")]))
            ),
            12
        );
        assert_eq!(
            available_replicas(Some(&s), &[], Some(&requests(&[("nvidia.com/gpu", "2")]))),
            1
        );
        // Not allocatable at all ⇒ nothing fits.
        assert_eq!(
            available_replicas(Some(&s), &[], Some(&requests(&[("example.com/fpga", "1")]))),
            0
        );
        // Zero requests are skipped.
        assert_eq!(
            available_replicas(Some(&s), &[], Some(&requests(&[("memory", "0")]))),
            1000
        );
    }

    #[test]
    fn non_cpu_resources_are_compared_in_rounded_up_units() {
        let s = summary(json!({"allocatable": {"pods": "100", "memory": "2500m"}}));
        // Value(): 2500m → 3 units, 500m → 1 unit (Karmada's rounding, not 5).
        assert_eq!(
            available_replicas(Some(&s), &[], Some(&requests(&[("memory", "500m")]))),
            3
        );
        let exhausted =
            summary(json!({"allocatable": {"pods": "100", "cpu": "1"}, "allocated": {"cpu": "1"}}));
        assert_eq!(
            available_replicas(Some(&exhausted), &[], Some(&requests(&[("cpu", "1m")]))),
            0
        );
    }

    #[test]
    fn requirements_sum_containers_and_take_init_maximum() {
        let spec = json!({
            "containers": [
                {"name": "a", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}},
                {"name": "b", "resources": {"requests": {"cpu": "0.5"}, "limits": {"cpu": "1", "memory": "128Mi"}}},
            ],
            "initContainers": [
                {"name": "i", "resources": {"requests": {"cpu": "2", "memory": "1Mi"}}},
            ],
            "overhead": {"memory": "10Mi"},
        });
        let req = requirements_from_pod_spec(&spec).unwrap();
        assert_eq!(req.resource_request["cpu"], q("2"));
        assert_eq!(req.resource_request["memory"], q("202Mi"));
        assert_eq!(req.resource_request.len(), 2);
    }

    #[test]
    fn requirements_keep_known_and_scalar_resources_only() {
        let spec = json!({"containers": [{"resources": {"requests": {
            "cpu": "1m", "nvidia.com/gpu": 1, "hugepages-2Mi": "2Mi", "storage": "1Gi",
            "memory": "1.5", "example.com/bad name": "1", "kubernetes.io/batch": "2"
        }}}]});
        let req = requirements_from_pod_spec(&spec).unwrap();
        let names: Vec<&str> = req.resource_request.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "cpu",
                "hugepages-2Mi",
                "kubernetes.io/batch",
                "memory",
                "nvidia.com/gpu"
            ]
        );
        assert_eq!(
            req.resource_request["memory"],
            q("2"),
            "rounded up to whole units"
        );
        assert_eq!(req.resource_request["cpu"], q("1m"));
    }

    #[test]
    fn requirements_are_absent_without_requests_or_node_claims() {
        assert_eq!(
            requirements_from_pod_spec(&json!({"containers": [{"name": "a"}]})),
            None
        );
        let zero = json!({"containers": [{"resources": {"requests": {"cpu": "0"}}}]});
        assert_eq!(requirements_from_pod_spec(&zero), None);
        for claim in [
            json!({"nodeSelector": {}}),
            json!({"tolerations": [{"key": "k", "operator": "Exists"}]}),
            json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}}),
        ] {
            let req = requirements_from_pod_spec(&claim).unwrap();
            assert!(req.resource_request.is_empty());
        }
        let preferred_only = json!({"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": []}}, "tolerations": []});
        assert_eq!(requirements_from_pod_spec(&preferred_only), None);
    }

    #[test]
    fn node_claim_without_requests_estimates_by_pods() {
        let s = summary(json!({"allocatable": {"pods": "7"}}));
        let req = requirements_from_pod_spec(&json!({"nodeSelector": {"a": "b"}}));
        assert_eq!(available_replicas(Some(&s), &[], req.as_ref()), 7);
    }

    #[test]
    fn reported_modelings_replace_the_summary_but_not_the_pod_bound() {
        let models = crate::model::resource_model::stored(None).unwrap();
        // Plenty of CPU in the summary; the models hold 2 nodes of grade 2 (2 cores each).
        let s = summary(json!({
            "allocatable": {"pods": "100", "cpu": "100", "memory": "100Gi"},
            "allocatableModelings": [{"grade": 2, "count": 2}, {"grade": 0, "count": 5}],
        }));
        let ask = requests(&[("cpu", "1")]);
        assert_eq!(available_replicas(Some(&s), &models, Some(&ask)), 4);
        assert_eq!(available_replicas(Some(&s), &[], Some(&ask)), 100);
        // No requirements: the allowed pods, models or not.
        assert_eq!(available_replicas(Some(&s), &models, None), 100);
        // A node claim without requests: 110 pods per node, bounded by the allowed pods.
        assert_eq!(
            available_replicas(Some(&s), &models, Some(&requests(&[]))),
            100
        );
        let negative = summary(json!({
            "allocatable": {"pods": "100", "cpu": "3"},
            "allocatableModelings": [{"grade": 2, "count": -1}],
        }));
        assert_eq!(available_replicas(Some(&negative), &models, Some(&ask)), 3);
    }

    #[test]
    fn a_cluster_estimated_at_max_int32_weighs_as_the_replicas_karmada_scheduler_reads() {
        // calAvailableReplicas: a cluster left at MaxInt32 takes spec.replicas.
        let s = summary(json!({"allocatable": {"pods": "2147483647"}}));
        let estimate = available_replicas(Some(&s), &[], None);
        assert_eq!(estimate, 2_147_483_647);
        assert_eq!(as_scheduler_reads(estimate, 10), 10);
        assert_eq!(as_scheduler_reads(2_147_483_646, 10), 2_147_483_646);
        assert_eq!(as_scheduler_reads(estimate, 0), 2_147_483_647);
    }

    #[test]
    fn allowed_pods_count_before_the_floor() {
        let s = summary(json!({
            "allocatable": {"pods": "4294967306"},
            "allocated": {"pods": "6"},
            "allocating": {"pods": "300"},
        }));
        assert_eq!(s.allowed_pods(), 4_294_967_000);
        assert!(s.allowed_pods() > crate::model::quantity::MAX_ALLOWED_PODS);
        let full = summary(json!({"allocatable": {"pods": "10"}, "allocated": {"pods": "12"}}));
        assert_eq!(full.allowed_pods(), -2);
    }
}

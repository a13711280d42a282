//! The replicas a cluster's resource models hold: the estimate Karmada's
//! general estimator uses instead of the resource summary when a cluster
//! reports `allocatableModelings` (feature gate
//! CustomizedClusterResourceModeling, on by default).
//!
//! Matches Karmada v1.18's `getMaximumReplicasBasedOnResourceModels`
//! (`pkg/estimator/client/general.go`): `buildModelNodes` makes, for every
//! grade both in the models and in the modelings, `count` nodes whose
//! capacity is the grade's minimums plus 110 pods; the scheduling simulator
//! (`pkg/estimator/scheduling_simulator_components.go`) then places one
//! replica at a time on the first node it still fits, up to 2^31 − 1. The
//! nodes carry no labels or taints, so the node claim never excludes one.
//! Every replica asks the same, so a node ends up holding exactly what
//! `util.Resource.MaxDivided` allows of it at the start, and the answer is
//! the sum of that over the nodes, computed here without the loop.

use super::requirements::{is_scalar_resource, ReplicaRequirements};
use crate::model::quantity::AllocatableModeling;
use crate::model::resource_model::ModelGrade;
use std::collections::BTreeMap;

/// Karmada's pod capacity of every modelled node (`maxPodsCountPerNode`).
const PODS_PER_NODE: i128 = 110;

/// The simulator's upper bound (`math.MaxInt32`).
const UPPER_BOUND: i128 = i32::MAX as i128;

/// Replicas the modelled nodes hold, or `None` where Karmada's model path
/// fails and the estimator falls back to the summary: no models, or a
/// negative node count.
pub fn model_replicas(
    models: &[ModelGrade],
    modelings: &[AllocatableModeling],
    requirements: &ReplicaRequirements,
) -> Option<u64> {
    if models.is_empty() {
        return None;
    }
    let mut counts: BTreeMap<u64, i128> = BTreeMap::new();
    for modeling in modelings {
        if modeling.count < 0 {
            return None;
        }
        *counts.entry(modeling.grade).or_default() += i128::from(modeling.count);
    }
    let request = amounts(
        requirements
            .resource_request
            .iter()
            .map(|(name, quantity)| (name.as_str(), *quantity)),
    );
    let mut total: i128 = 0;
    for grade in models {
        let count = counts.get(&grade.grade).copied().unwrap_or(0);
        if count == 0 {
            continue;
        }
        let capacity = node_capacity(grade);
        let per_node = request
            .iter()
            .map(|(name, asked)| capacity.get(name).copied().unwrap_or(0) / asked)
            .fold(PODS_PER_NODE, i128::min);
        total = total.saturating_add(per_node.saturating_mul(count));
        if total >= UPPER_BOUND {
            break;
        }
    }
    u64::try_from(total.min(UPPER_BOUND)).ok()
}

/// A modelled node: the grade's minimums (a name listed twice keeps its
/// last), `pods` replaced by 110 however the model sets it.
fn node_capacity(grade: &ModelGrade) -> BTreeMap<String, i128> {
    let last: BTreeMap<&str, _> = grade
        .minimums
        .iter()
        .map(|(name, quantity)| (name.as_str(), *quantity))
        .collect();
    amounts(last.into_iter())
}

/// `util.NewResource`: milli-CPU, whole units for memory, ephemeral storage
/// and scalar resources; other names are dropped, and so are amounts that
/// are not positive (`Resource.ResourceList` leaves them out, so they ask
/// for nothing).
fn amounts<'a>(
    list: impl Iterator<Item = (&'a str, crate::model::quantity::Quantity)>,
) -> BTreeMap<String, i128> {
    list.filter_map(|(name, quantity)| {
        let amount = match name {
            "cpu" => quantity.milli_value(),
            "memory" | "ephemeral-storage" => quantity.value(),
            _ if is_scalar_resource(name) => quantity.value(),
            _ => return None,
        };
        (amount > 0).then(|| (name.to_string(), amount))
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::quantity::parse_quantity;

    fn grade(grade: u64, minimums: &[(&str, &str)]) -> ModelGrade {
        ModelGrade {
            grade,
            minimums: minimums
                .iter()
                .map(|(n, v)| (n.to_string(), parse_quantity(v).unwrap()))
                .collect(),
        }
    }

    fn nodes(pairs: &[(u64, i64)]) -> Vec<AllocatableModeling> {
        pairs
            .iter()
            .map(|(grade, count)| AllocatableModeling {
                grade: *grade,
                count: *count,
            })
            .collect()
    }

    fn asks(pairs: &[(&str, &str)]) -> ReplicaRequirements {
        ReplicaRequirements {
            resource_request: pairs
                .iter()
                .map(|(n, v)| (n.to_string(), parse_quantity(v).unwrap()))
                .collect(),
        }
    }

    fn models() -> Vec<ModelGrade> {
        vec![
            grade(0, &[("cpu", "0"), ("memory", "0")]),
            grade(1, &[("cpu", "2"), ("memory", "4Gi")]),
            grade(2, &[("cpu", "8"), ("memory", "16Gi")]),
        ]
    }

    #[test]
    fn each_node_holds_what_its_minimums_divide() {
        let request = asks(&[("cpu", "1500m"), ("memory", "1Gi")]);
        // Grade 0 nodes hold nothing; grade 1: min(1, 4) = 1; grade 2: min(5, 16) = 5.
        assert_eq!(
            model_replicas(&models(), &nodes(&[(0, 9), (1, 3), (2, 2)]), &request),
            Some(13)
        );
        // Counts of one grade add up; grades without a model count nothing.
        assert_eq!(
            model_replicas(&models(), &nodes(&[(1, 1), (1, 2), (7, 50)]), &request),
            Some(3)
        );
    }

    #[test]
    fn pods_bound_each_node_and_unmodelled_resources_fit_nowhere() {
        assert_eq!(
            model_replicas(&models(), &nodes(&[(0, 2), (2, 1)]), &asks(&[])),
            Some(330)
        );
        assert_eq!(
            model_replicas(
                &models(),
                &nodes(&[(2, 4)]),
                &asks(&[("nvidia.com/gpu", "1")])
            ),
            Some(0)
        );
        // A `pods` request is replaced by one pod per replica.
        assert_eq!(
            model_replicas(&models(), &nodes(&[(2, 1)]), &asks(&[("pods", "50")])),
            Some(110)
        );
    }

    #[test]
    fn a_negative_count_or_no_models_fall_back() {
        let request = asks(&[("cpu", "1")]);
        assert_eq!(
            model_replicas(&models(), &nodes(&[(1, -1)]), &request),
            None
        );
        assert_eq!(model_replicas(&[], &nodes(&[(1, 1)]), &request), None);
        assert_eq!(
            model_replicas(&models(), &nodes(&[(2, i64::MAX)]), &request),
            Some(i32::MAX as u64)
        );
    }
}

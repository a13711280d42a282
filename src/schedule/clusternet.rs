//! Clusternet's scheduler for one Subscription (clusternet-semantics §2–§4):
//! the clusters it binds and each one's weight, and Clusternet's static
//! division of a feed's replicas over them.
//!
//! Binding: the union of the ManagedClusters its subscribers' label
//! selectors match, minus those with a NoSchedule or NoExecute taint the
//! Subscription does not tolerate (Clusternet's one default filter). They
//! are taken in score order: Clusternet's one default score counts the
//! PreferNoSchedule taints a cluster's Subscription does not tolerate, the
//! fewer the better. Division and sub-groups follow this order; the binding
//! is then recorded in `namespace/name` order, as Clusternet's binder sorts
//! it. A cluster's weight is the sum of the positive weights of the
//! subscribers that match it; a cluster only weight-0 subscribers match is
//! bound with weight 0.
//!
//! Equal scores, as Clusternet v0.18.0 orders them ([`tie_order`]): its
//! generic scheduler lists each subscriber's clusters in subscriber order
//! and keeps each cluster's first place (`findClustersThatFitSubscription`,
//! `normalizedClusters` in `pkg/scheduler/algorithm/generic.go`), and its
//! score sort (`sort.Sort` in `prioritizeClusters`) and its weight sort
//! (`sort.Slice` in `sortByWeight`, `defaultassigner/algorithm.go`) are Go's
//! insertion sort, hence stable, up to 12 elements. So up to 12 feasible
//! clusters a tie goes to the cluster an earlier subscriber matches; among
//! the clusters one subscriber matches first, the order is its informer
//! cache's (a map's), and garrison takes `namespace/name` (P5). Past 12,
//! Go's pattern-defeating quicksort reorders equal elements, so the whole
//! tie order is arbitrary, and garrison takes `namespace/name`.

use super::ClusterNote;
use crate::model::cluster::{Cluster, TaintEffect};
use crate::model::clusternet::SubscriptionSpec;

/// One cluster a Subscription binds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bound {
    pub cluster: String,
    /// The summed weight of the subscribers that match it.
    pub weight: u64,
}

/// What a Subscription binds, and why each cluster of the fleet is in or out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// In score order (see the module's documentation).
    pub clusters: Vec<Bound>,
    pub notes: Vec<ClusterNote>,
    /// `schedulingBySubGroup` picked none of the feasible clusters (every
    /// `minClusters` 0): Clusternet's `selectClusters` then fails ("empty
    /// clusterScoreList") and the Subscription is never scheduled, unlike a
    /// FitError, whose empty result is bound.
    pub sub_groups_pick_none: bool,
}

/// The clusters `spec` binds in `fleet` (sorted by name). Only clusters a
/// ManagedCluster declares are candidates: Clusternet knows no others.
pub fn select(spec: &SubscriptionSpec, fleet: &[Cluster]) -> Selection {
    let mut candidates: Vec<&Cluster> = fleet.iter().filter(|c| c.managed).collect();
    candidates.sort_by_key(|c| c.namespaced_name());
    let mut selection = Selection::default();
    let mut feasible: Vec<&Cluster> = Vec::new();
    for cluster in candidates {
        let matched = spec.subscribers.iter().any(|s| {
            s.cluster_affinity
                .as_ref()
                .is_some_and(|a| a.matches(&cluster.labels))
        });
        let note = if !matched {
            "no subscriber's clusterAffinity matches its labels".to_string()
        } else if let Some(taint) = cluster
            .scheduling_taints()
            .find(|t| !spec.cluster_tolerations.iter().any(|tol| tol.tolerates(t)))
        {
            format!(
                "taint `{}{}:{:?}` is not tolerated",
                taint.key,
                taint
                    .value
                    .as_deref()
                    .map(|v| format!("={v}"))
                    .unwrap_or_default(),
                taint.effect
            )
        } else {
            feasible.push(cluster);
            continue;
        };
        selection.notes.push(ClusterNote {
            cluster: cluster.name.clone(),
            note,
        });
    }
    let by_subscriber = feasible.len() <= STABLE_SORT_LIMIT;
    feasible.sort_by_key(|c| {
        (
            untolerated_preferences(spec, c),
            tie_order(spec, c, by_subscriber),
        )
    });
    let bound = if spec.by_sub_group() {
        let picked = sub_groups(spec, &feasible);
        selection.sub_groups_pick_none = picked.is_empty() && !feasible.is_empty();
        picked
    } else {
        feasible
    };
    for cluster in bound {
        let weight = weight_of(spec, cluster);
        selection.notes.push(ClusterNote {
            cluster: cluster.name.clone(),
            note: format!("selected, weight {weight}"),
        });
        selection.clusters.push(Bound {
            cluster: cluster.name.clone(),
            weight,
        });
    }
    selection
}

/// The most feasible clusters whose equal scores Clusternet's sorts keep in
/// the order it found them: Go's `sort.Sort` and `sort.Slice` sort 12
/// elements or fewer by insertion, which is stable.
const STABLE_SORT_LIMIT: usize = 12;

/// Where `cluster` goes among equal scores ([module documentation](self)):
/// with `by_subscriber` (up to [`STABLE_SORT_LIMIT`] feasible clusters),
/// after the clusters an earlier subscriber matches, then by
/// `namespace/name`; otherwise by `namespace/name` alone.
fn tie_order(spec: &SubscriptionSpec, cluster: &Cluster, by_subscriber: bool) -> (usize, String) {
    let first = if by_subscriber {
        spec.subscribers
            .iter()
            .position(|s| {
                s.cluster_affinity
                    .as_ref()
                    .is_some_and(|a| a.matches(&cluster.labels))
            })
            .unwrap_or(usize::MAX)
    } else {
        0
    };
    (first, cluster.namespaced_name())
}

/// `schedulingBySubGroup`: per subscriber, the first `minClusters` feasible
/// clusters it matches, in score order (ties as [`tie_order`] breaks them),
/// each cluster once (P11; Clusternet lists a cluster two subscribers pick
/// twice).
fn sub_groups<'c>(spec: &SubscriptionSpec, feasible: &[&'c Cluster]) -> Vec<&'c Cluster> {
    let mut picked: Vec<&Cluster> = Vec::new();
    for subscriber in &spec.subscribers {
        let Some(affinity) = &subscriber.cluster_affinity else {
            continue;
        };
        let min = subscriber
            .sub_group_strategy
            .as_ref()
            .and_then(|s| s.min_clusters)
            .map_or(0, |m| usize::try_from(m).unwrap_or(0));
        for cluster in feasible
            .iter()
            .filter(|c| affinity.matches(&c.labels))
            .take(min)
        {
            if !picked.iter().any(|p| p.name == cluster.name) {
                picked.push(cluster);
            }
        }
    }
    picked
}

/// Clusternet's TaintToleration score, as a rank: the PreferNoSchedule
/// taints of the cluster the Subscription does not tolerate.
fn untolerated_preferences(spec: &SubscriptionSpec, cluster: &Cluster) -> usize {
    cluster
        .taints
        .iter()
        .filter(|t| t.effect == TaintEffect::PreferNoSchedule)
        .filter(|t| !spec.cluster_tolerations.iter().any(|tol| tol.tolerates(t)))
        .count()
}

/// Clusternet's `getWeightList` for one cluster: the sum of the positive
/// weights of the subscribers whose affinity matches it.
fn weight_of(spec: &SubscriptionSpec, cluster: &Cluster) -> u64 {
    spec.subscribers
        .iter()
        .filter(|s| s.weight() > 0)
        .filter(|s| {
            s.cluster_affinity
                .as_ref()
                .is_some_and(|a| a.matches(&cluster.labels))
        })
        .map(|s| s.weight())
        .fold(0, u64::saturating_add)
}

/// Clusternet's static division (`staticDivideReplicas`): each cluster gets
/// `floor(weight × desired / sum)`, and the replicas left over go one each to
/// the heaviest clusters, ties in the given order. Not Hamilton's largest
/// remainder and not Karmada's Webster. `None` when the weights sum to zero:
/// Clusternet then divides nothing and every cluster gets the whole feed.
pub fn static_divide(desired: u64, weights: &[u64]) -> Option<Vec<u64>> {
    let sum: u128 = weights.iter().map(|&w| u128::from(w)).sum();
    if sum == 0 {
        return None;
    }
    let mut shares: Vec<u64> = weights
        .iter()
        .map(|&w| u64::try_from(u128::from(w) * u128::from(desired) / sum).unwrap_or(u64::MAX))
        .collect();
    let given = shares.iter().fold(0u64, |a, &s| a.saturating_add(s));
    let remain = desired.saturating_sub(given);
    let mut heaviest: Vec<usize> = (0..weights.len()).collect();
    // Stable: among equal weights the earlier cluster gets the replica.
    heaviest.sort_by(|&a, &b| weights[b].cmp(&weights[a]));
    for &i in heaviest
        .iter()
        .take(usize::try_from(remain).unwrap_or(usize::MAX))
    {
        shares[i] += 1;
    }
    Some(shares)
}

/// The feed kinds Clusternet divides: those its FeedInventory registry
/// parses, all with replicas at `/spec/replicas`.
pub fn divisible(api_version: &str, kind: &str) -> bool {
    match kind {
        "Deployment" => matches!(
            api_version,
            "apps/v1" | "apps/v1beta1" | "apps/v1beta2" | "extensions/v1beta1"
        ),
        "ReplicaSet" => matches!(api_version, "apps/v1" | "extensions/v1beta1"),
        "StatefulSet" => matches!(api_version, "apps/v1" | "apps/v1beta1" | "apps/v1beta2"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cluster::ManagedClusterDoc;
    use crate::model::clusternet::Subscriber;
    use crate::model::selector::LabelSelector;

    fn managed(yaml: &str) -> Cluster {
        let doc: ManagedClusterDoc = match serde_saphyr::from_str(yaml) {
            Ok(doc) => doc,
            Err(e) => panic!("{e}"),
        };
        let origin = crate::diag::Origin {
            file: crate::diag::FileId(0),
            pos: crate::node::Pos::default(),
        };
        Cluster::from_clusternet(doc, origin)
    }

    fn subscriber(label: (&str, &str), weight: i32) -> Subscriber {
        Subscriber {
            cluster_affinity: Some(LabelSelector {
                match_labels: [(label.0.to_string(), label.1.to_string())].into(),
                match_expressions: Vec::new(),
            }),
            weight: Some(weight),
            sub_group_strategy: None,
        }
    }

    fn dividing(subscribers: Vec<Subscriber>) -> SubscriptionSpec {
        let text = "{subscribers: [], feeds: [], schedulingStrategy: Dividing, dividingScheduling: {type: Static}}";
        let mut spec: SubscriptionSpec = match serde_saphyr::from_str(text) {
            Ok(spec) => spec,
            Err(e) => panic!("{e}"),
        };
        spec.subscribers = subscribers;
        spec
    }

    /// Clusternet's `TestDivideReplicas` fleet: member1 {a=1}, member2
    /// {b=2}, member3 {a=1, b=1}.
    fn members() -> Vec<Cluster> {
        vec![
            managed("metadata: {name: member1, namespace: ns1, labels: {a: '1'}}"),
            managed("metadata: {name: member2, namespace: ns2, labels: {b: '2'}}"),
            managed("metadata: {name: member3, namespace: ns3, labels: {a: '1', b: '1'}}"),
        ]
    }

    fn divided(spec: &SubscriptionSpec, fleet: &[Cluster], replicas: u64) -> Vec<(String, u64)> {
        let selection = select(spec, fleet);
        let weights: Vec<u64> = selection.clusters.iter().map(|b| b.weight).collect();
        let shares = static_divide(replicas, &weights).unwrap_or_default();
        let mut divided: Vec<(String, u64)> = selection
            .clusters
            .iter()
            .map(|b| b.cluster.clone())
            .zip(shares)
            .collect();
        // As the binder records them: by `namespace/name` (the fleets here
        // have one namespace per cluster, ordered as the names).
        divided.sort();
        divided
    }

    /// Clusternet's `TestDivideReplicas` vectors (12 replicas), restated.
    #[test]
    fn division_over_subscribers_matches_clusternets_own_vectors() {
        let fleet = members();
        let pairs = |v: &[(&str, u64)]| -> Vec<(String, u64)> {
            v.iter().map(|(c, r)| (c.to_string(), *r)).collect()
        };
        let one = dividing(vec![subscriber(("a", "1"), 1)]);
        assert_eq!(divided(&one, &fleet[..1], 12), pairs(&[("member1", 12)]));
        let two = dividing(vec![subscriber(("a", "1"), 1), subscriber(("b", "2"), 2)]);
        assert_eq!(
            divided(&two, &fleet[..2], 12),
            pairs(&[("member1", 4), ("member2", 8)])
        );
        assert_eq!(
            divided(&two, &fleet, 12),
            pairs(&[("member1", 3), ("member2", 6), ("member3", 3)])
        );
        // member3 sums both subscribers that match it; member2 is bound by a
        // weight-0 subscriber only, with no share.
        let summed = dividing(vec![
            subscriber(("a", "1"), 1),
            subscriber(("b", "2"), 0),
            subscriber(("b", "1"), 2),
        ]);
        assert_eq!(
            divided(&summed, &fleet, 12),
            pairs(&[("member1", 3), ("member2", 0), ("member3", 9)])
        );
    }

    #[test]
    fn sub_groups_take_the_first_min_clusters_per_subscriber_once_each() {
        let fleet = members();
        let mut spec = dividing(vec![subscriber(("a", "1"), 1), subscriber(("b", "1"), 1)]);
        spec.scheduling_by_sub_group = Some(true);
        let min = |n: i32| {
            Some(crate::model::clusternet::SubGroupStrategy {
                min_clusters: Some(n),
            })
        };
        let bound = |spec: &SubscriptionSpec| -> Vec<String> {
            select(spec, &fleet)
                .clusters
                .into_iter()
                .map(|b| b.cluster)
                .collect()
        };
        // a=1 matches member1 and member3: the first one; b=1 matches member3.
        spec.subscribers[0].sub_group_strategy = min(1);
        spec.subscribers[1].sub_group_strategy = min(5);
        assert_eq!(bound(&spec), ["member1", "member3"]);
        // Both subscribers pick member3 first when it comes first: once.
        spec.subscribers[0].sub_group_strategy = min(2);
        assert_eq!(bound(&spec), ["member1", "member3"]);
        spec.subscribers[0].sub_group_strategy = min(0);
        spec.subscribers[1].sub_group_strategy = min(0);
        assert!(bound(&spec).is_empty());
    }

    #[test]
    fn untolerated_taints_filter_or_reorder_and_karmada_clusters_are_not_candidates() {
        let mut fleet = members();
        let taint = |key: &str, effect| crate::model::cluster::Taint {
            key: key.into(),
            value: None,
            effect,
            time_added: None,
        };
        fleet[0].taints = vec![taint("soft", TaintEffect::PreferNoSchedule)];
        fleet[1].taints = vec![taint("hard", TaintEffect::NoSchedule)];
        fleet[2].managed = false;
        let mut spec = dividing(vec![
            subscriber(("a", "1"), 1),
            subscriber(("b", "2"), 1),
            subscriber(("b", "1"), 1),
        ]);
        let selection = select(&spec, &fleet);
        let bound: Vec<&str> = selection
            .clusters
            .iter()
            .map(|b| b.cluster.as_str())
            .collect();
        assert_eq!(bound, ["member1"]);
        // A Karmada Cluster is never a candidate; tolerating the hard taint
        // brings member2 in, ahead of member1 whose soft taint lowers its score.
        spec.cluster_tolerations = vec![crate::model::cluster::Toleration {
            key: Some("hard".into()),
            operator: Some(crate::model::cluster::TolerationOperator::Exists),
            value: None,
            effect: None,
            toleration_seconds: None,
        }];
        let selection = select(&spec, &fleet);
        let bound: Vec<&str> = selection
            .clusters
            .iter()
            .map(|b| b.cluster.as_str())
            .collect();
        assert_eq!(bound, ["member2", "member1"]);
    }

    /// Equal scores follow the first subscriber that matches: Clusternet's
    /// scheduler lists each subscriber's clusters in turn
    /// (`findClustersThatFitSubscription`, `generic.go`), and its score and
    /// weight sorts keep that order up to 12 clusters, so the remainder of a
    /// static division goes to the cluster the first subscriber names.
    #[test]
    fn equal_scores_follow_the_first_matching_subscriber_up_to_twelve_clusters() {
        let fleet = vec![
            managed("metadata: {name: a, namespace: ns-a, labels: {region: east}}"),
            managed("metadata: {name: b, namespace: ns-b, labels: {region: west}}"),
        ];
        let spec = dividing(vec![
            subscriber(("region", "west"), 1),
            subscriber(("region", "east"), 1),
        ]);
        assert_eq!(
            divided(&spec, &fleet, 1),
            [("a".to_string(), 0), ("b".to_string(), 1)]
        );
        // Among the clusters one subscriber matches first, the order is a
        // map's in Clusternet: `namespace/name` here.
        let mut fleet = fleet;
        fleet.push(managed(
            "metadata: {name: c, namespace: ns-c, labels: {region: west}}",
        ));
        let order = |fleet: &[Cluster]| -> Vec<String> {
            select(&spec, fleet)
                .clusters
                .into_iter()
                .map(|b| b.cluster)
                .collect()
        };
        assert_eq!(order(&fleet), ["b", "c", "a"]);
        // A lower score still comes last, whichever subscriber matches it.
        fleet[1].taints = vec![crate::model::cluster::Taint {
            key: "soft".into(),
            value: None,
            effect: TaintEffect::PreferNoSchedule,
            time_added: None,
        }];
        assert_eq!(order(&fleet), ["c", "a", "b"]);
    }

    /// Past 12 feasible clusters Go's `sort.Sort` is no longer stable, so
    /// Clusternet's tie order is arbitrary: `namespace/name` order then.
    #[test]
    fn past_twelve_clusters_equal_scores_take_namespace_name_order() {
        let fleet: Vec<Cluster> = (0..13)
            .map(|i| {
                let region = if i == 12 { "west" } else { "east" };
                managed(&format!(
                    "metadata: {{name: m{i:02}, namespace: ns-{i:02}, labels: {{region: {region}}}}}"
                ))
            })
            .collect();
        let spec = dividing(vec![
            subscriber(("region", "west"), 1),
            subscriber(("region", "east"), 1),
        ]);
        let first = |spec: &SubscriptionSpec, fleet: &[Cluster]| {
            select(spec, fleet).clusters[0].cluster.clone()
        };
        assert_eq!(first(&spec, &fleet), "m00");
        // With 12, the west cluster the first subscriber matches leads.
        assert_eq!(first(&spec, &fleet[1..]), "m12");
    }

    /// Clusternet's `TestStaticDivideReplicas` vectors, restated.
    #[test]
    fn static_division_matches_clusternets_own_vectors() {
        assert_eq!(static_divide(5, &[2, 1, 0, 2]), Some(vec![2, 1, 0, 2]));
        assert_eq!(static_divide(10, &[2, 1, 2]), Some(vec![4, 2, 4]));
        // A tie for the remainder: the earlier cluster wins.
        assert_eq!(static_divide(6, &[2, 1, 0, 2]), Some(vec![3, 1, 0, 2]));
        // The remainder goes to the heaviest cluster, not the largest
        // fraction (largest remainder would give [3, 1, 0, 1]).
        assert_eq!(static_divide(5, &[5, 1, 0, 2]), Some(vec![4, 0, 0, 1]));
    }

    #[test]
    fn weights_summing_to_zero_divide_nothing() {
        assert_eq!(static_divide(7, &[0, 0]), None);
        assert_eq!(static_divide(7, &[]), None);
        assert_eq!(static_divide(0, &[1, 1]), Some(vec![0, 0]));
    }

    #[test]
    fn clusternet_divides_only_the_kinds_its_feed_inventory_parses() {
        assert!(divisible("apps/v1", "Deployment"));
        assert!(divisible("extensions/v1beta1", "ReplicaSet"));
        assert!(divisible("apps/v1beta2", "StatefulSet"));
        assert!(!divisible("apps/v1", "DaemonSet"));
        assert!(!divisible("batch/v1", "Job"));
        assert!(!divisible("apps/v1beta1", "ReplicaSet"));
    }
}

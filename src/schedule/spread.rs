//! Spread constraints: which of the filtered clusters a placement may use.
//!
//! This reproduces Karmada v1.19's `SelectBestClusters`
//! (`pkg/scheduler/core/spreadconstraint/select_clusters.go`) together with
//! the grouping it relies on (`group_clusters.go`), cluster-only selection
//! (`select_clusters_by_cluster.go`), region selection
//! (`select_clusters_by_region.go`) and the search over region combinations
//! (`select_groups.go`).
//!
//! - Spread constraints are ignored for static-weight division, in Karmada's
//!   exact terms: Divided, Weighted, and either no `weightPreference` or a
//!   non-empty `staticWeightList` without `dynamicWeight`.
//! - Each candidate is seen as Karmada's `ClusterDetailInfo`: its score, and
//!   its available replicas plus the replicas the previous schedule gave it
//!   (Karmada skips the estimators for a template with 0 replicas and uses
//!   `MaxInt32`). Clusters are ordered by score, then available replicas
//!   (both descending), then name.
//! - A `region` constraint wins over a `cluster` one. Regions are scored
//!   (Duplicated: how many clusters can hold all replicas; Divided: how much
//!   of `ceil(replicas / region minGroups)` the region's best clusters hold),
//!   a depth-first search lists every combination of `minGroups..=maxGroups`
//!   regions holding at least the cluster constraint's `minGroups` clusters,
//!   and the heaviest combination wins (then the one with more clusters, then
//!   the one found first; a found combination that is a prefix of the winner
//!   replaces it). Each chosen region gives its best cluster, and the
//!   remaining slots up to the cluster constraint's `maxGroups` go to the
//!   other clusters of the chosen regions in cluster order.
//! - With only a `cluster` constraint, the first `maxGroups` clusters are
//!   kept; when replicas are divided, low-ranked ones are swapped for
//!   clusters with more available replicas until the replicas fit.
//! - `zone` and `provider` constraints select nothing in Karmada v1.19; a
//!   placement whose constraints include neither `cluster` nor `region` (only
//!   `spreadByLabel`) cannot be scheduled there, and fails here too.
//! - `minGroups` defaults to 1 (Karmada's webhook); `maxGroups` has no
//!   default, and 0 selects no group, as in Karmada.

use super::Candidate;
use crate::model::policy::{
    Division, Placement, ReplicaDivisionPreference, ReplicaSchedulingType, SpreadField,
};
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// Karmada's `weightUnit`: the number of clusters (or replicas) a group holds
/// counts before the average cluster score.
const WEIGHT_UNIT: i64 = 1000;

/// Why the spread constraints leave no cluster to schedule onto; the
/// scheduler reports it as the reason an application is unschedulable.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpreadError {
    /// Only `zone`, `provider` or `spreadByLabel` constraints: Karmada v1.19
    /// selects clusters by `cluster` and `region` only.
    #[error(
        "only `cluster` and `region` spread constraints select clusters (karmada v1.19); \
         these spread constraints include neither, so nothing can be scheduled"
    )]
    NeitherClusterNorRegion,
    #[error("the spread constraint needs at least {needed} regions; the candidates span {found}")]
    TooFewRegions { needed: usize, found: usize },
    /// `maxGroups` of the region constraint is unset or 0.
    #[error("the region spread constraint sets no maxGroups, so no region can be chosen")]
    NoRegionMaxGroups,
    #[error(
        "no combination of {min} to {max} regions holds the {clusters} clusters the cluster spread constraint needs"
    )]
    NoRegionCombination {
        min: usize,
        max: usize,
        clusters: usize,
    },
    #[error("the spread constraint needs at least {needed} clusters; only {found} are candidates")]
    TooFewClusters { needed: usize, found: usize },
    /// `maxGroups` of the cluster constraint is unset or 0.
    #[error("the cluster spread constraint sets no maxGroups, so no cluster can be chosen")]
    NoClusterMaxGroups,
    #[error(
        "the best {count} clusters cannot hold {replicas} replicas, even swapping in clusters with more available replicas"
    )]
    ReplicasDoNotFit { count: usize, replicas: i64 },
}

/// Select the clusters the spread constraints allow, in Karmada's order.
///
/// `replicas` is the template's desired replica count (Karmada's
/// `spec.replicas`); `previous` the replicas the previous schedule gave
/// each cluster.
pub fn apply<'a>(
    placement: &Placement,
    division: &Division,
    replicas: u64,
    candidates: Vec<Candidate<'a>>,
    previous: &BTreeMap<&str, u64>,
) -> Result<Vec<Candidate<'a>>, SpreadError> {
    if placement.spread_constraints.is_empty() || spread_is_ignored(placement) {
        return Ok(candidates);
    }
    let cluster = Limits::of(placement, SpreadField::Cluster);
    let region = Limits::of(placement, SpreadField::Region);
    let replicas = i64::try_from(replicas).unwrap_or(i64::MAX);
    let details = details(candidates, replicas, previous);

    let selected = if let Some(region) = region {
        let divided = !matches!(division, Division::Duplicated);
        let cluster_min = cluster.map_or(0, |c| c.min);
        let regions = group_by_region(details, |clusters| {
            if divided {
                divided_group_score(clusters, replicas, region.min, cluster_min)
            } else {
                duplicated_group_score(clusters, replicas)
            }
        });
        select_by_region(
            regions,
            region,
            cluster.unwrap_or(Limits { min: 0, max: 0 }),
        )?
    } else if let Some(cluster) = cluster {
        // Karmada ignores available resources for Duplicated (`InvalidReplicas`).
        let need = (!matches!(division, Division::Duplicated)).then_some(replicas);
        select_by_cluster(details, cluster, need)?
    } else {
        return Err(SpreadError::NeitherClusterNorRegion);
    };
    Ok(selected.into_iter().map(|d| d.candidate).collect())
}

/// Karmada's `shouldIgnoreSpreadConstraint`: static-weight division.
fn spread_is_ignored(placement: &Placement) -> bool {
    let Some(strategy) = &placement.replica_scheduling else {
        return false;
    };
    let divided = strategy
        .replica_scheduling_type
        .unwrap_or(ReplicaSchedulingType::Divided)
        == ReplicaSchedulingType::Divided;
    let weighted = strategy
        .replica_division_preference
        .unwrap_or(ReplicaDivisionPreference::Weighted)
        == ReplicaDivisionPreference::Weighted;
    divided
        && weighted
        && strategy
            .weight_preference
            .as_ref()
            .is_none_or(|p| !p.static_weight_list.is_empty() && p.dynamic_weight.is_none())
}

/// `minGroups` and `maxGroups` of one constraint, after Karmada's defaulting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Limits {
    min: usize,
    max: usize,
}

impl Limits {
    /// The constraint spreading by `field`; the last one wins, as in Karmada's map.
    fn of(placement: &Placement, field: SpreadField) -> Option<Limits> {
        placement
            .spread_constraints
            .iter()
            .rev()
            .find(|c| c.spread_by_field == Some(field))
            .map(|c| Limits {
                min: match c.min_groups {
                    None | Some(0) => 1,
                    Some(m) => m as usize,
                },
                max: c.max_groups.unwrap_or(0) as usize,
            })
    }
}

/// A candidate as Karmada's `ClusterDetailInfo` sees it.
#[derive(Clone, Debug)]
struct Detail<'a> {
    candidate: Candidate<'a>,
    score: i64,
    /// Available replicas plus the replicas already assigned to the cluster.
    available: i64,
}

impl Detail<'_> {
    fn name(&self) -> &str {
        &self.candidate.cluster.name
    }
}

/// Karmada's `sortClusters` with the available-replicas comparison.
fn cluster_order(a: &Detail<'_>, b: &Detail<'_>) -> Ordering {
    b.score
        .cmp(&a.score)
        .then(b.available.cmp(&a.available))
        .then_with(|| a.name().cmp(b.name()))
}

/// Karmada's `generateClustersInfo`.
fn details<'a>(
    candidates: Vec<Candidate<'a>>,
    replicas: i64,
    previous: &BTreeMap<&str, u64>,
) -> Vec<Detail<'a>> {
    let max_i32 = i64::from(i32::MAX);
    let mut details: Vec<Detail<'a>> = candidates
        .into_iter()
        .map(|candidate| {
            // Without replicas Karmada runs no estimator and keeps MaxInt32.
            let estimated = if replicas == 0 {
                max_i32
            } else {
                i64::try_from(candidate.available)
                    .unwrap_or(max_i32)
                    .min(max_i32)
            };
            let assigned = previous
                .get(candidate.cluster.name.as_str())
                .map_or(0, |r| i64::try_from(*r).unwrap_or(max_i32));
            Detail {
                score: i64::from(candidate.score),
                available: estimated.saturating_add(assigned),
                candidate,
            }
        })
        .collect();
    details.sort_by(cluster_order);
    details
}

/// Karmada's `calcGroupScoreForDuplicate`: clusters able to run every
/// replica count first, then their average score.
fn duplicated_group_score(clusters: &[Detail<'_>], replicas: i64) -> i64 {
    let valid: Vec<&Detail<'_>> = clusters
        .iter()
        .filter(|c| c.available >= replicas)
        .collect();
    if valid.is_empty() {
        return 0;
    }
    let count = valid.len() as i64;
    let scores: i64 = valid.iter().map(|c| c.score).sum();
    count * WEIGHT_UNIT + scores / count
}

/// Karmada's `calcGroupScore` for Divided: how many of the replicas one
/// group should take (`ceil(replicas / group minGroups)`) its best clusters
/// hold, walking at least max(cluster minGroups, group minGroups) of them,
/// then their average score.
fn divided_group_score(
    clusters: &[Detail<'_>],
    replicas: i64,
    group_min: usize,
    cluster_min: usize,
) -> i64 {
    let group_min = group_min.max(1) as i64;
    let target = (replicas + group_min - 1) / group_min;
    let cluster_min = (cluster_min as i64).max(group_min);
    let (mut available, mut scores, mut walked) = (0i64, 0i64, 0i64);
    for cluster in clusters {
        available = available.saturating_add(cluster.available);
        scores += cluster.score;
        walked += 1;
        if walked >= cluster_min && available >= target {
            break;
        }
    }
    if walked == 0 {
        return 0;
    }
    if available < target {
        return available * WEIGHT_UNIT + scores / clusters.len() as i64;
    }
    target * WEIGHT_UNIT + scores / walked
}

/// A region with its clusters (in cluster order) and score.
#[derive(Clone, Debug)]
struct Region<'a> {
    name: String,
    score: i64,
    clusters: Vec<Detail<'a>>,
}

/// Karmada's `generateRegionInfo`: clusters without a region belong to none.
fn group_by_region<'a>(
    details: Vec<Detail<'a>>,
    score: impl Fn(&[Detail<'a>]) -> i64,
) -> Vec<Region<'a>> {
    let mut by_name: BTreeMap<String, Vec<Detail<'a>>> = BTreeMap::new();
    for detail in details {
        if let Some(region) = detail.candidate.cluster.region.clone() {
            if !region.is_empty() {
                by_name.entry(region).or_default().push(detail);
            }
        }
    }
    by_name
        .into_iter()
        .map(|(name, clusters)| Region {
            score: score(&clusters),
            name,
            clusters,
        })
        .collect()
}

/// Karmada's `selectBestClustersByRegion`.
fn select_by_region<'a>(
    regions: Vec<Region<'a>>,
    region: Limits,
    cluster: Limits,
) -> Result<Vec<Detail<'a>>, SpreadError> {
    if regions.len() < region.min {
        return Err(SpreadError::TooFewRegions {
            needed: region.min,
            found: regions.len(),
        });
    }
    let groups: Vec<Group> = regions
        .iter()
        .map(|r| Group {
            name: r.name.clone(),
            value: r.clusters.len(),
            weight: r.score,
        })
        .collect();
    let chosen = select_groups(&groups, region.min, region.max, cluster.min);
    if chosen.is_empty() {
        if region.max == 0 {
            return Err(SpreadError::NoRegionMaxGroups);
        }
        return Err(SpreadError::NoRegionCombination {
            min: region.min,
            max: region.max,
            clusters: cluster.min,
        });
    }
    let mut by_name: BTreeMap<String, Vec<Detail<'a>>> =
        regions.into_iter().map(|r| (r.name, r.clusters)).collect();
    let mut selected = Vec::new();
    let mut rest = Vec::new();
    for name in chosen {
        let mut clusters = by_name.remove(&name).unwrap_or_default().into_iter();
        selected.extend(clusters.next());
        rest.extend(clusters);
    }
    let wanted = (selected.len() + rest.len()).min(cluster.max);
    if wanted > selected.len() {
        rest.sort_by(cluster_order);
        let more = wanted - selected.len();
        selected.extend(rest.into_iter().take(more));
    }
    Ok(selected)
}

/// One group for [`select_groups`]: `value` clusters, `weight` its score.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Group {
    name: String,
    value: usize,
    weight: i64,
}

/// A combination found by the search; `groups` index the sorted groups.
#[derive(Clone, Debug)]
struct Path {
    id: usize,
    groups: Vec<usize>,
    weight: i64,
    value: usize,
}

/// Karmada's `selectGroups`: the names of the best combination of
/// `min..=max` groups whose values add up to at least `target`, heaviest
/// group first; empty when there is none.
fn select_groups(groups: &[Group], min: usize, max: usize, target: usize) -> Vec<String> {
    if groups.is_empty() {
        return Vec::new();
    }
    let mut sorted: Vec<&Group> = groups.iter().collect();
    sorted.sort_by(|a, b| {
        a.value
            .cmp(&b.value)
            .then(b.weight.cmp(&a.weight))
            .then_with(|| a.name.cmp(&b.name))
    });
    let paths = feasible_paths(&sorted, min, max, target);
    match best_path(paths) {
        Some(path) => path
            .groups
            .iter()
            .map(|i| sorted[*i].name.clone())
            .collect(),
        None => Vec::new(),
    }
}

/// Karmada's `findFeasiblePaths`: depth-first over groups in (value asc,
/// weight desc, name asc) order; a path stops growing once it reaches the
/// target with an allowed length.
fn feasible_paths(groups: &[&Group], min: usize, max: usize, target: usize) -> Vec<Path> {
    struct Search<'g, 'h> {
        groups: &'g [&'h Group],
        min: usize,
        max: usize,
        target: usize,
        current: Vec<usize>,
        found: Vec<Path>,
    }
    impl Search<'_, '_> {
        fn visit(&mut self, sum: usize, begin: usize) {
            let len = self.current.len();
            if sum >= self.target && len >= self.min && len <= self.max {
                self.record();
                return;
            }
            if len >= self.max {
                return;
            }
            for i in begin..self.groups.len() {
                self.current.push(i);
                self.visit(sum + self.groups[i].value, i + 1);
                // Every group is needed to reach the minimum: one path only.
                if self.groups.len() == self.min {
                    break;
                }
                self.current.pop();
            }
        }

        fn record(&mut self) {
            let mut members = self.current.clone();
            members.sort_by(|a, b| {
                let (a, b) = (self.groups[*a], self.groups[*b]);
                b.weight.cmp(&a.weight).then_with(|| a.name.cmp(&b.name))
            });
            let path = Path {
                id: self.found.len() + 1,
                weight: members.iter().map(|i| self.groups[*i].weight).sum(),
                value: members.iter().map(|i| self.groups[*i].value).sum(),
                groups: members,
            };
            self.found.push(path);
        }
    }
    let mut search = Search {
        groups,
        min,
        max,
        target,
        current: Vec::new(),
        found: Vec::new(),
    };
    search.visit(0, 0);
    search.found
}

/// Karmada's `prioritizePaths`: weight, then value (both descending), then
/// the order found; a later-ranked path that is a strict prefix of the
/// current choice replaces it.
fn best_path(mut paths: Vec<Path>) -> Option<Path> {
    paths.sort_by(|a, b| {
        b.weight
            .cmp(&a.weight)
            .then(b.value.cmp(&a.value))
            .then(a.id.cmp(&b.id))
    });
    let mut paths = paths.into_iter();
    let mut best = paths.next()?;
    for path in paths {
        if path.groups.len() < best.groups.len() && best.groups.starts_with(&path.groups) {
            best = path;
        }
    }
    Some(best)
}

/// Karmada's `selectBestClustersByCluster`; `need` is the replica count to
/// fit when replicas are divided, `None` for Duplicated.
fn select_by_cluster<'a>(
    details: Vec<Detail<'a>>,
    cluster: Limits,
    need: Option<i64>,
) -> Result<Vec<Detail<'a>>, SpreadError> {
    if details.len() < cluster.min {
        return Err(SpreadError::TooFewClusters {
            needed: cluster.min,
            found: details.len(),
        });
    }
    let count = details.len().min(cluster.max);
    if count == 0 {
        // Karmada selects no cluster and then fails to assign replicas.
        return Err(SpreadError::NoClusterMaxGroups);
    }
    let selected = match need {
        None => details.into_iter().take(count).collect(),
        Some(need) => fit_replicas(details, count, need).ok_or(SpreadError::ReplicasDoNotFit {
            count,
            replicas: need,
        })?,
    };
    Ok(selected)
}

/// Karmada's `selectClustersByAvailableResource`: keep the first `count`
/// clusters; while they cannot hold `need` replicas, replace them from the
/// last upwards with the first of the other clusters having the most
/// available replicas (more than the one replaced), which then joins the
/// others. `None` when the replicas still do not fit.
fn fit_replicas<'a>(
    mut details: Vec<Detail<'a>>,
    count: usize,
    need: i64,
) -> Option<Vec<Detail<'a>>> {
    let fits = |chosen: &[Detail<'_>]| chosen.iter().map(|c| c.available).sum::<i64>() >= need;
    let mut others = details.split_off(count);
    let mut chosen = details;
    let mut slot = chosen.len();
    while !fits(&chosen) && slot > 0 {
        slot -= 1;
        let mut best: Option<usize> = None;
        let mut most = chosen[slot].available;
        for (i, other) in others.iter().enumerate() {
            if other.available > most {
                most = other.available;
                best = Some(i);
            }
        }
        if let Some(i) = best {
            std::mem::swap(&mut chosen[slot], &mut others[i]);
        }
    }
    fits(&chosen).then_some(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{FileId, Origin};
    use crate::load::yaml::Pos;
    use crate::model::cluster::Cluster;
    use crate::model::policy::{
        ClusterPreferences, ReplicaSchedulingStrategy, SpreadConstraint, StaticClusterWeight,
    };

    fn cluster(name: &str, region: &str) -> Cluster {
        Cluster {
            name: name.into(),
            labels: Default::default(),
            provider: Some("P1".into()),
            region: (!region.is_empty()).then(|| region.into()),
            zones: vec!["Z1".into()],
            taints: Vec::new(),
            paused: false,
            api_enablements: None,
            resource_summary: None,
            origin: Origin {
                file: FileId(0),
                pos: Pos { line: 1, column: 1 },
            },
        }
    }

    fn candidate(cluster: &Cluster, score: u32, available: u64) -> Candidate<'_> {
        Candidate {
            cluster,
            score,
            available,
        }
    }

    fn constraint(field: SpreadField, min: u32, max: u32) -> SpreadConstraint {
        SpreadConstraint {
            spread_by_field: Some(field),
            spread_by_label: None,
            max_groups: Some(max),
            min_groups: Some(min),
        }
    }

    fn placement(
        constraints: Vec<SpreadConstraint>,
        strategy: Option<ReplicaSchedulingStrategy>,
    ) -> Placement {
        Placement {
            spread_constraints: constraints,
            replica_scheduling: strategy,
            ..Default::default()
        }
    }

    fn divided(preference: ReplicaDivisionPreference) -> Option<ReplicaSchedulingStrategy> {
        Some(ReplicaSchedulingStrategy {
            replica_scheduling_type: Some(ReplicaSchedulingType::Divided),
            replica_division_preference: Some(preference),
            weight_preference: None,
        })
    }

    fn names(selected: &[Candidate<'_>]) -> Vec<String> {
        selected.iter().map(|c| c.cluster.name.clone()).collect()
    }

    fn detail(cluster: &Cluster, score: u32, available: i64) -> Detail<'_> {
        Detail {
            candidate: candidate(cluster, score, 0),
            score: i64::from(score),
            available,
        }
    }

    fn detail_names(selected: &[Detail<'_>]) -> Vec<String> {
        selected.iter().map(|d| d.name().to_string()).collect()
    }

    fn group(name: &str, value: usize, weight: i64) -> Group {
        Group {
            name: name.into(),
            value,
            weight,
        }
    }

    fn no_previous() -> BTreeMap<&'static str, u64> {
        BTreeMap::new()
    }

    /// Karmada's four-cluster fixture: member4 (60, 50), member2 (40, 60),
    /// member3 (30, 80), member1 (20, 40) as (score, available).
    fn four_members() -> Vec<Cluster> {
        ["member4", "member2", "member3", "member1"]
            .iter()
            .map(|n| cluster(n, "R1"))
            .collect()
    }

    fn four_candidates(fleet: &[Cluster]) -> Vec<Candidate<'_>> {
        let stats = [(60, 50), (40, 60), (30, 80), (20, 40)];
        fleet
            .iter()
            .zip(stats)
            .map(|(c, (s, a))| candidate(c, s, a))
            .collect()
    }

    #[test]
    fn cluster_spread_keeps_the_best_max_groups_clusters_by_score() {
        let fleet = four_members();
        let p = placement(vec![constraint(SpreadField::Cluster, 1, 2)], None);
        let got = apply(
            &p,
            &Division::Duplicated,
            100,
            four_candidates(&fleet),
            &no_previous(),
        );
        assert_eq!(names(&got.unwrap()), ["member4", "member2"]);
    }

    #[test]
    fn duplicated_cluster_spread_ignores_available_replicas() {
        let fleet = four_members();
        let strategy = Some(ReplicaSchedulingStrategy {
            replica_scheduling_type: Some(ReplicaSchedulingType::Duplicated),
            ..Default::default()
        });
        let p = placement(vec![constraint(SpreadField::Cluster, 1, 2)], strategy);
        let got = apply(
            &p,
            &Division::Duplicated,
            120,
            four_candidates(&fleet),
            &no_previous(),
        );
        assert_eq!(names(&got.unwrap()), ["member4", "member2"]);
    }

    #[test]
    fn static_weight_division_ignores_spread_constraints() {
        let fleet = four_members();
        let rules = vec![StaticClusterWeight {
            target_cluster: Default::default(),
            weight: 2,
        }];
        let mut strategy = divided(ReplicaDivisionPreference::Weighted);
        if let Some(s) = strategy.as_mut() {
            s.weight_preference = Some(ClusterPreferences {
                static_weight_list: rules.clone(),
                dynamic_weight: None,
            });
        }
        let p = placement(vec![constraint(SpreadField::Cluster, 1, 2)], strategy);
        let got = apply(
            &p,
            &Division::StaticWeighted(rules),
            120,
            four_candidates(&fleet),
            &no_previous(),
        );
        assert_eq!(names(&got.unwrap()).len(), 4);
    }

    #[test]
    fn divided_cluster_spread_swaps_in_a_cluster_with_room_for_the_replicas() {
        let fleet = four_members();
        let p = placement(
            vec![constraint(SpreadField::Cluster, 1, 2)],
            divided(ReplicaDivisionPreference::Aggregated),
        );
        let got = apply(
            &p,
            &Division::Aggregated,
            120,
            four_candidates(&fleet),
            &no_previous(),
        );
        assert_eq!(names(&got.unwrap()), ["member4", "member3"]);
    }

    #[test]
    fn divided_cluster_spread_fails_when_no_swap_makes_room() {
        let fleet = four_members();
        let p = placement(
            vec![constraint(SpreadField::Cluster, 1, 2)],
            divided(ReplicaDivisionPreference::Aggregated),
        );
        let got = apply(
            &p,
            &Division::Aggregated,
            200,
            four_candidates(&fleet),
            &no_previous(),
        );
        assert!(got.is_err());
    }

    #[test]
    fn cluster_spread_fails_below_min_groups() {
        let fleet = four_members();
        let p = placement(vec![constraint(SpreadField::Cluster, 7, 7)], None);
        let got = apply(
            &p,
            &Division::Duplicated,
            30,
            four_candidates(&fleet),
            &no_previous(),
        );
        assert_eq!(
            got.unwrap_err().to_string(),
            "the spread constraint needs at least 7 clusters; only 4 are candidates"
        );
    }

    #[test]
    fn cluster_spread_without_max_groups_selects_nothing_and_fails() {
        let fleet = four_members();
        let mut c = constraint(SpreadField::Cluster, 1, 0);
        c.max_groups = None;
        let p = placement(vec![c], None);
        assert!(apply(
            &p,
            &Division::Duplicated,
            1,
            four_candidates(&fleet),
            &no_previous()
        )
        .is_err());
    }

    #[test]
    fn label_only_spread_cannot_be_scheduled() {
        let fleet = four_members();
        let p = placement(
            vec![SpreadConstraint {
                spread_by_label: Some("team".into()),
                ..Default::default()
            }],
            None,
        );
        assert!(apply(
            &p,
            &Division::Duplicated,
            1,
            four_candidates(&fleet),
            &no_previous()
        )
        .is_err());
    }

    #[test]
    fn previously_assigned_replicas_count_as_available() {
        // a has fewer free replicas but already runs 30 of them: a 50+30 vs b 60.
        let fleet = [cluster("a", "R1"), cluster("b", "R1")];
        let candidates = vec![candidate(&fleet[1], 0, 60), candidate(&fleet[0], 0, 50)];
        let previous: BTreeMap<&str, u64> = [("a", 30)].into_iter().collect();
        let p = placement(vec![constraint(SpreadField::Cluster, 1, 1)], None);
        let got = apply(&p, &Division::Duplicated, 80, candidates, &previous);
        assert_eq!(names(&got.unwrap()), ["a"]);
    }

    fn region<'a>(name: &str, score: i64, clusters: Vec<Detail<'a>>) -> Region<'a> {
        Region {
            name: name.into(),
            score,
            clusters,
        }
    }

    fn limits(min: usize, max: usize) -> Limits {
        Limits { min, max }
    }

    #[test]
    fn region_spread_picks_the_region_with_the_higher_score() {
        let f: Vec<Cluster> = (1..=5)
            .map(|i| cluster(&format!("member{i}"), ""))
            .collect();
        let regions = vec![
            region(
                "R1",
                100,
                vec![detail(&f[0], 100, 40), detail(&f[1], 80, 40)],
            ),
            region(
                "R2",
                80,
                vec![
                    detail(&f[2], 80, 40),
                    detail(&f[3], 80, 40),
                    detail(&f[4], 60, 40),
                ],
            ),
        ];
        let got = select_by_region(regions, limits(1, 1), limits(2, 2)).unwrap();
        assert_eq!(detail_names(&got), ["member1", "member2"]);
    }

    #[test]
    fn region_spread_prefers_a_region_with_enough_clusters_over_a_better_score() {
        let f: Vec<Cluster> = (1..=5)
            .map(|i| cluster(&format!("member{i}"), ""))
            .collect();
        let regions = vec![
            region(
                "R1",
                100,
                vec![detail(&f[0], 100, 40), detail(&f[1], 80, 40)],
            ),
            region(
                "R2",
                80,
                vec![
                    detail(&f[2], 80, 40),
                    detail(&f[3], 80, 40),
                    detail(&f[4], 60, 40),
                ],
            ),
        ];
        let got = select_by_region(regions, limits(1, 1), limits(3, 3)).unwrap();
        assert_eq!(detail_names(&got), ["member3", "member4", "member5"]);
    }

    fn four_regions(f: &[Cluster]) -> Vec<Region<'_>> {
        vec![
            region("R1", 90, vec![detail(&f[0], 90, 40)]),
            region(
                "R2",
                70,
                vec![
                    detail(&f[1], 70, 40),
                    detail(&f[2], 60, 40),
                    detail(&f[3], 30, 40),
                ],
            ),
            region("R3", 80, vec![detail(&f[4], 80, 40), detail(&f[5], 50, 60)]),
            region(
                "R4",
                50,
                vec![
                    detail(&f[6], 50, 50),
                    detail(&f[7], 40, 50),
                    detail(&f[8], 10, 50),
                    detail(&f[9], 0, 50),
                ],
            ),
        ]
    }

    #[test]
    fn region_spread_takes_the_heaviest_combination_that_holds_the_cluster_minimum() {
        let f: Vec<Cluster> = (1..=10)
            .map(|i| cluster(&format!("member{i}"), ""))
            .collect();
        // Two regions with at least 4 clusters: R1+R2 (160) beats R3+R2, R1+R4, R3+R4, R2+R4.
        let got = select_by_region(four_regions(&f), limits(2, 2), limits(4, 5)).unwrap();
        assert_eq!(
            detail_names(&got),
            ["member1", "member2", "member3", "member4"]
        );
    }

    #[test]
    fn region_spread_grows_past_min_groups_and_fills_by_cluster_order() {
        let f: Vec<Cluster> = (1..=8)
            .map(|i| cluster(&format!("member{i}"), ""))
            .collect();
        let regions = vec![
            region("R1", 70, vec![detail(&f[0], 70, 40)]),
            region(
                "R2",
                40,
                vec![
                    detail(&f[1], 40, 40),
                    detail(&f[2], 40, 40),
                    detail(&f[3], 40, 40),
                ],
            ),
            region("R3", 60, vec![detail(&f[4], 60, 40), detail(&f[5], 50, 60)]),
            region("R4", 70, vec![detail(&f[6], 70, 100)]),
            region("R5", 50, vec![detail(&f[7], 50, 50)]),
        ];
        let got = select_by_region(regions, limits(1, 3), limits(6, 8)).unwrap();
        assert_eq!(
            detail_names(&got),
            ["member1", "member5", "member2", "member6", "member3", "member4"]
        );
    }

    #[test]
    fn region_spread_fails_below_region_min_groups() {
        let f: Vec<Cluster> = (1..=5)
            .map(|i| cluster(&format!("member{i}"), ""))
            .collect();
        let regions = vec![
            region(
                "R1",
                100,
                vec![detail(&f[0], 100, 40), detail(&f[1], 80, 40)],
            ),
            region(
                "R2",
                80,
                vec![
                    detail(&f[2], 80, 40),
                    detail(&f[3], 80, 40),
                    detail(&f[4], 60, 40),
                ],
            ),
        ];
        let got = select_by_region(regions, limits(3, 3), limits(3, 3));
        assert_eq!(
            got.unwrap_err().to_string(),
            "the spread constraint needs at least 3 regions; the candidates span 2"
        );
    }

    #[test]
    fn region_spread_fails_when_no_allowed_combination_holds_enough_clusters() {
        let f: Vec<Cluster> = (1..=5)
            .map(|i| cluster(&format!("member{i}"), ""))
            .collect();
        let regions = vec![
            region(
                "R1",
                100,
                vec![detail(&f[0], 100, 40), detail(&f[1], 80, 60)],
            ),
            region(
                "R2",
                80,
                vec![
                    detail(&f[2], 80, 40),
                    detail(&f[3], 80, 40),
                    detail(&f[4], 60, 40),
                ],
            ),
        ];
        assert!(select_by_region(regions, limits(1, 1), limits(4, 4)).is_err());
        let single = vec![region(
            "R1",
            100,
            vec![detail(&f[0], 100, 40), detail(&f[1], 80, 20)],
        )];
        assert!(select_by_region(single, limits(1, 1), limits(3, 4)).is_err());
    }

    #[test]
    fn region_spread_without_max_groups_chooses_no_region() {
        let f = [cluster("member1", "")];
        let regions = vec![region("R1", 100, vec![detail(&f[0], 100, 40)])];
        assert!(select_by_region(regions, limits(1, 0), limits(1, 1)).is_err());
    }

    fn chosen(groups: &[Group], min: usize, max: usize, target: usize) -> Vec<String> {
        select_groups(groups, min, max, target)
    }

    #[test]
    fn select_groups_finds_nothing_without_enough_groups_or_value() {
        assert!(chosen(&[], 2, 3, 1).is_empty());
        assert!(chosen(&[group("R1", 1, 80)], 2, 3, 1).is_empty());
        assert!(chosen(&[group("R1", 1, 80), group("R2", 2, 30)], 2, 3, 4).is_empty());
        assert_eq!(chosen(&[group("R1", 1, 80)], 1, 3, 1), ["R1"]);
    }

    #[test]
    fn select_groups_returns_the_only_feasible_path_heaviest_first() {
        let groups = [
            group("R1", 1, 80),
            group("R3", 1, 80),
            group("R2", 1, 60),
            group("R5", 2, 60),
            group("R4", 5, 50),
            group("R6", 3, 50),
        ];
        assert_eq!(chosen(&groups, 1, 3, 10), ["R5", "R4", "R6"]);
    }

    #[test]
    fn select_groups_prefers_a_shorter_path_that_prefixes_the_best() {
        let groups = [
            group("R1", 1, 80),
            group("R2", 4, 40),
            group("R3", 1, 30),
            group("R4", 3, 30),
            group("R5", 3, 20),
            group("R6", 5, 10),
        ];
        assert_eq!(chosen(&groups, 2, 6, 5), ["R1", "R2"]);
    }

    #[test]
    fn select_groups_takes_the_heaviest_path() {
        let groups = [
            group("R1", 1, 60),
            group("R2", 1, 50),
            group("R3", 1, 40),
            group("R4", 3, 30),
            group("R5", 3, 20),
            group("R6", 3, 10),
        ];
        assert_eq!(chosen(&groups, 1, 3, 6), ["R1", "R4", "R5"]);
    }

    #[test]
    fn select_groups_breaks_weight_ties_by_the_path_found_first() {
        let groups = [
            group("R1", 1, 60),
            group("R2", 2, 50),
            group("R3", 3, 40),
            group("R4", 4, 30),
        ];
        assert_eq!(chosen(&groups, 1, 2, 5), ["R1", "R4"]);
    }

    #[test]
    fn select_groups_breaks_weight_ties_by_more_clusters() {
        let groups = [
            group("R4", 1, 60),
            group("R3", 3, 50),
            group("R1", 3, 40),
            group("R2", 4, 30),
        ];
        assert_eq!(chosen(&groups, 1, 2, 5), ["R3", "R1"]);
    }

    fn scored(fleet: &[Cluster], scores: [u32; 5], available: [i64; 5]) -> Vec<Detail<'_>> {
        fleet
            .iter()
            .zip(scores.into_iter().zip(available))
            .map(|(c, (s, a))| detail(c, s, a))
            .collect()
    }

    #[test]
    fn duplicated_group_score_counts_clusters_that_hold_every_replica_first() {
        let f: Vec<Cluster> = (1..=5)
            .map(|i| cluster(&format!("member{i}"), ""))
            .collect();
        let wide = scored(&f, [100, 100, 0, 0, 0], [30; 5]);
        let high = scored(&f, [100; 5], [30, 30, 30, 10, 10]);
        assert!(duplicated_group_score(&wide, 20) >= duplicated_group_score(&high, 20));
        let low = scored(&f, [100, 100, 0, 0, 0], [30, 30, 30, 10, 10]);
        assert!(duplicated_group_score(&low, 20) < duplicated_group_score(&high, 20));
        assert_eq!(duplicated_group_score(&[], 10), 0);
        let short = scored(&f, [50; 5], [5; 5]);
        assert_eq!(duplicated_group_score(&short, 10), 0);
        assert_eq!(duplicated_group_score(&high, 20), 3 * WEIGHT_UNIT + 100);
    }

    #[test]
    fn divided_group_score_counts_held_replicas_before_cluster_scores() {
        let f: Vec<Cluster> = (1..=5)
            .map(|i| cluster(&format!("member{i}"), ""))
            .collect();
        let roomy = scored(&f, [100, 100, 0, 0, 0], [30, 30, 30, 10, 10]);
        let tight = scored(&f, [100; 5], [10, 10, 10, 5, 5]);
        assert!(divided_group_score(&roomy, 100, 2, 1) >= divided_group_score(&tight, 100, 2, 1));
        let roomier = scored(&f, [100, 100, 0, 0, 0], [10, 10, 10, 10, 5]);
        assert!(divided_group_score(&roomier, 100, 2, 1) >= divided_group_score(&tight, 100, 2, 1));
        let even = scored(&f, [100, 100, 0, 0, 0], [10, 10, 10, 5, 5]);
        assert!(divided_group_score(&even, 100, 2, 1) < divided_group_score(&tight, 100, 2, 1));
        let big = scored(&f, [0; 5], [100; 5]);
        let full = scored(&f, [100; 5], [50; 5]);
        assert!(divided_group_score(&big, 100, 2, 1) < divided_group_score(&full, 100, 2, 1));
        // target 50 reached by the first two clusters: 50 * 1000 + 100.
        assert_eq!(
            divided_group_score(&full, 100, 2, 1),
            50 * WEIGHT_UNIT + 100
        );
    }

    #[test]
    fn region_spread_with_equal_scores_takes_the_pair_with_more_clusters() {
        // The fixture: ap {ap-1}, eu {eu-1, eu-2}, us {us-1, us-2}; exactly two
        // regions, up to three clusters.
        let fleet = [
            cluster("ap-1", "ap-southeast-1"),
            cluster("eu-1", "eu-west-1"),
            cluster("eu-2", "eu-west-1"),
            cluster("us-1", "us-east-1"),
            cluster("us-2", "us-east-1"),
        ];
        let candidates = fleet.iter().map(|c| candidate(c, 0, 0)).collect();
        let p = placement(
            vec![
                constraint(SpreadField::Region, 2, 2),
                SpreadConstraint {
                    min_groups: None,
                    ..constraint(SpreadField::Cluster, 1, 3)
                },
            ],
            None,
        );
        let got = apply(&p, &Division::Duplicated, 1, candidates, &no_previous()).unwrap();
        assert_eq!(names(&got), ["eu-1", "us-1", "eu-2"]);
    }

    #[test]
    fn region_spread_skips_clusters_without_a_region() {
        let fleet = [cluster("lost", ""), cluster("eu-1", "eu-west-1")];
        let candidates = vec![candidate(&fleet[0], 100, 9), candidate(&fleet[1], 0, 0)];
        let p = placement(
            vec![
                constraint(SpreadField::Region, 1, 1),
                constraint(SpreadField::Cluster, 1, 2),
            ],
            None,
        );
        let got = apply(&p, &Division::Duplicated, 1, candidates, &no_previous()).unwrap();
        assert_eq!(names(&got), ["eu-1"]);
    }

    #[test]
    fn divided_region_spread_prefers_the_region_that_holds_the_replicas() {
        // 10 replicas over at least 1 region: eu holds 10, us only 4.
        let fleet = [cluster("eu-1", "eu"), cluster("us-1", "us")];
        let candidates = vec![candidate(&fleet[1], 0, 4), candidate(&fleet[0], 0, 10)];
        let p = placement(
            vec![
                constraint(SpreadField::Region, 1, 1),
                constraint(SpreadField::Cluster, 1, 1),
            ],
            divided(ReplicaDivisionPreference::Aggregated),
        );
        let got = apply(&p, &Division::Aggregated, 10, candidates, &no_previous()).unwrap();
        assert_eq!(names(&got), ["eu-1"]);
    }
}

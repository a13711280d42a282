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

/// Karmada's `sortClusters` with the available-replicas comparison: the
/// affinity group's own clusters before its overflow groups, in order.
fn cluster_order(a: &Detail<'_>, b: &Detail<'_>) -> Ordering {
    a.candidate
        .overflow
        .cmp(&b.candidate.overflow)
        .then(b.score.cmp(&a.score))
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
    use crate::model::cluster::Cluster;
    use crate::model::policy::{
        ClusterPreferences, ReplicaSchedulingStrategy, SpreadConstraint, StaticClusterWeight,
    };
    use crate::node::Pos;

    fn cluster(name: &str, region: &str) -> Cluster {
        Cluster {
            name: name.into(),
            namespace: None,
            managed: false,
            labels: Default::default(),
            provider: Some("P1".into()),
            region: (!region.is_empty()).then(|| region.into()),
            zones: vec!["Z1".into()],
            taints: Vec::new(),
            tainted_by: Vec::new(),
            conditions: Vec::new(),
            paused: false,
            api_enablements: None,
            resource_summary: None,
            resource_models: Vec::new(),
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
            overflow: 0,
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

    fn divided(preference: ReplicaDivisionPreference) -> Option<ReplicaSchedulingStrategy> {
        Some(ReplicaSchedulingStrategy {
            replica_scheduling_type: Some(ReplicaSchedulingType::Divided),
            replica_division_preference: Some(preference),
            weight_preference: None,
        })
    }

    fn static_weighted(rules: &[StaticClusterWeight]) -> Option<ReplicaSchedulingStrategy> {
        Some(ReplicaSchedulingStrategy {
            weight_preference: Some(ClusterPreferences {
                static_weight_list: rules.to_vec(),
                dynamic_weight: None,
            }),
            ..divided(ReplicaDivisionPreference::Weighted)?
        })
    }

    fn detail(cluster: &Cluster, score: u32, available: i64) -> Detail<'_> {
        Detail {
            candidate: candidate(cluster, score, 0),
            score: i64::from(score),
            available,
        }
    }

    /// Karmada's four-cluster fixture as (name, region, score, available).
    const FOUR_MEMBERS: &[(&str, &str, u32, u64)] = &[
        ("member4", "R1", 60, 50),
        ("member2", "R1", 40, 60),
        ("member3", "R1", 30, 80),
        ("member1", "R1", 20, 40),
    ];

    /// One call of [`apply`].
    struct ApplyCase {
        name: &'static str,
        /// The filtered clusters in candidate order, as (name, region,
        /// score, available).
        candidates: &'static [(&'static str, &'static str, u32, u64)],
        /// Replicas the previous schedule gave each cluster.
        previous: &'static [(&'static str, u64)],
        constraints: Vec<SpreadConstraint>,
        strategy: Option<ReplicaSchedulingStrategy>,
        division: Division,
        replicas: u64,
        /// The selected clusters, in order.
        expected: Result<&'static [&'static str], SpreadError>,
    }

    #[test]
    fn apply_selects_clusters_as_karmada_does() {
        let rules = [StaticClusterWeight {
            target_cluster: Default::default(),
            weight: 2,
        }];
        let cases = [
            ApplyCase {
                name: "a cluster constraint keeps the best maxGroups clusters by score",
                candidates: FOUR_MEMBERS,
                previous: &[],
                constraints: vec![constraint(SpreadField::Cluster, 1, 2)],
                strategy: None,
                division: Division::Duplicated,
                replicas: 100,
                expected: Ok(&["member4", "member2"]),
            },
            ApplyCase {
                name: "Duplicated ignores available replicas",
                candidates: FOUR_MEMBERS,
                previous: &[],
                constraints: vec![constraint(SpreadField::Cluster, 1, 2)],
                strategy: Some(ReplicaSchedulingStrategy {
                    replica_scheduling_type: Some(ReplicaSchedulingType::Duplicated),
                    ..Default::default()
                }),
                division: Division::Duplicated,
                replicas: 120,
                expected: Ok(&["member4", "member2"]),
            },
            ApplyCase {
                name: "static-weight division ignores spread constraints",
                candidates: FOUR_MEMBERS,
                previous: &[],
                constraints: vec![constraint(SpreadField::Cluster, 1, 2)],
                strategy: static_weighted(&rules),
                division: Division::StaticWeighted(rules.to_vec()),
                replicas: 120,
                expected: Ok(&["member4", "member2", "member3", "member1"]),
            },
            ApplyCase {
                name: "Divided swaps in a cluster with room for the replicas",
                candidates: FOUR_MEMBERS,
                previous: &[],
                constraints: vec![constraint(SpreadField::Cluster, 1, 2)],
                strategy: divided(ReplicaDivisionPreference::Aggregated),
                division: Division::Aggregated,
                replicas: 120,
                expected: Ok(&["member4", "member3"]),
            },
            ApplyCase {
                name: "Divided fails when no swap makes room",
                candidates: FOUR_MEMBERS,
                previous: &[],
                constraints: vec![constraint(SpreadField::Cluster, 1, 2)],
                strategy: divided(ReplicaDivisionPreference::Aggregated),
                division: Division::Aggregated,
                replicas: 200,
                expected: Err(SpreadError::ReplicasDoNotFit {
                    count: 2,
                    replicas: 200,
                }),
            },
            ApplyCase {
                name: "fewer candidates than the cluster minGroups",
                candidates: FOUR_MEMBERS,
                previous: &[],
                constraints: vec![constraint(SpreadField::Cluster, 7, 7)],
                strategy: None,
                division: Division::Duplicated,
                replicas: 30,
                expected: Err(SpreadError::TooFewClusters {
                    needed: 7,
                    found: 4,
                }),
            },
            ApplyCase {
                name: "a cluster constraint without maxGroups selects nothing",
                candidates: FOUR_MEMBERS,
                previous: &[],
                constraints: vec![SpreadConstraint {
                    max_groups: None,
                    ..constraint(SpreadField::Cluster, 1, 0)
                }],
                strategy: None,
                division: Division::Duplicated,
                replicas: 1,
                expected: Err(SpreadError::NoClusterMaxGroups),
            },
            ApplyCase {
                name: "a spreadByLabel constraint alone cannot be scheduled",
                candidates: FOUR_MEMBERS,
                previous: &[],
                constraints: vec![SpreadConstraint {
                    spread_by_label: Some("team".into()),
                    ..Default::default()
                }],
                strategy: None,
                division: Division::Duplicated,
                replicas: 1,
                expected: Err(SpreadError::NeitherClusterNorRegion),
            },
            ApplyCase {
                // a has fewer free replicas but already runs 30: a 50+30 vs b 60.
                name: "previously assigned replicas count as available",
                candidates: &[("b", "R1", 0, 60), ("a", "R1", 0, 50)],
                previous: &[("a", 30)],
                constraints: vec![constraint(SpreadField::Cluster, 1, 1)],
                strategy: None,
                division: Division::Duplicated,
                replicas: 80,
                expected: Ok(&["a"]),
            },
            ApplyCase {
                // ap {ap-1}, eu {eu-1, eu-2}, us {us-1, us-2}; exactly two
                // regions, up to three clusters.
                name: "equal region scores: the pair of regions with more clusters wins",
                candidates: &[
                    ("ap-1", "ap-southeast-1", 0, 0),
                    ("eu-1", "eu-west-1", 0, 0),
                    ("eu-2", "eu-west-1", 0, 0),
                    ("us-1", "us-east-1", 0, 0),
                    ("us-2", "us-east-1", 0, 0),
                ],
                previous: &[],
                constraints: vec![
                    constraint(SpreadField::Region, 2, 2),
                    SpreadConstraint {
                        min_groups: None,
                        ..constraint(SpreadField::Cluster, 1, 3)
                    },
                ],
                strategy: None,
                division: Division::Duplicated,
                replicas: 1,
                expected: Ok(&["eu-1", "us-1", "eu-2"]),
            },
            ApplyCase {
                name: "a region constraint skips clusters without a region",
                candidates: &[("lost", "", 100, 9), ("eu-1", "eu-west-1", 0, 0)],
                previous: &[],
                constraints: vec![
                    constraint(SpreadField::Region, 1, 1),
                    constraint(SpreadField::Cluster, 1, 2),
                ],
                strategy: None,
                division: Division::Duplicated,
                replicas: 1,
                expected: Ok(&["eu-1"]),
            },
            ApplyCase {
                // 10 replicas over at least 1 region: eu holds 10, us only 4.
                name: "Divided region spread prefers the region that holds the replicas",
                candidates: &[("us-1", "us", 0, 4), ("eu-1", "eu", 0, 10)],
                previous: &[],
                constraints: vec![
                    constraint(SpreadField::Region, 1, 1),
                    constraint(SpreadField::Cluster, 1, 1),
                ],
                strategy: divided(ReplicaDivisionPreference::Aggregated),
                division: Division::Aggregated,
                replicas: 10,
                expected: Ok(&["eu-1"]),
            },
        ];
        for case in cases {
            let fleet: Vec<Cluster> = case
                .candidates
                .iter()
                .map(|(name, region, _, _)| cluster(name, region))
                .collect();
            let candidates = fleet
                .iter()
                .zip(case.candidates)
                .map(|(c, (_, _, score, available))| candidate(c, *score, *available))
                .collect();
            let previous: BTreeMap<&str, u64> = case.previous.iter().copied().collect();
            let placement = Placement {
                spread_constraints: case.constraints,
                replica_scheduling: case.strategy,
                ..Default::default()
            };
            let got = apply(
                &placement,
                &case.division,
                case.replicas,
                candidates,
                &previous,
            )
            .map(|selected| {
                selected
                    .iter()
                    .map(|c| c.cluster.name.as_str())
                    .collect::<Vec<_>>()
            });
            assert_eq!(got, case.expected.map(<[&str]>::to_vec), "{}", case.name);
        }
    }

    /// A region for [`select_by_region`]: name, score, and its clusters as
    /// (index into the fleet, score, available), in cluster order.
    type RegionRow = (&'static str, i64, &'static [(usize, u32, i64)]);

    /// One call of [`select_by_region`] with the constraints' (min, max).
    struct RegionCase {
        name: &'static str,
        regions: &'static [RegionRow],
        region: (usize, usize),
        cluster: (usize, usize),
        expected: Result<&'static [&'static str], SpreadError>,
    }

    /// R1 (member1, member2) scores higher; R2 (member3..member5) has more clusters.
    const TWO_REGIONS: &[RegionRow] = &[
        ("R1", 100, &[(0, 100, 40), (1, 80, 40)]),
        ("R2", 80, &[(2, 80, 40), (3, 80, 40), (4, 60, 40)]),
    ];

    #[test]
    fn select_by_region_chooses_regions_then_fills_clusters() {
        let cases = [
            RegionCase {
                name: "the region with the higher score",
                regions: TWO_REGIONS,
                region: (1, 1),
                cluster: (2, 2),
                expected: Ok(&["member1", "member2"]),
            },
            RegionCase {
                name: "a region with enough clusters over a better score",
                regions: TWO_REGIONS,
                region: (1, 1),
                cluster: (3, 3),
                expected: Ok(&["member3", "member4", "member5"]),
            },
            RegionCase {
                // Two regions with at least 4 clusters: R1+R2 (160) beats
                // R3+R2, R1+R4, R3+R4, R2+R4.
                name: "the heaviest combination that holds the cluster minimum",
                regions: &[
                    ("R1", 90, &[(0, 90, 40)]),
                    ("R2", 70, &[(1, 70, 40), (2, 60, 40), (3, 30, 40)]),
                    ("R3", 80, &[(4, 80, 40), (5, 50, 60)]),
                    (
                        "R4",
                        50,
                        &[(6, 50, 50), (7, 40, 50), (8, 10, 50), (9, 0, 50)],
                    ),
                ],
                region: (2, 2),
                cluster: (4, 5),
                expected: Ok(&["member1", "member2", "member3", "member4"]),
            },
            RegionCase {
                name: "growing past minGroups and filling by cluster order",
                regions: &[
                    ("R1", 70, &[(0, 70, 40)]),
                    ("R2", 40, &[(1, 40, 40), (2, 40, 40), (3, 40, 40)]),
                    ("R3", 60, &[(4, 60, 40), (5, 50, 60)]),
                    ("R4", 70, &[(6, 70, 100)]),
                    ("R5", 50, &[(7, 50, 50)]),
                ],
                region: (1, 3),
                cluster: (6, 8),
                expected: Ok(&[
                    "member1", "member5", "member2", "member6", "member3", "member4",
                ]),
            },
            RegionCase {
                name: "fewer regions than the region minGroups",
                regions: TWO_REGIONS,
                region: (3, 3),
                cluster: (3, 3),
                expected: Err(SpreadError::TooFewRegions {
                    needed: 3,
                    found: 2,
                }),
            },
            RegionCase {
                name: "no allowed combination holds enough clusters",
                regions: &[
                    ("R1", 100, &[(0, 100, 40), (1, 80, 60)]),
                    ("R2", 80, &[(2, 80, 40), (3, 80, 40), (4, 60, 40)]),
                ],
                region: (1, 1),
                cluster: (4, 4),
                expected: Err(SpreadError::NoRegionCombination {
                    min: 1,
                    max: 1,
                    clusters: 4,
                }),
            },
            RegionCase {
                name: "the only region holds too few clusters",
                regions: &[("R1", 100, &[(0, 100, 40), (1, 80, 20)])],
                region: (1, 1),
                cluster: (3, 4),
                expected: Err(SpreadError::NoRegionCombination {
                    min: 1,
                    max: 1,
                    clusters: 3,
                }),
            },
            RegionCase {
                name: "a region constraint without maxGroups chooses no region",
                regions: &[("R1", 100, &[(0, 100, 40)])],
                region: (1, 0),
                cluster: (1, 1),
                expected: Err(SpreadError::NoRegionMaxGroups),
            },
        ];
        let fleet: Vec<Cluster> = (1..=10)
            .map(|i| cluster(&format!("member{i}"), ""))
            .collect();
        for case in cases {
            let regions = case
                .regions
                .iter()
                .map(|(name, score, clusters)| Region {
                    name: name.to_string(),
                    score: *score,
                    clusters: clusters
                        .iter()
                        .map(|(i, score, available)| detail(&fleet[*i], *score, *available))
                        .collect(),
                })
                .collect();
            let limits = |(min, max)| Limits { min, max };
            let got = select_by_region(regions, limits(case.region), limits(case.cluster)).map(
                |selected| {
                    selected
                        .iter()
                        .map(|d| d.name().to_string())
                        .collect::<Vec<_>>()
                },
            );
            let expected = case
                .expected
                .map(|names| names.iter().map(|n| n.to_string()).collect());
            assert_eq!(got, expected, "{}", case.name);
        }
    }

    #[test]
    fn select_groups_finds_the_best_feasible_combination() {
        // (name, groups as (name, value, weight), min, max, target, expected)
        type GroupCase = (
            &'static str,
            &'static [(&'static str, usize, i64)],
            usize,
            usize,
            usize,
            &'static [&'static str],
        );
        let cases: [GroupCase; 9] = [
            ("no groups", &[], 2, 3, 1, &[]),
            ("fewer groups than min", &[("R1", 1, 80)], 2, 3, 1, &[]),
            (
                "not enough value",
                &[("R1", 1, 80), ("R2", 2, 30)],
                2,
                3,
                4,
                &[],
            ),
            ("one group is enough", &[("R1", 1, 80)], 1, 3, 1, &["R1"]),
            (
                "the only feasible path, heaviest group first",
                &[
                    ("R1", 1, 80),
                    ("R3", 1, 80),
                    ("R2", 1, 60),
                    ("R5", 2, 60),
                    ("R4", 5, 50),
                    ("R6", 3, 50),
                ],
                1,
                3,
                10,
                &["R5", "R4", "R6"],
            ),
            (
                "a shorter path that prefixes the best one",
                &[
                    ("R1", 1, 80),
                    ("R2", 4, 40),
                    ("R3", 1, 30),
                    ("R4", 3, 30),
                    ("R5", 3, 20),
                    ("R6", 5, 10),
                ],
                2,
                6,
                5,
                &["R1", "R2"],
            ),
            (
                "the heaviest path",
                &[
                    ("R1", 1, 60),
                    ("R2", 1, 50),
                    ("R3", 1, 40),
                    ("R4", 3, 30),
                    ("R5", 3, 20),
                    ("R6", 3, 10),
                ],
                1,
                3,
                6,
                &["R1", "R4", "R5"],
            ),
            (
                "equal weights: the path found first",
                &[("R1", 1, 60), ("R2", 2, 50), ("R3", 3, 40), ("R4", 4, 30)],
                1,
                2,
                5,
                &["R1", "R4"],
            ),
            (
                "equal weights: the path with more clusters",
                &[("R4", 1, 60), ("R3", 3, 50), ("R1", 3, 40), ("R2", 4, 30)],
                1,
                2,
                5,
                &["R3", "R1"],
            ),
        ];
        for (name, groups, min, max, target, expected) in cases {
            let groups: Vec<Group> = groups
                .iter()
                .map(|(name, value, weight)| Group {
                    name: name.to_string(),
                    value: *value,
                    weight: *weight,
                })
                .collect();
            assert_eq!(select_groups(&groups, min, max, target), expected, "{name}");
        }
    }

    #[test]
    fn spread_errors_keep_their_wording() {
        let cases = [
            (
                SpreadError::NeitherClusterNorRegion,
                "only `cluster` and `region` spread constraints select clusters (karmada v1.19); these spread constraints include neither, so nothing can be scheduled",
            ),
            (
                SpreadError::TooFewRegions { needed: 3, found: 2 },
                "the spread constraint needs at least 3 regions; the candidates span 2",
            ),
            (
                SpreadError::NoRegionMaxGroups,
                "the region spread constraint sets no maxGroups, so no region can be chosen",
            ),
            (
                SpreadError::NoRegionCombination { min: 1, max: 2, clusters: 4 },
                "no combination of 1 to 2 regions holds the 4 clusters the cluster spread constraint needs",
            ),
            (
                SpreadError::TooFewClusters { needed: 7, found: 4 },
                "the spread constraint needs at least 7 clusters; only 4 are candidates",
            ),
            (
                SpreadError::NoClusterMaxGroups,
                "the cluster spread constraint sets no maxGroups, so no cluster can be chosen",
            ),
            (
                SpreadError::ReplicasDoNotFit { count: 2, replicas: 200 },
                "the best 2 clusters cannot hold 200 replicas, even swapping in clusters with more available replicas",
            ),
        ];
        for (error, wording) in cases {
            assert_eq!(error.to_string(), wording, "{error:?}");
        }
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
}

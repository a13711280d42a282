//! Scheduling: which clusters get an application, and how many replicas each
//! (SPEC §2, karmada-semantics §b and §c).
//!
//! For one template and the policy that claimed it: try the affinity groups
//! in order (starting from the one the previous render observed), filter the
//! fleet by affinity, taints and API enablement, cut by spread constraints,
//! then assign replicas (Duplicated, static-weight Webster, dynamic weight or
//! Aggregated). The previous render's binding is the scheduler's memory: a
//! Divided application whose placement, replicas, clusters and holds are
//! unchanged keeps its assignment. Held clusters (paused or suspended) keep
//! what they had and get nothing new. Never touches fort, overrides or files.

pub mod divide;
pub mod estimate;
pub mod policy_match;
mod spread;

use crate::model::affinity::ClusterAffinity;
use crate::model::cluster::Cluster;
use crate::model::policy::{Division, Placement};
use crate::model::previous::PreviousBinding;
use crate::model::selector::Labels;
use std::collections::{BTreeMap, BTreeSet};

/// One cluster of a binding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assignment {
    pub cluster: String,
    pub replicas: u64,
    /// Frozen: the cluster is paused or suspended and keeps its previous output.
    pub held: bool,
}

/// How the binding came about, for `explain` and the summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// A ResourceBinding in the source pins the clusters.
    Pinned,
    /// The previous render's schedule still holds (nothing Karmada reschedules on changed).
    Kept,
    /// Scheduled now, with the reason.
    Scheduled(String),
    /// Scheduling failed; the previous schedule is kept, as Karmada keeps it.
    KeptAfterFailure(String),
    /// Scheduling failed and there was nothing to keep.
    Unschedulable(String),
}

/// What the scheduler decided for one application.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// In binding order: by name for a computed binding, the user's order when pinned.
    pub clusters: Vec<Assignment>,
    pub desired: u64,
    /// The template has replicas to divide or duplicate.
    pub workload: bool,
    /// Per-cluster replicas are written into the objects (Divided, desired > 0).
    pub revise: bool,
    pub affinity_name: Option<String>,
    pub decision: Decision,
    /// Static weights of the binding's clusters, when the policy divides by them.
    pub static_weights: Option<BTreeMap<String, u64>>,
    /// Every cluster considered, and what happened to it.
    pub notes: Vec<ClusterNote>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterNote {
    pub cluster: String,
    pub note: String,
}

/// What the scheduler needs to know about the template.
#[derive(Clone, Debug)]
pub struct Request<'a> {
    pub api_version: &'a str,
    pub kind: &'a str,
    pub placement: &'a Placement,
    /// Canonical JSON of the placement, compared with the previous render's.
    pub placement_json: &'a str,
    /// `None` for kinds without replicas.
    pub replicas: Option<u64>,
    /// Resource requests of one replica, for dynamic weights.
    pub requirements: Option<&'a estimate::ReplicaRequirements>,
    pub previous: Option<&'a PreviousBinding>,
    /// Clusters paused or suspended for this application.
    pub held: &'a BTreeSet<String>,
}

/// Schedule one application onto `fleet` (sorted by name).
pub fn schedule(request: &Request<'_>, fleet: &[Cluster]) -> Result<Binding, String> {
    let division = request.placement.division();
    let desired = request.replicas.unwrap_or(0);
    let workload = request.replicas.is_some_and(|r| r > 0) || request.requirements.is_some();
    let by_name: BTreeMap<&str, &Cluster> = fleet.iter().map(|c| (c.name.as_str(), c)).collect();
    let previous_clusters: BTreeMap<&str, u64> = request
        .previous
        .map(|p| p.clusters.iter().map(|(c, r)| (c.as_str(), *r)).collect())
        .unwrap_or_default();

    // Held clusters that had the application keep it, frozen (no eviction
    // while paused). Without a workload the binding records no replicas, so
    // none are kept: the next render reads the same binding back.
    let kept_held: Vec<Assignment> = previous_clusters
        .iter()
        .filter(|(c, _)| request.held.contains(**c) && by_name.contains_key(**c))
        .map(|(c, r)| Assignment {
            cluster: c.to_string(),
            replicas: if workload { *r } else { 0 },
            held: true,
        })
        .collect();
    let frozen: u64 = kept_held.iter().map(|a| a.replicas).sum();
    let divided = !matches!(division, Division::Duplicated);
    let revise = divided && workload && desired > 0;
    let static_rules = match &division {
        Division::StaticWeighted(rules) => Some(rules),
        _ => None,
    };

    let mut binding = Binding {
        clusters: Vec::new(),
        desired,
        workload,
        revise,
        affinity_name: None,
        decision: Decision::Scheduled(String::new()),
        static_weights: None,
        notes: Vec::new(),
    };

    if let Some(reason) = keep_reason(
        request,
        &division,
        workload,
        desired,
        &by_name,
        &previous_clusters,
    ) {
        binding.clusters = request
            .previous
            .map(|p| {
                p.clusters
                    .iter()
                    .map(|(c, r)| Assignment {
                        cluster: c.clone(),
                        replicas: *r,
                        held: request.held.contains(c),
                    })
                    .collect()
            })
            .unwrap_or_default();
        binding.affinity_name = request.previous.and_then(|p| p.affinity_name.clone());
        binding.decision = Decision::Kept;
        binding.notes.push(ClusterNote {
            cluster: "*".into(),
            note: reason,
        });
        binding.static_weights =
            static_rules.map(|rules| weights_of(&binding.clusters, rules, &by_name));
        return Ok(binding);
    }

    let terms = request.placement.affinity_terms();
    let start = request
        .previous
        .and_then(|p| p.affinity_name.as_ref())
        .and_then(|name| terms.iter().position(|(n, _)| n.as_ref() == Some(name)))
        .unwrap_or(0);
    let mut failure = String::from("no cluster matches the placement");
    for (name, affinity) in terms.iter().skip(start) {
        let (candidates, notes) = filter(
            request,
            affinity,
            fleet,
            &previous_clusters,
            name.as_deref(),
        );
        binding.notes.extend(notes);
        if candidates.is_empty() {
            failure = match name {
                Some(n) => format!("no cluster matches affinity group `{n}`"),
                None => "no cluster matches the placement".into(),
            };
            continue;
        }
        let candidates = match spread::apply(
            request.placement,
            &division,
            desired,
            candidates,
            &previous_clusters,
        ) {
            Ok(c) => c,
            Err(e) => {
                failure = e;
                continue;
            }
        };
        let assigned = match assign(
            request,
            &division,
            workload,
            desired.saturating_sub(if divided { frozen } else { 0 }),
            &candidates,
            &previous_clusters,
            request.held,
        ) {
            Ok(a) => a,
            Err(e) => {
                failure = e;
                continue;
            }
        };
        let mut clusters: Vec<Assignment> = assigned
            .into_iter()
            .filter(|a| !kept_held.iter().any(|h| h.cluster == a.cluster))
            .chain(kept_held.iter().cloned())
            .collect();
        clusters.sort_by(|a, b| a.cluster.cmp(&b.cluster));
        binding.clusters = clusters;
        binding.affinity_name = name.clone();
        binding.decision = Decision::Scheduled(reschedule_reason(request, desired));
        binding.static_weights =
            static_rules.map(|rules| weights_of(&binding.clusters, rules, &by_name));
        return Ok(binding);
    }
    // Karmada keeps the last schedule when scheduling fails.
    if let Some(previous) = request.previous.filter(|p| !p.clusters.is_empty()) {
        binding.clusters = previous
            .clusters
            .iter()
            .filter(|(c, _)| by_name.contains_key(c.as_str()))
            .map(|(c, r)| Assignment {
                cluster: c.clone(),
                replicas: if workload { *r } else { 0 },
                held: request.held.contains(c),
            })
            .collect();
        binding.affinity_name = previous.affinity_name.clone();
        binding.decision = Decision::KeptAfterFailure(failure);
    } else {
        binding.clusters = kept_held;
        binding.decision = Decision::Unschedulable(failure);
    }
    binding.static_weights =
        static_rules.map(|rules| weights_of(&binding.clusters, rules, &by_name));
    Ok(binding)
}

/// Why the previous schedule stands, if it does: Karmada reschedules a
/// Divided workload only when its placement or replicas change or one of
/// its clusters is gone; pausing or unpausing one of them is a trigger too.
fn keep_reason(
    request: &Request<'_>,
    division: &Division,
    workload: bool,
    desired: u64,
    fleet: &BTreeMap<&str, &Cluster>,
    previous_clusters: &BTreeMap<&str, u64>,
) -> Option<String> {
    let previous = request.previous?;
    if matches!(division, Division::Duplicated) || !workload || previous.clusters.is_empty() {
        return None;
    }
    if previous.placement.as_deref() != Some(request.placement_json) || previous.replicas != desired
    {
        return None;
    }
    if previous_clusters.keys().any(|c| !fleet.contains_key(c)) {
        return None;
    }
    let held_now: BTreeSet<String> = previous_clusters
        .keys()
        .filter(|c| request.held.contains(**c))
        .map(|c| c.to_string())
        .collect();
    if held_now != previous.held {
        return None;
    }
    Some("placement, replicas and clusters are unchanged since the previous render: its schedule is kept".into())
}

fn reschedule_reason(request: &Request<'_>, desired: u64) -> String {
    match request.previous {
        None => "first schedule".into(),
        Some(p) if p.placement.as_deref() != Some(request.placement_json) => {
            "the placement changed".into()
        }
        Some(p) if p.replicas != desired => {
            format!("replicas changed from {} to {desired}", p.replicas)
        }
        Some(_) => "re-evaluated (Duplicated, non-workload, or a scheduled cluster changed)".into(),
    }
}

fn weights_of(
    clusters: &[Assignment],
    rules: &[crate::model::policy::StaticClusterWeight],
    fleet: &BTreeMap<&str, &Cluster>,
) -> BTreeMap<String, u64> {
    let views: Vec<(String, crate::model::affinity::ClusterView<'_>)> = clusters
        .iter()
        .filter_map(|a| {
            fleet
                .get(a.cluster.as_str())
                .map(|c| (a.cluster.clone(), c.view(&c.labels)))
        })
        .collect();
    let rules = static_rules(rules);
    let only_views: Vec<_> = views.iter().map(|(_, v)| *v).collect();
    let weights = divide::static_weights(&only_views, &rules);
    views.into_iter().map(|(n, _)| n).zip(weights).collect()
}

fn static_rules(
    rules: &[crate::model::policy::StaticClusterWeight],
) -> Vec<divide::StaticWeightRule> {
    rules
        .iter()
        .map(|r| divide::StaticWeightRule {
            target: r.target_cluster.clone(),
            weight: u64::try_from(r.weight).unwrap_or(0),
        })
        .collect()
}

/// A cluster that passed the filters, with what ordering needs.
#[derive(Clone, Debug)]
pub struct Candidate<'a> {
    pub cluster: &'a Cluster,
    /// Karmada's ClusterLocality score: 100 when already in the binding.
    pub score: u32,
    pub available: u64,
}

fn filter<'a>(
    request: &Request<'_>,
    affinity: &ClusterAffinity,
    fleet: &'a [Cluster],
    previous: &BTreeMap<&str, u64>,
    group: Option<&str>,
) -> (Vec<Candidate<'a>>, Vec<ClusterNote>) {
    let mut candidates = Vec::new();
    let mut notes = Vec::new();
    let group_note = group
        .map(|g| format!(" (affinity group `{g}`)"))
        .unwrap_or_default();
    for cluster in fleet {
        let scheduled = previous.contains_key(cluster.name.as_str());
        let verdict = if request.held.contains(&cluster.name) {
            Some("held (paused or suspended): nothing new is scheduled onto it".to_string())
        } else if !affinity.matches(&cluster.view(&cluster.labels)) {
            Some(format!("does not match the cluster affinity{group_note}"))
        } else if !scheduled
            && cluster.scheduling_taints().any(|taint| {
                !request
                    .placement
                    .cluster_tolerations
                    .iter()
                    .any(|t| t.tolerates(taint))
            })
        {
            let taint = cluster
                .scheduling_taints()
                .find(|taint| {
                    !request
                        .placement
                        .cluster_tolerations
                        .iter()
                        .any(|t| t.tolerates(taint))
                })
                .map(|t| format!("{}:{:?}", t.key, t.effect))
                .unwrap_or_default();
            Some(format!(
                "has taint `{taint}` that the placement does not tolerate"
            ))
        } else if !scheduled && !cluster.serves(request.api_version, request.kind) {
            Some(format!(
                "does not list `{}` `{}` in status.apiEnablements",
                request.api_version, request.kind
            ))
        } else {
            None
        };
        match verdict {
            Some(note) => notes.push(ClusterNote {
                cluster: cluster.name.clone(),
                note,
            }),
            None => {
                let available = estimate::available_replicas(
                    cluster.resource_summary.as_ref(),
                    request.requirements,
                );
                candidates.push(Candidate {
                    cluster,
                    score: if scheduled { 100 } else { 0 },
                    available,
                });
                notes.push(ClusterNote {
                    cluster: cluster.name.clone(),
                    note: format!("selected{group_note}"),
                });
            }
        }
    }
    // Karmada's candidate order: score, then available replicas, then name.
    candidates.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then(b.available.cmp(&a.available))
            .then(a.cluster.name.cmp(&b.cluster.name))
    });
    (candidates, notes)
}

fn assign(
    request: &Request<'_>,
    division: &Division,
    workload: bool,
    to_divide: u64,
    candidates: &[Candidate<'_>],
    previous: &BTreeMap<&str, u64>,
    held: &BTreeSet<String>,
) -> Result<Vec<Assignment>, String> {
    let plain = |replicas: u64| -> Vec<Assignment> {
        candidates
            .iter()
            .map(|c| Assignment {
                cluster: c.cluster.name.clone(),
                replicas,
                held: false,
            })
            .collect()
    };
    if !workload {
        return Ok(plain(0));
    }
    match division {
        Division::Duplicated => Ok(plain(request.replicas.unwrap_or(0))),
        Division::StaticWeighted(rules) => {
            let labels: Vec<&Labels> = candidates.iter().map(|c| &c.cluster.labels).collect();
            let views: Vec<_> = candidates
                .iter()
                .zip(labels)
                .map(|(c, l)| c.cluster.view(l))
                .collect();
            Ok(
                divide::divide_static(to_divide, &views, &static_rules(rules))
                    .into_iter()
                    .map(|(cluster, replicas)| Assignment {
                        cluster,
                        replicas,
                        held: false,
                    })
                    .collect(),
            )
        }
        Division::DynamicWeighted | Division::Aggregated => {
            let mode = if matches!(division, Division::Aggregated) {
                divide::DynamicMode::Aggregated
            } else {
                divide::DynamicMode::Weighted
            };
            let dynamic: Vec<divide::Candidate> = candidates
                .iter()
                .map(|c| divide::Candidate {
                    name: c.cluster.name.clone(),
                    available: c.available,
                })
                .collect();
            let before: Vec<(String, u64)> = previous
                .iter()
                .filter(|(c, _)| !held.contains(**c))
                .map(|(c, r)| (c.to_string(), *r))
                .collect();
            let result = divide::divide_dynamic(to_divide, &dynamic, &before, mode)
                .map_err(|e| e.to_string())?;
            if result.is_empty() {
                // Nothing to divide: every candidate gets the empty workload (SPEC §2).
                return Ok(plain(0));
            }
            Ok(result
                .into_iter()
                .map(|(cluster, replicas)| Assignment {
                    cluster,
                    replicas,
                    held: false,
                })
                .collect())
        }
    }
}

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
//! what they had and get nothing new; what they would get without their
//! holds is worked out too, both for the held-back counts and so that the
//! binding remembers every hold that affects the application: lifting one
//! is a rescheduling trigger (SPEC §9). Never touches fort, overrides or files.

pub mod clusternet;
pub mod divide;
pub mod estimate;
mod memory;
mod models;
pub mod policy_match;
mod requirements;
mod spread;

pub use spread::SpreadError;

use memory::{memory, Memory};

use crate::model::affinity::ClusterView;
use crate::model::cluster::Cluster;
use crate::model::policy::{AffinityTerm, Division, Placement, SpreadField};
use crate::model::record::BindingRecord;
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
    /// Scheduled now with no schedule to keep: the first one, or one that
    /// Karmada re-evaluates on every render; with the reason.
    Scheduled(String),
    /// The previous schedule was replaced because something that triggers
    /// rescheduling changed; with what changed.
    Rescheduled(String),
    /// Scheduling failed; the previous schedule is kept, as Karmada keeps it.
    KeptAfterFailure(Error),
    /// Scheduling failed and there was nothing to keep.
    Unschedulable(Error),
}

/// Why no affinity group of a placement could be scheduled: the fault of
/// the last group tried. It is carried in [`Decision`] rather than returned,
/// because a failed schedule is an outcome (the previous one may be kept),
/// not an error of the render.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("no cluster matches the placement")]
    NoClusterMatches,
    #[error("no cluster matches affinity group `{group}`")]
    NoClusterMatchesGroup { group: String },
    #[error(transparent)]
    Spread(#[from] SpreadError),
    #[error(transparent)]
    Capacity(#[from] divide::Unschedulable),
}

impl Error {
    /// No cluster passed the filters: Karmada's FitError, the one failure
    /// after which it writes an empty schedule instead of keeping the last.
    fn fits_none(&self) -> bool {
        matches!(
            self,
            Error::NoClusterMatches | Error::NoClusterMatchesGroup { .. }
        )
    }
}

/// What the scheduler decided for one application.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// In binding order: by name for a computed binding, the user's order when pinned.
    pub clusters: Vec<Assignment>,
    pub desired: u64,
    /// The template has replicas to divide or duplicate.
    pub workload: bool,
    /// Each cluster's replicas are written into its object (Karmada's
    /// ReviseReplica, which runs for every workload, Divided or Duplicated).
    pub revise: bool,
    /// A Job's completions are divided with the replicas (Divided only).
    pub divide_completions: bool,
    pub affinity_name: Option<String>,
    pub decision: Decision,
    /// Static weights of the binding's clusters, when the policy divides by them.
    pub static_weights: Option<BTreeMap<String, u64>>,
    /// Every cluster considered, and what happened to it.
    pub notes: Vec<ClusterNote>,
    /// What the held clusters would get if every hold were lifted now, which
    /// is what the next render gives them once they are unheld (SPEC §5.5):
    /// the held-back counts compare it with what they keep. `None` when no
    /// cluster of the fleet is held for the application.
    pub would_be: Option<Vec<Assignment>>,
    /// Held clusters that the application would be on without their holds
    /// but that have none of it (a cluster paused before the application
    /// reached it). The rendered binding records them beside the frozen
    /// ones, so that lifting a hold that affects the application
    /// reschedules it, and lifting one that does not, does not.
    pub withheld: BTreeSet<String>,
    /// The next render may keep this schedule (a Divided workload scheduled
    /// by its policy), so the rendered binding records [`Binding::withheld`]
    /// even when it is empty: a remembered binding without the record was
    /// written by an older garrison, and is read conservatively.
    pub remembered: bool,
    /// The placement this binding records as applied, when it is not the
    /// placement now: Karmada writes the applied placement only when it
    /// writes a schedule, so a kept schedule, one kept after a failure, and
    /// a first schedule that failed for capacity record what was applied
    /// before (nothing, for the last), and the next render compares with
    /// that (`placementChanged`).
    pub applied: Option<Option<String>>,
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
    pub previous: Option<&'a BindingRecord>,
    /// Clusters paused or suspended for this application.
    pub held: &'a BTreeSet<String>,
    /// Clusters paused for the whole fleet (the rest of `held` is
    /// suspended by the policy), to say which hold changed.
    pub paused: &'a BTreeSet<String>,
}

/// Schedule one application onto `fleet` (sorted by name), and work out
/// what its held clusters would get without their holds. It cannot fail: a
/// placement that fits no cluster is a [`Decision`] of the binding.
pub fn schedule(request: &Request<'_>, fleet: &[Cluster]) -> Binding {
    let mut binding = place(request, fleet, memory(request, fleet));
    if fleet.iter().any(|c| request.held.contains(&c.name)) {
        // The render after the holds are lifted reads this binding back and
        // divides again from it (`memory` finds the lifted holds in its
        // record): that division, made now, is what the holds keep back.
        let now = binding.to_previous(request.placement_json);
        let unheld = BTreeSet::new();
        let lifted = Request {
            held: &unheld,
            previous: Some(&now),
            ..request.clone()
        };
        let all_lifted = Memory::Reschedule {
            reason: String::new(),
            fresh: true,
        };
        let would_be: Vec<Assignment> = place(&lifted, fleet, all_lifted)
            .clusters
            .into_iter()
            .filter(|a| request.held.contains(&a.cluster))
            .collect();
        binding.hold_back(would_be);
    }
    binding
}

impl Request<'_> {
    /// The template has replicas to divide or duplicate: a positive count,
    /// or requests per replica (a pod template, even scaled to zero).
    fn has_workload(&self) -> bool {
        self.replicas.is_some_and(|r| r > 0) || self.requirements.is_some()
    }
}

impl Binding {
    /// Record what the held clusters would get without their holds, and
    /// which of them that leaves without the application (withheld).
    pub fn hold_back(&mut self, would_be: Vec<Assignment>) {
        self.withheld = would_be
            .iter()
            .filter(|w| !self.clusters.iter().any(|a| a.cluster == w.cluster))
            .map(|w| w.cluster.clone())
            .collect();
        self.would_be = Some(would_be);
    }

    /// The binding as the next render reads it back from the rendered one
    /// (a binding record holds replicas for workloads, and the replicas a
    /// held cluster keeps).
    fn to_previous(&self, placement_json: &str) -> BindingRecord {
        let workload = self.workload;
        BindingRecord {
            clusters: self
                .clusters
                .iter()
                .map(|a| (a.cluster.clone(), kept_replicas(workload, a)))
                .collect(),
            replicas: if workload { self.desired } else { 0 },
            placement: Some(placement_json.to_string()),
            affinity_name: self.affinity_name.clone(),
            ..BindingRecord::default()
        }
    }
}

/// The binding for `request` given what `memory` decided: the previous
/// schedule kept, or a schedule made now.
fn place(request: &Request<'_>, fleet: &[Cluster], memory: Memory) -> Binding {
    let placing = Placing::new(request, fleet);
    let (decision, fresh) = match memory {
        Memory::Keep => return placing.keep(),
        Memory::Schedule(why) => (Decision::Scheduled(why), false),
        Memory::Reschedule { reason, fresh } => (Decision::Rescheduled(reason), fresh),
    };
    placing.schedule_now(decision, fresh)
}

/// What placing one application works from, whichever way `memory` went:
/// the request, the fleet by name, and what the previous render left.
struct Placing<'r, 'a> {
    request: &'r Request<'a>,
    fleet: &'r [Cluster],
    division: Division,
    desired: u64,
    workload: bool,
    /// Replicas are divided (not Duplicated), so held ones count against `desired`.
    divided: bool,
    by_name: BTreeMap<&'r str, &'r Cluster>,
    /// The previous render's clusters and replicas.
    previous_clusters: BTreeMap<&'a str, u64>,
    /// Held clusters that had the application: they keep it, frozen.
    kept_held: Vec<Assignment>,
    /// The replicas `kept_held` keeps.
    frozen: u64,
}

impl<'r, 'a> Placing<'r, 'a> {
    /// Works out once what keeping, scheduling and failing all use.
    fn new(request: &'r Request<'a>, fleet: &'r [Cluster]) -> Self {
        let division = request.placement.division();
        let workload = request.has_workload();
        let by_name: BTreeMap<&str, &Cluster> =
            fleet.iter().map(|c| (c.name.as_str(), c)).collect();
        let previous_clusters: BTreeMap<&str, u64> = request
            .previous
            .map(|p| p.clusters.iter().map(|(c, r)| (c.as_str(), *r)).collect())
            .unwrap_or_default();
        let kept_held = kept_held(request, &previous_clusters, &by_name);
        let frozen = kept_held.iter().map(|a| a.replicas).sum();
        Placing {
            request,
            fleet,
            divided: !matches!(division, Division::Duplicated),
            division,
            desired: request.replicas.unwrap_or(0),
            workload,
            by_name,
            previous_clusters,
            kept_held,
            frozen,
        }
    }

    /// A binding with no clusters yet, and what the decision does not change.
    fn binding(&self, decision: Decision) -> Binding {
        Binding {
            clusters: Vec::new(),
            desired: self.desired,
            workload: self.workload,
            revise: self.workload,
            divide_completions: self.divided && self.workload && self.desired > 0,
            affinity_name: None,
            decision,
            static_weights: None,
            notes: Vec::new(),
            would_be: None,
            withheld: BTreeSet::new(),
            remembered: self.divided && self.workload,
            applied: None,
        }
    }

    /// The binding with the static weights of its clusters, when the policy
    /// divides by them (whether the schedule was kept, made or failed).
    fn weighed(&self, mut binding: Binding) -> Binding {
        if let Division::StaticWeighted(rules) = &self.division {
            binding.static_weights = Some(weights_of(&binding.clusters, rules, &self.by_name));
        }
        binding
    }

    /// Nothing that triggers rescheduling changed: the previous schedule,
    /// replicas and affinity group stand as they were.
    fn keep(&self) -> Binding {
        let mut binding = self.binding(Decision::Kept);
        binding.applied = Some(self.request.previous.and_then(|p| p.placement.clone()));
        binding.clusters = self
            .request
            .previous
            .map(|p| {
                p.clusters
                    .iter()
                    .map(|(c, r)| Assignment {
                        cluster: c.clone(),
                        replicas: *r,
                        held: self.request.held.contains(c),
                    })
                    .collect()
            })
            .unwrap_or_default();
        binding.affinity_name = self.request.previous.and_then(|p| p.affinity_name.clone());
        binding.notes.push(ClusterNote {
            cluster: "*".into(),
            note: "placement, replicas, clusters and holds are unchanged since the previous render: its schedule is kept".into(),
        });
        self.weighed(binding)
    }

    /// Tries the affinity groups in order, from the one the previous render
    /// observed, and takes the first that can be scheduled.
    fn schedule_now(&self, decision: Decision, fresh: bool) -> Binding {
        let terms = self.request.placement.affinity_terms();
        let start = self
            .request
            .previous
            .and_then(|p| p.affinity_name.as_ref())
            .and_then(|name| terms.iter().position(|t| t.name.as_ref() == Some(name)))
            .unwrap_or(0);
        let mut binding = self.binding(decision);
        let mut failure = Error::NoClusterMatches;
        let mut first_fits_none = true;
        for (tried, term) in terms.iter().skip(start).enumerate() {
            match self.try_group(term, fresh, &mut binding.notes) {
                Ok(clusters) => {
                    binding.clusters = clusters;
                    binding.affinity_name = term.name.clone();
                    return self.weighed(binding);
                }
                Err(e) => {
                    if tried == 0 {
                        first_fits_none = e.fits_none();
                    }
                    failure = e;
                }
            }
        }
        self.failed(binding, failure, first_fits_none)
    }

    /// One affinity group: filter the fleet, cut by spread constraints,
    /// assign replicas, and put the held clusters' frozen share back.
    fn try_group(
        &self,
        term: &AffinityTerm,
        fresh: bool,
        notes: &mut Vec<ClusterNote>,
    ) -> Result<Vec<Assignment>, Error> {
        let (candidates, group_notes) =
            filter(self.request, term, self.fleet, &self.previous_clusters);
        notes.extend(group_notes);
        if candidates.is_empty() && self.held_back(term) {
            // The placement matches, but every cluster it matches is held:
            // they keep what they had and get nothing new (SPEC §5), which
            // is a schedule, not a failure to make one (Karmada schedules a
            // suspended binding as any other and only holds its Works).
            return Ok(self.kept_held.clone());
        }
        if candidates.is_empty() {
            return Err(match &term.name {
                Some(n) => Error::NoClusterMatchesGroup {
                    group: n.to_string(),
                },
                None => Error::NoClusterMatches,
            });
        }
        let candidates = spread::apply(
            self.request.placement,
            &self.division,
            self.desired,
            candidates,
            &self.previous_clusters,
        )?;
        let to_divide = self
            .desired
            .saturating_sub(if self.divided { self.frozen } else { 0 });
        let before = self.before(fresh);
        let assigned = if term.overflow.is_some() && self.workload {
            assign_by_tier(
                self.request,
                &self.division,
                to_divide,
                &candidates,
                &before,
            )?
        } else {
            assign(
                self.request,
                &self.division,
                self.workload,
                to_divide,
                &candidates,
                &before,
            )?
        };
        let mut clusters: Vec<Assignment> = with_empty_shares(assigned, &candidates)
            .into_iter()
            .filter(|a| !self.kept_held.iter().any(|h| h.cluster == a.cluster))
            .chain(self.kept_held.iter().cloned())
            .collect();
        clusters.sort_by(|a, b| a.cluster.cmp(&b.cluster));
        Ok(clusters)
    }

    /// Some cluster of the fleet would pass `term`'s filters but for its
    /// hold.
    fn held_back(&self, term: &AffinityTerm) -> bool {
        if self.request.held.is_empty() {
            return false;
        }
        let unheld = BTreeSet::new();
        let lifted = Request {
            held: &unheld,
            ..self.request.clone()
        };
        filter(&lifted, term, self.fleet, &self.previous_clusters)
            .0
            .iter()
            .any(|c| self.request.held.contains(&c.cluster.name))
    }

    /// The unheld clusters' previous replicas, which a dynamic division
    /// builds on; none when `fresh` (a lifted hold starts it over).
    fn before(&self, fresh: bool) -> Vec<(String, u64)> {
        if fresh {
            return Vec::new();
        }
        self.previous_clusters
            .iter()
            .filter(|(c, _)| !self.request.held.contains(**c))
            .map(|(c, r)| (c.to_string(), *r))
            .collect()
    }

    /// No affinity group could be scheduled. Karmada keeps the last
    /// schedule when scheduling fails for any other reason than no cluster
    /// passing its filters in the first group tried (a FitError, which it
    /// writes as an empty result: `scheduleResourceBindingWithClusterAffinities`);
    /// without a schedule to keep, only the held clusters keep what they had.
    fn failed(&self, mut binding: Binding, failure: Error, first_fits_none: bool) -> Binding {
        let kept = self
            .request
            .previous
            .filter(|p| !p.clusters.is_empty() && !first_fits_none);
        if let Some(previous) = kept {
            binding.clusters = previous
                .clusters
                .iter()
                .filter(|(c, _)| self.by_name.contains_key(c.as_str()))
                .map(|(c, r)| {
                    let held = self.request.held.contains(c);
                    Assignment {
                        cluster: c.clone(),
                        replicas: if self.workload || held { *r } else { 0 },
                        held,
                    }
                })
                .collect();
            binding.affinity_name = previous.affinity_name.clone();
            binding.decision = Decision::KeptAfterFailure(failure);
        } else {
            binding.clusters = self.kept_held.clone();
            binding.decision = Decision::Unschedulable(failure);
        }
        // An empty schedule is written (with the placement) only for a
        // FitError; any other failure writes nothing.
        if !first_fits_none {
            binding.applied = Some(self.request.previous.and_then(|p| p.placement.clone()));
        }
        self.weighed(binding)
    }
}

/// Held clusters that had the application keep it, frozen (no eviction
/// while paused), with the replicas their frozen files hold: also when the
/// template has no replicas to divide now (scaled to zero), so that scaling
/// it up again counts them (SPEC §5.3).
fn kept_held(
    request: &Request<'_>,
    previous_clusters: &BTreeMap<&str, u64>,
    by_name: &BTreeMap<&str, &Cluster>,
) -> Vec<Assignment> {
    previous_clusters
        .iter()
        .filter(|(c, _)| request.held.contains(**c) && by_name.contains_key(**c))
        .map(|(c, r)| Assignment {
            cluster: c.to_string(),
            replicas: *r,
            held: true,
        })
        .collect()
}

/// The replicas a binding records for an assignment: a workload's share,
/// or what a held cluster keeps.
pub fn kept_replicas(workload: bool, assignment: &Assignment) -> u64 {
    if workload || assignment.held {
        assignment.replicas
    } else {
        0
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
    /// 0 in the affinity group itself, n in its n-th overflow group.
    pub overflow: u32,
}

/// Every selected cluster the division gave nothing gets the application
/// with 0 replicas (SPEC §2): Karmada's scheduler with
/// `--enable-empty-workload-propagation` (`attachZeroReplicasCluster`).
/// In GitOps, leaving it out would delete the application there.
fn with_empty_shares(
    mut assigned: Vec<Assignment>,
    candidates: &[Candidate<'_>],
) -> Vec<Assignment> {
    for candidate in candidates {
        if !assigned.iter().any(|a| a.cluster == candidate.cluster.name) {
            assigned.push(Assignment {
                cluster: candidate.cluster.name.clone(),
                replicas: 0,
                held: false,
            });
        }
    }
    assigned
}

/// Why Karmada's filters leave `cluster` out (`order`: where it stands in
/// the affinity group, see [`overflow_order`]), or `None` when it passes:
/// holds first, then affinity, spread fields, taints and API enablements.
/// A cluster the application is already on keeps it despite new taints or
/// a dropped API, as Karmada's filters let scheduled clusters through.
fn refusal(
    request: &Request<'_>,
    cluster: &Cluster,
    order: Option<u32>,
    scheduled: bool,
    group_note: &str,
) -> Option<String> {
    if request.held.contains(&cluster.name) {
        return Some("held (paused or suspended): nothing new is scheduled onto it".to_string());
    }
    if order.is_none() {
        return Some(format!("does not match the cluster affinity{group_note}"));
    }
    if let Some(field) = unspread_field(request.placement, cluster) {
        return Some(format!("has no `{field}`, which the placement spreads by"));
    }
    let untolerated = cluster.scheduling_taints().find(|taint| {
        !request
            .placement
            .cluster_tolerations
            .iter()
            .any(|t| t.tolerates(taint))
    });
    if let (false, Some(taint)) = (scheduled, untolerated) {
        let by = cluster
            .tainted_by
            .iter()
            .find(|(k, e, _)| *k == taint.key && *e == taint.effect)
            .map(|(_, _, policy)| format!(" (added by ClusterTaintPolicy `{policy}`)"))
            .unwrap_or_default();
        return Some(format!(
            "has taint `{}:{:?}`{by} that the placement does not tolerate",
            taint.key, taint.effect
        ));
    }
    if !scheduled && !cluster.serves(request.api_version, request.kind) {
        return Some(format!(
            "does not list `{}` `{}` in status.apiEnablements",
            request.api_version, request.kind
        ));
    }
    None
}

/// Karmada's SpreadConstraint filter: a cluster without the provider,
/// region or zones that a spread constraint groups by is never chosen, even
/// where the constraint itself selects nothing (zone, provider) or is
/// ignored (static weights).
fn unspread_field(placement: &Placement, cluster: &Cluster) -> Option<&'static str> {
    placement
        .spread_constraints
        .iter()
        .find_map(|c| match c.spread_by_field? {
            SpreadField::Provider if cluster.provider.as_deref().is_none_or(str::is_empty) => {
                Some("provider")
            }
            SpreadField::Region if cluster.region.as_deref().is_none_or(str::is_empty) => {
                Some("region")
            }
            SpreadField::Zone if cluster.zones.is_empty() => Some("zones"),
            _ => None,
        })
}

/// Where `view` stands in `term`: 0 when the group's own affinity matches
/// it, n when its n-th overflow group is the first that does, `None` when
/// none does. Overflow groups take part only for workloads: a ConfigMap
/// consumes no capacity, so Karmada's ClusterAffinity filter keeps it to
/// the group's own clusters.
fn overflow_order(term: &AffinityTerm, workload: bool, view: &ClusterView<'_>) -> Option<u32> {
    if term.affinity.matches(view) {
        return Some(0);
    }
    if !workload {
        return None;
    }
    term.overflow
        .iter()
        .flatten()
        .position(|affinity| affinity.matches(view))
        .and_then(|i| u32::try_from(i + 1).ok())
}

fn filter<'a>(
    request: &Request<'_>,
    term: &AffinityTerm,
    fleet: &'a [Cluster],
    previous: &BTreeMap<&str, u64>,
) -> (Vec<Candidate<'a>>, Vec<ClusterNote>) {
    let mut candidates = Vec::new();
    let mut notes = Vec::new();
    let group_note = term
        .name
        .as_ref()
        .map(|g| format!(" (affinity group `{g}`)"))
        .unwrap_or_default();
    for cluster in fleet {
        let scheduled = previous.contains_key(cluster.name.as_str());
        let order = overflow_order(term, request.has_workload(), &cluster.view(&cluster.labels));
        let verdict = refusal(request, cluster, order, scheduled, &group_note);
        match verdict {
            Some(note) => notes.push(ClusterNote {
                cluster: cluster.name.clone(),
                note,
            }),
            None => {
                let available = estimate::as_scheduler_reads(
                    estimate::available_replicas(
                        cluster.resource_summary.as_ref(),
                        &cluster.resource_models,
                        request.requirements,
                    ),
                    request.replicas.unwrap_or(0),
                );
                let overflow = order.unwrap_or(0);
                candidates.push(Candidate {
                    cluster,
                    score: if scheduled { 100 } else { 0 },
                    available,
                    overflow,
                });
                let tier = if overflow > 0 {
                    format!(", overflow group {overflow}")
                } else {
                    String::new()
                };
                notes.push(ClusterNote {
                    cluster: cluster.name.clone(),
                    note: format!("selected{group_note}{tier}"),
                });
            }
        }
    }
    // Karmada's candidate order: overflow tier, score, then available
    // replicas, then name.
    candidates.sort_by(|a, b| {
        a.overflow
            .cmp(&b.overflow)
            .then(b.score.cmp(&a.score))
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
    before: &[(String, u64)],
) -> Result<Vec<Assignment>, divide::Unschedulable> {
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
            let result = divide::divide_dynamic(to_divide, &dynamic, before, mode)?;
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

/// Karmada's overflow division (`assignWorkloadReplicas`): the tiers (the
/// group's own clusters, then each overflow group) are filled in order, each
/// with as many replicas as it can take (its clusters' available replicas
/// plus those they already run) or as remain, divided within the tier as the
/// policy divides. Replicas left when every tier is full make the group
/// unschedulable, so the next affinity group is tried.
fn assign_by_tier(
    request: &Request<'_>,
    division: &Division,
    to_divide: u64,
    candidates: &[Candidate<'_>],
    before: &[(String, u64)],
) -> Result<Vec<Assignment>, divide::Unschedulable> {
    let last = candidates.iter().map(|c| c.overflow).max().unwrap_or(0);
    let previous = |name: &str| {
        before
            .iter()
            .filter(|(c, _)| c == name)
            .map(|(_, r)| *r)
            .sum::<u64>()
    };
    let mut remaining = to_divide;
    let mut assigned = Vec::new();
    for order in 0..=last {
        let tier: Vec<Candidate<'_>> = candidates
            .iter()
            .filter(|c| c.overflow == order)
            .cloned()
            .collect();
        if tier.is_empty() {
            continue;
        }
        let room = tier.iter().fold(0u64, |sum, c| {
            sum.saturating_add(c.available.saturating_add(previous(&c.cluster.name)))
        });
        let share = remaining.min(room);
        if share > 0 {
            assigned.extend(assign(request, division, true, share, &tier, before)?);
        }
        remaining -= share;
        if remaining == 0 {
            break;
        }
    }
    if remaining > 0 {
        let available = candidates
            .iter()
            .fold(0u64, |sum, c| sum.saturating_add(c.available));
        return Err(divide::Unschedulable {
            desired: to_divide,
            available,
            wrapped_to: None,
        });
    }
    Ok(assigned)
}

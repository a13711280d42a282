//! The scheduler's memory (SPEC §2): the previous render's binding stands
//! unless Karmada would reschedule the application (its placement or
//! replicas changed, a scheduled cluster is gone, a hold was lifted); when
//! it stands, the assignment is recalled from it, with the clusters it
//! names checked against the fleet now.

use super::{filter, Request};
use crate::model::cluster::Cluster;
use crate::model::policy::{Division, Placement};
use crate::model::record::BindingRecord;
use std::collections::{BTreeMap, BTreeSet};

/// Whether the previous render's schedule stands, and if not, why.
pub(super) enum Memory {
    /// Nothing that triggers rescheduling changed: keep it.
    Keep,
    /// There is no schedule to keep: the first one, or one re-evaluated on
    /// every render.
    Schedule(String),
    /// Something that triggers rescheduling changed. `fresh`: a hold was
    /// lifted, so the division starts over for every unheld cluster (as
    /// Karmada's Fresh mode does) instead of building on the previous
    /// replicas, which the held clusters had no part in.
    Reschedule { reason: String, fresh: bool },
}

/// Karmada reschedules a Divided workload only when its placement or its
/// replicas change or one of its clusters is gone (karmada-semantics §c);
/// garrison adds holds (SPEC §9): a cluster of the binding that becomes
/// held, and the lifting of any hold the binding records (a frozen cluster,
/// or a withheld one that got nothing because it was held). Duplicated and
/// non-workload applications are re-evaluated on every render, but still
/// say what changed.
pub(super) fn memory(request: &Request<'_>, fleet: &[Cluster]) -> Memory {
    let Some(previous) = request.previous else {
        return Memory::Schedule("first schedule".into());
    };
    let recall = Recall::new(request, fleet, previous);
    recall
        .template_changed()
        .or_else(|| recall.clusters_gone())
        .or_else(|| recall.holds_lifted())
        .or_else(|| recall.holds_added())
        .or_else(|| recall.nothing_to_keep())
        .or_else(|| recall.withheld_unrecorded())
        .unwrap_or(Memory::Keep)
}

impl Memory {
    /// Rescheduled on top of the previous replicas (no hold was lifted).
    fn changed(reason: String) -> Memory {
        Memory::Reschedule {
            reason,
            fresh: false,
        }
    }
}

/// Karmada's `placementChanged`: no recorded placement, or a change to the
/// cluster affinity, tolerations, spread constraints or replica scheduling,
/// or to the affinity group the previous schedule observed (a change to
/// another group, or to a field Karmada does not compare, reschedules
/// nothing). A record that does not read back as a placement counts as a
/// change.
pub(super) fn placement_changed(
    now: &Placement,
    applied: Option<&str>,
    observed: Option<&str>,
) -> bool {
    let Some(Ok(applied)) = applied.map(serde_json::from_str::<Placement>) else {
        return true;
    };
    if *now == applied {
        return false;
    }
    if now.cluster_affinity != applied.cluster_affinity
        || now.cluster_tolerations != applied.cluster_tolerations
        || now.spread_constraints != applied.spread_constraints
        || now.replica_scheduling != applied.replica_scheduling
    {
        return true;
    }
    let Some(observed) = observed.filter(|o| !o.is_empty()) else {
        return true;
    };
    let term = |placement: &Placement| {
        placement
            .cluster_affinities
            .iter()
            .find(|t| t.affinity_name == observed)
            .cloned()
    };
    match (term(now), term(&applied)) {
        (Some(a), Some(b)) => a != b,
        _ => true,
    }
}

/// The previous render's binding beside the request and fleet now, for
/// `memory`'s checks, each of which names a reason not to keep it (in
/// the order they are asked, the first reason wins).
pub(super) struct Recall<'r, 'a> {
    request: &'r Request<'a>,
    fleet: &'r [Cluster],
    previous: &'a BindingRecord,
    /// The clusters of the previous binding.
    scheduled: Vec<&'a str>,
    /// The holds the previous binding records: frozen and withheld clusters.
    recorded: BTreeSet<&'a str>,
    workload: bool,
    duplicated: bool,
}

impl<'r, 'a> Recall<'r, 'a> {
    /// Works out once what several checks ask of the previous binding.
    fn new(request: &'r Request<'a>, fleet: &'r [Cluster], previous: &'a BindingRecord) -> Self {
        Recall {
            request,
            fleet,
            previous,
            scheduled: previous.clusters.iter().map(|(c, _)| c.as_str()).collect(),
            recorded: previous
                .held
                .iter()
                .chain(previous.withheld.iter().flatten())
                .map(String::as_str)
                .collect(),
            workload: request.has_workload(),
            duplicated: matches!(request.placement.division(), Division::Duplicated),
        }
    }

    /// The cluster is still in the fleet (sorted by name, as `schedule` takes it).
    fn in_fleet(&self, name: &str) -> bool {
        self.fleet
            .binary_search_by(|c| c.name.as_str().cmp(name))
            .is_ok()
    }

    /// Karmada reschedules when the placement or the replicas change.
    fn template_changed(&self) -> Option<Memory> {
        let desired = self.request.replicas.unwrap_or(0);
        let observed = self.previous.affinity_name.as_deref();
        // The same text is the same placement: the record is read back only
        // when the text differs.
        let same_text = self.previous.placement.as_deref() == Some(self.request.placement_json);
        if !same_text
            && placement_changed(
                self.request.placement,
                self.previous.placement.as_deref(),
                observed,
            )
        {
            return Some(Memory::changed("the placement changed".into()));
        }
        // Karmada's `IsBindingReplicasChanged` for a Divided binding: the
        // clusters' replicas no longer add up to the desired count (which
        // also catches a schedule that placed nothing). A change of the
        // desired count that they still add up to reschedules nothing.
        let placed = self
            .previous
            .clusters
            .iter()
            .fold(0u64, |sum, (_, r)| sum.saturating_add(*r));
        if self.duplicated || placed == desired {
            return None;
        }
        Some(Memory::changed(if self.previous.replicas != desired {
            format!(
                "replicas changed from {} to {desired}",
                self.previous.replicas
            )
        } else {
            format!("the previous schedule placed {placed} of {desired} replicas")
        }))
    }

    /// Karmada reschedules when a cluster of the binding is gone.
    fn clusters_gone(&self) -> Option<Memory> {
        let gone: Vec<&str> = self
            .scheduled
            .iter()
            .copied()
            .filter(|c| !self.in_fleet(c))
            .collect();
        (!gone.is_empty()).then(|| {
            Memory::changed(format!(
                "{} the fleet",
                subject_and_verb(&gone, "left", "left")
            ))
        })
    }

    /// A hold the binding records was lifted: divided again from scratch,
    /// as the held clusters had no part in the previous replicas.
    fn holds_lifted(&self) -> Option<Memory> {
        let lifted: Vec<&str> = self
            .recorded
            .iter()
            .copied()
            .filter(|c| self.in_fleet(c) && !self.request.held.contains(*c))
            .collect();
        if lifted.is_empty() {
            return None;
        }
        let again = if self.workload && !self.duplicated {
            ": divided again over all its clusters"
        } else {
            ""
        };
        Some(Memory::Reschedule {
            reason: format!(
                "{} no longer paused or suspended{again}",
                subject_and_verb(&lifted, "is", "are")
            ),
            fresh: true,
        })
    }

    /// A cluster of the binding became held: paused for the fleet, or
    /// suspended by the policy.
    fn holds_added(&self) -> Option<Memory> {
        let newly_held: Vec<&str> = self
            .scheduled
            .iter()
            .copied()
            .filter(|c| self.request.held.contains(*c) && !self.recorded.contains(c))
            .collect();
        if newly_held.is_empty() {
            return None;
        }
        let (paused, suspended): (Vec<&str>, Vec<&str>) = newly_held
            .iter()
            .partition(|c| self.request.paused.contains(**c));
        let mut reasons = Vec::new();
        if !paused.is_empty() {
            reasons.push(format!(
                "{} paused",
                subject_and_verb(&paused, "was", "were")
            ));
        }
        if !suspended.is_empty() {
            reasons.push(format!(
                "dispatching to {} suspended",
                subject_and_verb(&suspended, "was", "was")
            ));
        }
        Some(Memory::changed(reasons.join("; ")))
    }

    /// Only a Divided workload has a schedule to keep; Karmada re-evaluates
    /// the others on every render.
    fn nothing_to_keep(&self) -> Option<Memory> {
        if self.duplicated {
            return Some(Memory::Schedule(
                "Duplicated: re-evaluated on every render".into(),
            ));
        }
        (!self.workload)
            .then(|| Memory::Schedule("no replicas to divide: re-evaluated on every render".into()))
    }

    /// A binding written before garrison recorded withheld clusters, that
    /// lacks clusters the placement selects now: any may have been held.
    fn withheld_unrecorded(&self) -> Option<Memory> {
        if self.previous.withheld.is_some() {
            return None;
        }
        let missing = unrecorded_candidates(self.request, self.fleet, self.previous);
        (!missing.is_empty()).then(|| Memory::Reschedule {
            reason: format!(
                "{} selected but not in a binding written before garrison recorded withheld clusters (it may have been paused then): divided again over all its clusters",
                subject_and_verb(&missing, "is", "are")
            ),
            fresh: true,
        })
    }
}

/// For a binding that does not record its withheld clusters: the unheld
/// clusters the placement selects now (in the affinity group it observed)
/// that the binding does not have. Any of them may have been held when the
/// schedule was made, so it is made again, once; the new binding has the
/// record.
pub(super) fn unrecorded_candidates<'a>(
    request: &Request<'_>,
    fleet: &'a [Cluster],
    previous: &BindingRecord,
) -> Vec<&'a str> {
    let terms = request.placement.affinity_terms();
    let Some(term) = previous
        .affinity_name
        .as_ref()
        .and_then(|name| terms.iter().find(|t| t.name.as_ref() == Some(name)))
        .or_else(|| terms.first())
    else {
        return Vec::new();
    };
    let scheduled: BTreeMap<&str, u64> = previous
        .clusters
        .iter()
        .map(|(c, r)| (c.as_str(), *r))
        .collect();
    filter(request, term, fleet, &scheduled)
        .0
        .into_iter()
        .map(|c| c.cluster.name.as_str())
        .filter(|c| !scheduled.contains_key(c))
        .collect()
}

/// "cluster `a` was" or "clusters `a` and `b` were": the clusters as the
/// subject of `singular` or `plural`.
pub(super) fn subject_and_verb(clusters: &[&str], singular: &str, plural: &str) -> String {
    let quoted: Vec<String> = clusters.iter().map(|c| format!("`{c}`")).collect();
    match quoted.as_slice() {
        [one] => format!("cluster {one} {singular}"),
        [init @ .., last] => format!("clusters {} and {last} {plural}", init.join(", ")),
        [] => String::new(),
    }
}

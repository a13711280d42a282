//! `explain`: one application's story, read from the plan: the policy chosen
//! and the ones passed over, the clusters considered, the division, the fort
//! and why, holds, and every override applied per cluster.

use crate::model::meta::ObjectKey;
use crate::overrides::Applied;
use crate::plan::{App, Source};
use crate::schedule::Decision;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Explanation {
    pub object: String,
    pub api_version: String,
    pub source: String,
    pub passed_over: Vec<PassedOver>,
    pub decision: String,
    pub desired_replicas: Option<u64>,
    pub considered: Vec<Considered>,
    pub clusters: Vec<ClusterLine>,
    pub fort: Option<String>,
    pub held: Vec<String>,
    pub overrides: BTreeMap<String, Vec<String>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PassedOver {
    pub policy: String,
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Considered {
    pub cluster: String,
    pub note: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClusterLine {
    pub cluster: String,
    pub replicas: Option<u64>,
    pub weight: Option<u64>,
    pub held: bool,
    pub fort: bool,
}

fn source_text(app: &App) -> (String, Vec<PassedOver>) {
    let display = |policy: &crate::model::record::PolicyRef| match &policy.namespace {
        Some(ns) => format!("PropagationPolicy/{ns}/{}", policy.name),
        None => format!("ClusterPropagationPolicy/{}", policy.name),
    };
    match &app.source {
        Source::Policy {
            policy,
            passed_over,
        } => (
            display(policy),
            passed_over
                .iter()
                .map(|p| PassedOver {
                    policy: p.policy.clone(),
                    reason: p.reason.clone(),
                })
                .collect(),
        ),
        Source::Pinned { policy } => (
            format!(
                "a ResourceBinding in the source pins its clusters{}",
                policy
                    .as_ref()
                    .map(|p| format!(" (policy {})", display(p)))
                    .unwrap_or_default()
            ),
            Vec::new(),
        ),
        Source::Dependency { of } => (
            format!(
                "propagateDeps of {}",
                of.iter()
                    .map(ObjectKey::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Vec::new(),
        ),
        Source::NamespaceAutoPropagation => (
            "Namespaces go to every cluster (Karmada's namespace auto-propagation)".into(),
            Vec::new(),
        ),
        Source::Subscription { subscriptions } => {
            (format!("fed by {}", subscriptions.join(", ")), Vec::new())
        }
    }
}

/// How the schedule came about, as the `schedule:` line says it: what was
/// done, then why after a dash (never "schedule: scheduled: …"; the
/// reasons have colons and parentheses of their own).
fn decision_text(decision: &Decision) -> String {
    match decision {
        Decision::Pinned => "pinned by a ResourceBinding in the source".to_string(),
        Decision::Kept => "kept from the previous render".to_string(),
        Decision::Scheduled(why) => format!("made now — {why}"),
        Decision::Rescheduled(why) if why.is_empty() => "made again".to_string(),
        Decision::Rescheduled(why) => format!("made again — {why}"),
        Decision::KeptAfterFailure(why) => {
            format!("kept from the previous render — scheduling failed: {why}")
        }
        Decision::Unschedulable(why) => format!("none — {why}"),
    }
}

/// Explain one application; `applied` is what the overrides did on each
/// cluster it is made for.
pub fn explain(app: &App, applied: &BTreeMap<String, Applied>) -> Explanation {
    let (source, passed_over) = source_text(app);
    let decision = decision_text(&app.binding.decision);
    let fort_cluster = app.fort.as_ref().map(|f| f.cluster.as_str());
    let is_secret = app.key.kind == "Secret" && app.key.api_version == "v1";
    let overrides = applied
        .iter()
        .map(|(cluster, applied)| {
            let lines = if is_secret {
                applied
                    .steps
                    .iter()
                    .map(|s| {
                        let paths: Vec<String> =
                            s.changes.iter().map(|c| format!("`{}`", c.path)).collect();
                        if let Some(by) = &s.by {
                            return format!("{by}: {} changed (values masked)", paths.join(", "));
                        }
                        format!(
                            "{} rule {} {}[{}]: {} changed (values masked)",
                            s.policy_name,
                            s.rule,
                            s.overrider,
                            s.item,
                            paths.join(", ")
                        )
                    })
                    .collect()
            } else {
                applied.explain()
            };
            (cluster.clone(), lines)
        })
        .collect();
    Explanation {
        object: app.key.to_string(),
        api_version: app.key.api_version.clone(),
        source,
        passed_over,
        decision,
        desired_replicas: app.binding.workload.then_some(app.binding.desired),
        considered: app
            .binding
            .notes
            .iter()
            .map(|n| Considered {
                cluster: n.cluster.clone(),
                note: n.note.clone(),
            })
            .collect(),
        clusters: app
            .binding
            .clusters
            .iter()
            .map(|a| ClusterLine {
                cluster: a.cluster.clone(),
                replicas: app.binding.workload.then_some(a.replicas),
                weight: app
                    .binding
                    .static_weights
                    .as_ref()
                    .and_then(|w| w.get(&a.cluster).copied()),
                held: a.held,
                fort: fort_cluster == Some(a.cluster.as_str()),
            })
            .collect(),
        fort: app.fort.as_ref().map(crate::fort::Fort::describe),
        held: app.held.iter().cloned().collect(),
        overrides,
    }
}

impl Explanation {
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{} ({})", self.object, self.api_version);
        let _ = writeln!(out, "policy: {}", self.source);
        for p in &self.passed_over {
            let _ = writeln!(out, "  passed over {}: {}", p.policy, p.reason);
        }
        let _ = writeln!(out, "schedule: {}", self.decision);
        if let Some(desired) = self.desired_replicas {
            let _ = writeln!(out, "  desired replicas: {desired}");
        }
        if !self.considered.is_empty() {
            let _ = writeln!(out, "clusters considered:");
            for c in &self.considered {
                let _ = writeln!(out, "  {}: {}", c.cluster, c.note);
            }
        }
        let _ = writeln!(out, "binding:");
        if self.clusters.is_empty() {
            let _ = writeln!(out, "  (no cluster)");
        }
        for c in &self.clusters {
            let mut line = format!("  {}", c.cluster);
            if let Some(r) = c.replicas {
                let _ = write!(line, "  replicas {r}");
            }
            if let Some(w) = c.weight {
                let _ = write!(line, "  weight {w}");
            }
            if c.fort {
                line.push_str("  fort");
            }
            if c.held {
                line.push_str("  held (frozen at the previous render)");
            }
            let _ = writeln!(out, "{line}");
        }
        if let Some(fort) = &self.fort {
            let _ = writeln!(out, "fort: {fort}");
        }
        if !self.held.is_empty() {
            let _ = writeln!(
                out,
                "held clusters (paused or suspended): {}",
                self.held.join(", ")
            );
        }
        if !self.overrides.values().all(Vec::is_empty) {
            let _ = writeln!(out, "overrides, in the order applied:");
            for (cluster, lines) in self.overrides.iter().filter(|(_, l)| !l.is_empty()) {
                let _ = writeln!(out, "  {cluster}:");
                for line in lines {
                    let _ = writeln!(out, "    {line}");
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::Error;

    #[test]
    fn every_decision_reads_without_repeating_the_schedule() {
        let decisions = [
            Decision::Pinned,
            Decision::Kept,
            Decision::Scheduled("first schedule".into()),
            Decision::Scheduled("Duplicated: re-evaluated on every render".into()),
            Decision::Rescheduled("replicas changed from 6 to 9".into()),
            Decision::Rescheduled(String::new()),
            Decision::KeptAfterFailure(Error::NoClusterMatches),
            Decision::Unschedulable(Error::NoClusterMatches),
        ];
        let lines: Vec<String> = decisions
            .iter()
            .map(|d| format!("schedule: {}", decision_text(d)))
            .collect();
        for line in &lines {
            let said = line.trim_start_matches("schedule: ").to_lowercase();
            assert!(
                !said.starts_with("schedul") && !said.starts_with("reschedul"),
                "{line}"
            );
        }
        insta::assert_snapshot!(lines.join("\n"), @r"
        schedule: pinned by a ResourceBinding in the source
        schedule: kept from the previous render
        schedule: made now — first schedule
        schedule: made now — Duplicated: re-evaluated on every render
        schedule: made again — replicas changed from 6 to 9
        schedule: made again
        schedule: kept from the previous render — scheduling failed: no cluster matches the placement
        schedule: none — no cluster matches the placement
        ");
    }
}

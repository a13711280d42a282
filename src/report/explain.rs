//! `explain`: one application's story, read from the plan: the policy chosen
//! and the ones passed over, the clusters considered, the division, the fort
//! and why, holds, and every override applied per cluster.

use crate::diag::Diagnostics;
use crate::model::inputs::Inputs;
use crate::model::meta::ObjectKey;
use crate::overrides::Applied;
use crate::plan::materialise::Materialiser;
use crate::plan::{App, Plan, Source};
use crate::schedule::Decision;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Explanation {
    pub object: String,
    pub api_version: String,
    /// Where the template is written (`path:line`); for a dry source's
    /// object, the chart file or kustomization and the tool run that made it.
    pub template: Option<String>,
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

/// An explanation, and what the objects made for it hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explained {
    pub explanation: Explanation,
    /// Per cluster the object was made for, the replicas it holds (a
    /// workload of a built-in kind), which an override may have made
    /// other than the binding's share.
    pub replicas: BTreeMap<String, u64>,
}

/// Explain the application at `index` of `plan`, making its objects for
/// every cluster it is made for now (only this application's) to say what
/// the overrides do there. The diagnostics of an object that cannot be
/// made come back instead.
pub fn explain_at(
    plan: &Plan,
    inputs: &Inputs,
    materialiser: &Materialiser<'_>,
    index: usize,
) -> Result<Explained, Diagnostics> {
    let Some(app) = plan.apps.get(index) else {
        return Err(Diagnostics::default());
    };
    let key = &app.key;
    let mut replicas = BTreeMap::new();
    let mut applied = BTreeMap::new();
    let mut diagnostics = Diagnostics::default();
    for assignment in app.binding.clusters.iter().filter(|a| !a.held) {
        let Some(cluster) = inputs.cluster(&assignment.cluster) else {
            continue;
        };
        match plan.materialise(materialiser, index, cluster, assignment.replicas) {
            Some(Ok(made)) => {
                let held = app.binding.workload.then(|| {
                    crate::interpret::revised_replicas(&key.api_version, &key.kind, &made.value)
                });
                if let Some(Some(held)) = held {
                    replicas.insert(cluster.name.clone(), held);
                }
                applied.insert(cluster.name.clone(), made.applied);
            }
            Some(Err(diagnostic)) => diagnostics.push(diagnostic),
            None => {}
        }
    }
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    let mut explanation = explain(app, &applied);
    explanation.template = inputs.template(key).map(|t| {
        format!(
            "{}:{}",
            inputs.sources.path(t.origin.file),
            t.origin.pos.line
        )
    });
    Ok(Explained {
        explanation,
        replicas,
    })
}

/// [`explain_at`] for every application of `plan`, in parallel, in the
/// order of [`Plan::apps`]; the diagnostics of every object that cannot be
/// made come back instead.
pub fn explain_all(plan: &Plan, inputs: &Inputs) -> Result<Vec<Explained>, Diagnostics> {
    use rayon::prelude::*;
    let materialiser = Materialiser::new(inputs);
    let explained: Vec<Result<Explained, Diagnostics>> = (0..plan.apps.len())
        .into_par_iter()
        .map(|index| explain_at(plan, inputs, &materialiser, index))
        .collect();
    let mut diagnostics = Diagnostics::default();
    let mut explanations = Vec::with_capacity(explained.len());
    for result in explained {
        match result {
            Ok(explanation) => explanations.push(explanation),
            Err(faults) => diagnostics.extend(faults),
        }
    }
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    Ok(explanations)
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
        template: None,
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
        for line in self.lines() {
            out.push_str(&line.text);
            out.push('\n');
        }
        out
    }

    /// The lines of [`Explanation::to_text`], each with the cluster it is
    /// about, if any (the report stores a line once for every cluster).
    pub fn lines(&self) -> Vec<Line<'_>> {
        let mut out: Vec<Line<'_>> = Vec::new();
        fn push<'a>(out: &mut Vec<Line<'a>>, cluster: Option<&'a str>, text: String) {
            out.push(Line { cluster, text });
        }
        let mut line = |cluster, text| push(&mut out, cluster, text);
        line(None, format!("{} ({})", self.object, self.api_version));
        if let Some(template) = &self.template {
            line(None, format!("template: {template}"));
        }
        line(None, format!("policy: {}", self.source));
        for p in &self.passed_over {
            line(None, format!("  passed over {}: {}", p.policy, p.reason));
        }
        line(None, format!("schedule: {}", self.decision));
        if let Some(desired) = self.desired_replicas {
            line(None, format!("  desired replicas: {desired}"));
        }
        if !self.considered.is_empty() {
            line(None, "clusters considered:".into());
            for c in &self.considered {
                line(Some(&c.cluster), format!("  {}: {}", c.cluster, c.note));
            }
        }
        line(None, "binding:".into());
        if self.clusters.is_empty() {
            line(None, "  (no cluster)".into());
        }
        // A table: each column as wide as its widest cell, numbers to the
        // right, so the replicas and weights of all clusters line up.
        let width = |cell: &dyn Fn(&ClusterLine) -> usize| {
            self.clusters.iter().map(cell).max().unwrap_or(0)
        };
        let name_width = width(&|c| c.cluster.chars().count());
        let replicas_width = width(&|c| c.replicas.map_or(0, |r| r.to_string().len()));
        let weight_width = width(&|c| c.weight.map_or(0, |w| w.to_string().len()));
        let column = |text: &mut String, label: &str, value: Option<u64>, width: usize| match value
        {
            Some(v) => {
                let _ = write!(text, "  {label} {v:>width$}");
            }
            None if width > 0 => {
                let _ = write!(text, "  {:pad$}", "", pad = label.len() + 1 + width);
            }
            None => {}
        };
        for c in &self.clusters {
            let mut text = format!("  {:<name_width$}", c.cluster);
            column(&mut text, "replicas", c.replicas, replicas_width);
            column(&mut text, "weight", c.weight, weight_width);
            if c.fort {
                text.push_str("  fort");
            }
            if c.held {
                text.push_str("  held (frozen at the previous render)");
            }
            line(Some(&c.cluster), text.trim_end().to_string());
        }
        if let Some(fort) = &self.fort {
            line(None, format!("fort: {fort}"));
        }
        if !self.held.is_empty() {
            line(
                None,
                format!(
                    "held clusters (paused or suspended): {}",
                    self.held.join(", ")
                ),
            );
        }
        if !self.overrides.values().all(Vec::is_empty) {
            line(None, "overrides, in the order applied:".into());
            for (cluster, lines) in self.overrides.iter().filter(|(_, l)| !l.is_empty()) {
                line(Some(cluster), format!("  {cluster}:"));
                for text in lines {
                    line(Some(cluster), format!("    {text}"));
                }
            }
        }
        out
    }
}

/// One line of an explanation, and the cluster it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    pub cluster: Option<&'a str>,
    pub text: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::Error;

    /// The binding is a table: names padded, numbers right-aligned, a
    /// missing replica count left blank, no trailing spaces.
    #[test]
    fn the_binding_lines_up_in_columns() {
        let cluster = |name: &str, replicas: Option<u64>, weight: Option<u64>| ClusterLine {
            cluster: name.into(),
            replicas,
            weight,
            held: false,
            fort: name == "b",
        };
        let explanation = Explanation {
            object: "Deployment/shop/web".into(),
            api_version: "apps/v1".into(),
            template: None,
            source: "PropagationPolicy/shop/web".into(),
            passed_over: Vec::new(),
            decision: "made now".into(),
            desired_replicas: None,
            considered: Vec::new(),
            clusters: vec![
                cluster("a", Some(12), Some(3)),
                cluster("b", Some(3), Some(10)),
                cluster("long-name", None, Some(1)),
            ],
            fort: None,
            held: Vec::new(),
            overrides: BTreeMap::new(),
        };
        let text = explanation.to_text();
        let binding: Vec<&str> = text
            .lines()
            .skip_while(|l| *l != "binding:")
            .skip(1)
            .take(3)
            .collect();
        assert_eq!(
            binding,
            [
                "  a          replicas 12  weight  3",
                "  b          replicas  3  weight 10  fort",
                "  long-name               weight  1",
            ]
        );
    }

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

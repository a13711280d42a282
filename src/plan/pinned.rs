//! Bindings that do not come from scheduling: a ResourceBinding in the
//! source pins an application's clusters (SPEC §1), and a Namespace goes to
//! every cluster (Karmada's namespace controller).

use crate::diag::{Code, Diagnostic, Diagnostics, Origin};
use crate::model::binding::BindingDoc;
use crate::model::cluster::Cluster;
use crate::model::inputs::{Inputs, Template};
use crate::model::meta::ObjectKey;
use crate::model::record::BindingRecord;
use crate::schedule::{Assignment, Binding, Decision};
use std::collections::{BTreeMap, BTreeSet};

/// A non-workload binding onto every unheld cluster, plus held ones that had it.
pub(super) fn everywhere(
    fleet: &[Cluster],
    held: &BTreeSet<String>,
    previous: Option<&BindingRecord>,
) -> Binding {
    let had = |c: &str| previous.is_some_and(|p| p.clusters.iter().any(|(n, _)| n == c));
    let would_be: Vec<Assignment> = fleet
        .iter()
        .filter(|c| held.contains(&c.name))
        .map(|c| Assignment {
            cluster: c.name.clone(),
            replicas: 0,
            held: false,
        })
        .collect();
    Binding {
        clusters: fleet
            .iter()
            .filter(|c| !held.contains(&c.name) || had(&c.name))
            .map(|c| Assignment {
                cluster: c.name.clone(),
                replicas: 0,
                held: held.contains(&c.name),
            })
            .collect(),
        desired: 0,
        workload: false,
        revise: false,
        divide_completions: false,
        affinity_name: None,
        decision: Decision::Scheduled("Namespaces go to every cluster".into()),
        static_weights: None,
        notes: Vec::new(),
        would_be: (!would_be.is_empty()).then_some(would_be),
        withheld: BTreeSet::new(),
        remembered: false,
        applied: None,
    }
}

pub(super) fn pinned_binding(
    pin: &BindingDoc,
    desired: Option<u64>,
    held: &BTreeSet<String>,
    previous: Option<&BindingRecord>,
) -> Binding {
    let revise = pin.spec.clusters.iter().any(|c| c.replicas.is_some()) && desired.is_some();
    let previous_replicas = |name: &str| -> Option<u64> {
        previous.and_then(|p| p.clusters.iter().find(|(c, _)| c == name).map(|(_, r)| *r))
    };
    let mut clusters = Vec::new();
    let mut would_be = Vec::new();
    for target in &pin.spec.clusters {
        let is_held = held.contains(&target.name);
        let pinned = target
            .replicas
            .map_or(desired.unwrap_or(0), |r| u64::try_from(r).unwrap_or(0));
        if is_held {
            would_be.push(Assignment {
                cluster: target.name.clone(),
                replicas: pinned,
                held: false,
            });
        }
        // A held cluster keeps what it had, and gets nothing it did not have.
        let replicas = match (is_held, previous_replicas(&target.name)) {
            (true, Some(kept)) => kept,
            (true, None) => continue,
            (false, _) => pinned,
        };
        clusters.push(Assignment {
            cluster: target.name.clone(),
            replicas,
            held: is_held,
        });
    }
    Binding {
        desired: if revise {
            clusters.iter().map(|c| c.replicas).sum()
        } else {
            desired.unwrap_or(0)
        },
        clusters,
        workload: desired.is_some(),
        revise,
        divide_completions: revise,
        affinity_name: None,
        decision: Decision::Pinned,
        static_weights: None,
        notes: Vec::new(),
        would_be: (!would_be.is_empty()).then_some(would_be),
        withheld: BTreeSet::new(),
        remembered: false,
        applied: None,
    }
}

/// Pinned bindings by template key, with unknown-cluster and missing-template checks.
pub(super) fn pinned_bindings<'a>(
    inputs: &'a Inputs,
    templates: &BTreeMap<&ObjectKey, &Template>,
    diagnostics: &mut Diagnostics,
) -> BTreeMap<ObjectKey, (Origin, &'a BindingDoc)> {
    let mut result = BTreeMap::new();
    for pinned in &inputs.bindings {
        let resource = &pinned.binding.spec.resource;
        let key = ObjectKey {
            api_version: resource.api_version.clone(),
            kind: resource.kind.clone(),
            namespace: resource.namespace.clone().filter(|n| !n.is_empty()),
            name: resource.name.clone(),
        };
        if !templates.contains_key(&key) {
            diagnostics.push(
                Diagnostic::error(
                    Code::BindingWithoutTemplate,
                    format!("this binding pins `{key}`, which is not in the source"),
                )
                .at(pinned.doc.at(&["spec", "resource"]))
                .help("remove the binding, or add the template"),
            );
            continue;
        }
        result.insert(key, (pinned.doc.origin(), &pinned.binding));
    }
    result
}

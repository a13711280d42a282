//! Clusternet's overrides of one feed for one cluster (clusternet-semantics
//! §5): the Globalizations of the feed (those with a `clusterAffinity` only
//! when a ManagedCluster of the cluster's dedicated namespace matches it),
//! then the Localizations of the feed in that namespace, each group in
//! priority order, ties by name; every override of each in list order.

use super::{cluster_labels, Made, Materialiser, Target};
use crate::diag::{Code, Diagnostic};
use crate::model::clusternet::OverrideConfig;
use crate::model::inputs::{Document, Inputs};
use crate::overrides::clusternet::{self as cn, Outcome};
use crate::overrides::Step;
use crate::plan::App;
use serde_json::Value;

pub(super) fn step(
    materialiser: &Materialiser<'_>,
    target: &Target<'_>,
    made: &mut Made,
) -> Result<(), Diagnostic> {
    let inputs = materialiser.inputs;
    for outcome in chain(inputs, target, &mut made.value)? {
        if let Localized {
            by,
            outcome: Outcome::Applied(changes),
            ..
        } = outcome
        {
            if !changes.is_empty() {
                made.applied.steps.push(Step {
                    policy_name: String::new(),
                    policy_namespace: None,
                    rule: 0,
                    overrider: "",
                    item: 0,
                    changes,
                    by: Some(by),
                });
            }
        }
    }
    Ok(())
}

/// One override of a Localization or Globalization, and what it did.
pub struct Localized<'i> {
    /// `Localization `ns/name` override 0 (JSONPatch)`.
    pub by: String,
    pub doc: &'i Document,
    pub index: usize,
    pub outcome: Outcome,
}

/// The overrides that apply to the target's object, in Clusternet's
/// order, applied to `value`. An override that fails is the error, with
/// the Localization's or Globalization's file and line.
pub fn chain<'i>(
    inputs: &'i Inputs,
    target: &Target<'_>,
    value: &mut Value,
) -> Result<Vec<Localized<'i>>, Diagnostic> {
    let mut done = Vec::new();
    let mut chart_seen = false;
    for (what, doc, overrides) in applicable(inputs, target.app, target) {
        for (index, config) in overrides.iter().enumerate() {
            let by = format!("{what} override {index} ({:?})", config.kind);
            match cn::apply(value, config, &mut chart_seen) {
                Ok(outcome) => done.push(Localized {
                    by,
                    doc,
                    index,
                    outcome,
                }),
                Err(why) => {
                    return Err(Diagnostic::error(
                        Code::OverrideFailed,
                        format!(
                            "{what} `spec.overrides[{index}]` cannot be applied to `{}` for cluster `{}`: {why}",
                            target.template.key, target.cluster.name
                        ),
                    )
                    .at(doc.at(&["spec", "overrides", &index.to_string()]))
                    .help("fix the override; Clusternet would fail the cluster's whole Description and deliver nothing new"))
                }
            }
        }
    }
    check_identity(target, value)?;
    Ok(done)
}

/// The Globalizations, then the Localizations, that apply on the target's
/// cluster: what each is called, its document and its overrides.
fn applicable<'i>(
    inputs: &'i Inputs,
    app: &App,
    target: &Target<'_>,
) -> Vec<(String, &'i Document, &'i [OverrideConfig])> {
    let namespace = target.cluster.namespace.as_deref();
    let mut out = Vec::new();
    for &i in &app.localizing.globalizations {
        let g = &inputs.globalizations[i];
        let applies = match &g.spec.cluster_affinity {
            None => true,
            Some(affinity) => inputs
                .clusters
                .iter()
                .filter(|c| c.managed && c.namespace.as_deref() == namespace)
                .any(|c| affinity.matches(&cluster_labels(c, app))),
        };
        if applies {
            out.push((
                format!("Globalization `{}`", g.name),
                &g.doc,
                g.spec.overrides.as_slice(),
            ));
        }
    }
    for &i in &app.localizing.localizations {
        let l = &inputs.localizations[i];
        if namespace == Some(l.namespace.as_str()) {
            out.push((
                format!("Localization `{}/{}`", l.namespace, l.name),
                &l.doc,
                l.spec.overrides.as_slice(),
            ));
        }
    }
    out
}

/// An override may not make the object another object: its file, and
/// what is pruned when it goes, follow its identity.
fn check_identity(target: &Target<'_>, value: &Value) -> Result<(), Diagnostic> {
    let key = &target.template.key;
    let text = |pointer: &str| value.pointer(pointer).and_then(Value::as_str);
    let same = text("/apiVersion") == Some(key.api_version.as_str())
        && text("/kind") == Some(key.kind.as_str())
        && text("/metadata/name") == Some(key.name.as_str())
        && text("/metadata/namespace") == key.namespace.as_deref();
    if same {
        return Ok(());
    }
    Err(Diagnostic::error(
        Code::OverrideFailed,
        format!(
            "the Localizations and Globalizations of `{key}` change its apiVersion, kind, name or namespace for cluster `{}`",
            target.cluster.name
        ),
    )
    .help("feed another template instead; an override changes an object, it does not make another one"))
}

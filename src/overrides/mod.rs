//! Applying OverridePolicies and ClusterOverridePolicies to a template, per cluster.
//!
//! Reproduces Karmada's `pkg/util/overridemanager`: [`applicable`] picks and
//! orders the policies (ClusterOverridePolicies first, then OverridePolicies
//! of the template's namespace; within each group by implicit priority
//! ascending, then name), [`apply`] runs every rule whose `targetCluster` is
//! absent or matches, with the overriders of a rule in the fixed order image →
//! command → args → labels → annotations → field → plaintext, and records what
//! was applied for the `policy.karmada.io/applied-*overrides` annotations.
//! Any failure aborts the whole object for that cluster; the object is then
//! left unchanged. Pure functions, no IO.

pub mod check;
pub mod clusternet;
mod command;
pub mod field;
pub mod image;
pub mod metadata;
pub mod patch;

use crate::model::affinity::ClusterView;
use crate::model::inputs::OverridePolicy;
use crate::model::override_policy::{ImageOverrider, OverrideSpec, Overriders, PlaintextOverrider};
use crate::model::resource_selector::{best_priority, ImplicitPriority, TemplateView};
use command::{command_args_patch, CommandArgsError, Target};
use field::FieldError;
use image::ImageError;
use metadata::{metadata_patch, MetaMap};
use patch::{apply_in_place, Change, OpKind, PatchError, PatchOp};
use serde::Serialize;
use serde_json::Value;
use std::fmt;

/// Annotation listing the applied ClusterOverridePolicy rules.
pub const APPLIED_CLUSTER_OVERRIDES: &str = "policy.karmada.io/applied-cluster-overrides";
/// Annotation listing the applied OverridePolicy rules.
pub const APPLIED_OVERRIDES: &str = "policy.karmada.io/applied-overrides";

/// One override policy as the engine sees it.
#[derive(Clone, Copy, Debug)]
pub struct OverridePolicyRef<'a> {
    pub name: &'a str,
    /// `None` for a ClusterOverridePolicy.
    pub namespace: Option<&'a str>,
    pub spec: &'a OverrideSpec,
}

impl<'a> From<&'a OverridePolicy> for OverridePolicyRef<'a> {
    /// A loaded policy as the engine takes it.
    fn from(policy: &'a OverridePolicy) -> Self {
        OverridePolicyRef {
            name: &policy.name,
            namespace: policy.namespace.as_deref(),
            spec: &policy.spec,
        }
    }
}

/// "ClusterOverridePolicy `name`" or "OverridePolicy `ns/name`".
fn policy_label(name: &str, namespace: Option<&str>) -> String {
    match namespace {
        Some(ns) => format!("OverridePolicy `{ns}/{name}`"),
        None => format!("ClusterOverridePolicy `{name}`"),
    }
}

/// The policies that apply to `template`, in the order Karmada applies them.
/// An empty `resourceSelectors` matches everything with priority MatchAll.
/// OverridePolicies count only for namespaced templates, from their namespace.
pub fn applicable<'p, 'a>(
    policies: &'p [OverridePolicyRef<'a>],
    template: &TemplateView<'_>,
) -> Vec<&'p OverridePolicyRef<'a>> {
    let priority = |p: &OverridePolicyRef<'_>| -> Option<ImplicitPriority> {
        if p.spec.resource_selectors.is_empty() {
            Some(ImplicitPriority::MatchAll)
        } else {
            best_priority(&p.spec.resource_selectors, template)
        }
    };
    let template_namespace = template.namespace.filter(|ns| !ns.is_empty());
    let group = |in_group: &dyn Fn(&OverridePolicyRef<'_>) -> bool| {
        let mut matched: Vec<(ImplicitPriority, &'p OverridePolicyRef<'a>)> = policies
            .iter()
            .filter(|p| in_group(p))
            .filter_map(|p| priority(p).map(|prio| (prio, p)))
            .collect();
        matched.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.name.cmp(b.1.name)));
        matched.into_iter().map(|(_, p)| p)
    };
    let mut ordered: Vec<&'p OverridePolicyRef<'a>> = group(&|p| p.namespace.is_none()).collect();
    if let Some(ns) = template_namespace {
        ordered.extend(group(&|p| p.namespace == Some(ns)));
    }
    ordered
}

/// One applied rule, as written into the applied-overrides annotations.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppliedItem {
    pub policy_name: String,
    pub overriders: Overriders,
}

/// One overrider item that changed the object, for `explain`.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub policy_name: String,
    pub policy_namespace: Option<String>,
    pub rule: usize,
    pub overrider: &'static str,
    pub item: usize,
    pub changes: Vec<Change>,
    /// What made the change when it is not a Karmada override policy's
    /// rule (a Clusternet Localization's or Globalization's override), as
    /// shown.
    pub by: Option<String>,
}

impl Step {
    /// What made the change, as `explain` names it.
    pub fn head(&self) -> String {
        match &self.by {
            Some(by) => by.clone(),
            None => format!(
                "{} rule {} {}[{}]",
                policy_label(&self.policy_name, self.policy_namespace.as_deref()),
                self.rule,
                self.overrider,
                self.item
            ),
        }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:", self.head())?;
        let shown = |v: &Option<Value>| {
            v.as_ref()
                .map_or_else(|| "(absent)".to_string(), |v| format!("`{v}`"))
        };
        for (i, change) in self.changes.iter().enumerate() {
            let sep = if i == 0 { " " } else { "; " };
            write!(
                f,
                "{sep}`{}` {} → {}",
                change.path,
                shown(&change.old),
                shown(&change.new)
            )?;
        }
        Ok(())
    }
}

/// What [`apply`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Applied {
    /// Applied ClusterOverridePolicy rules, in application order.
    pub cluster: Vec<AppliedItem>,
    /// Applied OverridePolicy rules, in application order.
    pub namespaced: Vec<AppliedItem>,
    /// Every change, in application order.
    pub steps: Vec<Step>,
}

impl Applied {
    /// `(annotation key, JSON value)` pairs, cluster group first; a group with
    /// no applied rule gives no annotation. Items are sorted by policy name
    /// (stably) and encoded as Go's `encoding/json` would.
    pub fn annotations(&self) -> Vec<(String, String)> {
        [
            (APPLIED_CLUSTER_OVERRIDES, &self.cluster),
            (APPLIED_OVERRIDES, &self.namespaced),
        ]
        .into_iter()
        .filter(|(_, items)| !items.is_empty())
        .map(|(key, items)| {
            let mut sorted: Vec<&AppliedItem> = items.iter().collect();
            sorted.sort_by(|a, b| a.policy_name.cmp(&b.policy_name));
            // Written straight to text: the same text as through a
            // `Value`, without building one per object per cluster.
            let text = serde_json::to_string(&sorted).unwrap_or_else(|_| "null".into());
            (key.to_string(), field::escape_html(&text))
        })
        .collect()
    }

    /// The steps as human-readable lines.
    pub fn explain(&self) -> Vec<String> {
        self.steps.iter().map(Step::to_string).collect()
    }
}

/// A policy could not be applied; the object is unchanged.
#[derive(Debug, thiserror::Error)]
#[error("{}: `{path_in_spec}`: {fault}", policy_label(policy_name, policy_namespace.as_deref()))]
pub struct OverrideError {
    pub policy_name: String,
    pub policy_namespace: Option<String>,
    pub rule: usize,
    pub overrider: &'static str,
    pub item: usize,
    /// JSON pointer into the policy document, e.g.
    /// `/spec/overrideRules/0/overriders/plaintext/1/path`.
    pub path_in_spec: String,
    /// What went wrong; part of the message, so not a `source`.
    pub fault: Fault,
}

/// What went wrong in one overrider item.
#[derive(Debug, thiserror::Error)]
pub enum Fault {
    #[error(transparent)]
    Image(#[from] ImageError),
    #[error(transparent)]
    CommandArgs(#[from] CommandArgsError),
    #[error(transparent)]
    Field(#[from] FieldError),
    /// A patch operation failed (plaintext, or the patch another overrider built).
    #[error(transparent)]
    Patch(#[from] PatchError),
    /// `unstructured.UnmarshalJSON`, which Karmada decodes the result with,
    /// requires a kind.
    #[error("the result has no `kind`")]
    NoKind,
}

/// Karmada's override manager for one cluster: the ClusterOverridePolicies
/// that select the object as it enters, in their order, then the
/// OverridePolicies that select it as those left it (a label a cluster
/// policy changed decides which namespaced policies apply), in theirs.
/// `candidates` holds every policy that may apply, in any order.
// The error is returned by value on purpose (one per object and cluster).
#[allow(clippy::result_large_err)]
pub fn apply_staged(
    object: &mut Value,
    candidates: &[OverridePolicyRef<'_>],
    cluster: &ClusterView<'_>,
) -> Result<Applied, OverrideError> {
    let mut work = object.clone();
    let mut applied = Applied::default();
    for cluster_scoped in [true, false] {
        let stage: Vec<OverridePolicyRef<'_>> = candidates
            .iter()
            .filter(|p| p.namespace.is_none() == cluster_scoped)
            .copied()
            .collect();
        if stage.is_empty() {
            continue;
        }
        let labels = object_labels(&work);
        let text = |p: &str| {
            work.pointer(p)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let (api_version, kind, name) =
            (text("/apiVersion"), text("/kind"), text("/metadata/name"));
        let namespace = work
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .map(str::to_string);
        let view = TemplateView {
            api_version: &api_version,
            kind: &kind,
            namespace: namespace.as_deref(),
            name: &name,
            labels: &labels,
        };
        let ordered = applicable(&stage, &view);
        apply_in_order(&mut work, &ordered, cluster, &mut applied)?;
    }
    *object = work;
    Ok(applied)
}

/// The object's labels, as a selector reads them.
fn object_labels(object: &Value) -> crate::model::selector::Labels {
    object
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .map(|labels| {
            labels
                .iter()
                .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether a policy's overriders may change what selects an object (its
/// labels or name), so that which namespaced policies apply after it can
/// differ from which select the template.
pub fn may_reselect(spec: &OverrideSpec) -> bool {
    let metadata = |path: &str| path.is_empty() || path == "/" || path.starts_with("/metadata");
    spec.rules().iter().any(|(_, _, o)| {
        !o.labels_overrider.is_empty()
            || o.plaintext.iter().any(|p| metadata(&p.path))
            || o.image_overrider
                .iter()
                .any(|i| i.predicate.as_ref().is_some_and(|p| metadata(&p.path)))
    })
}

#[allow(clippy::result_large_err)]
fn apply_in_order(
    work: &mut Value,
    policies: &[&OverridePolicyRef<'_>],
    cluster: &ClusterView<'_>,
    applied: &mut Applied,
) -> Result<(), OverrideError> {
    for policy in policies {
        for (rule, target, overriders) in policy.spec.rules() {
            if target.is_some_and(|affinity| !affinity.matches(cluster)) {
                continue;
            }
            let mut ctx = RuleCtx {
                policy,
                rule,
                base: format!("/spec{}", policy.spec.overriders_pointer(rule)),
                steps: &mut applied.steps,
            };
            ctx.apply_overriders(work, overriders).map_err(|e| *e)?;
            let item = AppliedItem {
                policy_name: policy.name.to_string(),
                overriders: overriders.clone(),
            };
            match policy.namespace {
                None => applied.cluster.push(item),
                Some(_) => applied.namespaced.push(item),
            }
        }
    }
    Ok(())
}

// Overrider names as the policy document spells them (in error pointers
// and `explain`); the command, args, labels and annotations ones are beside
// their lists.
const IMAGE: &str = "imageOverrider";
const FIELD: &str = "fieldOverrider";
const PLAINTEXT: &str = "plaintext";

struct RuleCtx<'c, 'p> {
    policy: &'c OverridePolicyRef<'p>,
    rule: usize,
    /// Pointer to the rule's overriders in the policy document.
    base: String,
    steps: &'c mut Vec<Step>,
}

impl RuleCtx<'_, '_> {
    fn error(
        &self,
        overrider: &'static str,
        item: usize,
        at: &str,
        fault: impl Into<Fault>,
    ) -> Box<OverrideError> {
        Box::new(OverrideError {
            policy_name: self.policy.name.to_string(),
            policy_namespace: self.policy.namespace.map(str::to_string),
            rule: self.rule,
            overrider,
            item,
            path_in_spec: format!("{}/{overrider}/{item}{at}", self.base),
            fault: fault.into(),
        })
    }

    fn record(&mut self, overrider: &'static str, item: usize, changes: Vec<Change>) {
        if !changes.is_empty() {
            self.steps.push(Step {
                policy_name: self.policy.name.to_string(),
                policy_namespace: self.policy.namespace.map(str::to_string),
                rule: self.rule,
                overrider,
                item,
                changes,
                by: None,
            });
        }
    }

    /// Applies a patch built by one overrider item; `at` locates errors.
    fn patch(
        &mut self,
        object: &mut Value,
        ops: &[PatchOp],
        overrider: &'static str,
        item: usize,
        at: &str,
    ) -> Result<(), Box<OverrideError>> {
        if ops.is_empty() {
            return Ok(());
        }
        let changes = apply_checked(object, ops).map_err(|m| self.error(overrider, item, at, m))?;
        self.record(overrider, item, changes);
        Ok(())
    }

    /// Runs one rule's overriders in Karmada's fixed order: image → command
    /// → args → labels → annotations → field → plaintext.
    fn apply_overriders(
        &mut self,
        object: &mut Value,
        overriders: &Overriders,
    ) -> Result<(), Box<OverrideError>> {
        for (i, o) in overriders.image_overrider.iter().enumerate() {
            self.image(object, i, o)?;
        }
        self.commands_and_args(object, overriders)?;
        self.labels_and_annotations(object, overriders)?;
        for (i, o) in overriders.field_overrider.iter().enumerate() {
            let ops =
                field::field_patch(object, o).map_err(|e| self.error(FIELD, i, &e.at(), e))?;
            self.patch(object, &ops, FIELD, i, "/fieldPath")?;
        }
        self.plaintext(object, &overriders.plaintext)
    }

    /// One image overrider item: rewrites each image it targets. Its
    /// errors point at the predicate's path when it has one.
    fn image(
        &mut self,
        object: &mut Value,
        i: usize,
        o: &ImageOverrider,
    ) -> Result<(), Box<OverrideError>> {
        let at = if o.predicate.is_some() {
            "/predicate/path"
        } else {
            ""
        };
        let ops = self
            .image_targets(object, i, o)?
            .into_iter()
            .map(|(path, current)| {
                let new =
                    image::override_image(&current, o).map_err(|e| self.error(IMAGE, i, at, e))?;
                Ok(PatchOp {
                    op: OpKind::Replace,
                    path,
                    value: Some(Value::String(new)),
                })
            })
            .collect::<Result<Vec<_>, Box<OverrideError>>>()?;
        self.patch(object, &ops, IMAGE, i, at)
    }

    /// The images an image overrider item rewrites, as (pointer, image):
    /// the one at the predicate's path (read before the path is required to
    /// be absolute, which decides the error reported), or every container's.
    fn image_targets(
        &self,
        object: &Value,
        i: usize,
        o: &ImageOverrider,
    ) -> Result<Vec<(String, String)>, Box<OverrideError>> {
        let Some(predicate) = &o.predicate else {
            return image::default_targets(object).map_err(|e| self.error(IMAGE, i, "", e));
        };
        let path = &predicate.path;
        let current = image::predicate_target(object, path).map_err(|reason| {
            self.error(
                IMAGE,
                i,
                "/predicate/path",
                ImageError::PredicateUnreadable {
                    path: path.clone(),
                    reason,
                },
            )
        })?;
        if !path.starts_with('/') {
            return Err(self.error(
                IMAGE,
                i,
                "/predicate/path",
                ImageError::PredicateNotAbsolute { path: path.clone() },
            ));
        }
        Ok(vec![(path.clone(), current)])
    }

    /// The command overrider items, then the args ones.
    fn commands_and_args(
        &mut self,
        object: &mut Value,
        overriders: &Overriders,
    ) -> Result<(), Box<OverrideError>> {
        for (name, target, list) in [
            (
                "commandOverrider",
                Target::Command,
                &overriders.command_overrider,
            ),
            ("argsOverrider", Target::Args, &overriders.args_overrider),
        ] {
            for (i, o) in list.iter().enumerate() {
                let ops = command_args_patch(object, target, o)
                    .map_err(|e| self.error(name, i, "", e))?;
                self.patch(object, &ops, name, i, "")?;
            }
        }
        Ok(())
    }

    /// The labels overrider items, then the annotations ones.
    fn labels_and_annotations(
        &mut self,
        object: &mut Value,
        overriders: &Overriders,
    ) -> Result<(), Box<OverrideError>> {
        for (name, which, list) in [
            (
                "labelsOverrider",
                MetaMap::Labels,
                &overriders.labels_overrider,
            ),
            (
                "annotationsOverrider",
                MetaMap::Annotations,
                &overriders.annotations_overrider,
            ),
        ] {
            for (i, o) in list.iter().enumerate() {
                let ops = metadata_patch(object, which, o);
                self.patch(object, &ops, name, i, "/value")?;
            }
        }
        Ok(())
    }

    /// The plaintext items, applied together as one JSON patch (as Karmada
    /// applies them), each operation's change recorded as its own step.
    fn plaintext(
        &mut self,
        object: &mut Value,
        items: &[PlaintextOverrider],
    ) -> Result<(), Box<OverrideError>> {
        let ops: Vec<PatchOp> = items
            .iter()
            .map(|p| PatchOp {
                op: p.operator.into(),
                path: p.path.clone(),
                value: p.value.clone(),
            })
            .collect();
        if ops.is_empty() {
            return Ok(());
        }
        // `object` is `apply`'s working copy, discarded on error.
        match apply_in_place(object, &ops) {
            Ok(changes) if has_kind(object) => {
                for (i, change) in changes.into_iter().enumerate() {
                    self.record(PLAINTEXT, i, vec![change]);
                }
                Ok(())
            }
            Ok(_) => Err(self.error(PLAINTEXT, 0, "/path", Fault::NoKind)),
            Err(e) => Err(self.error(PLAINTEXT, e.index, "/path", e)),
        }
    }
}

/// Patches the object as Karmada does, then requires what
/// `unstructured.UnmarshalJSON` requires of the result: an object with a kind.
/// (On error the caller discards the whole working copy.)
fn apply_checked(object: &mut Value, ops: &[PatchOp]) -> Result<Vec<Change>, Fault> {
    let changes = apply_in_place(object, ops)?;
    if !has_kind(object) {
        return Err(Fault::NoKind);
    }
    Ok(changes)
}

fn has_kind(object: &Value) -> bool {
    object
        .get("kind")
        .and_then(Value::as_str)
        .is_some_and(|k| !k.is_empty())
}

#[cfg(test)]
mod tests;

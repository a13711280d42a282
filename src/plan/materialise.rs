//! Making one application's object for one cluster, in Karmada's order:
//! prune what a member cluster assigns, revise replicas, apply overrides
//! (with garrison's per-application cluster facts), run the revise-object
//! hook, check what scripts returned, and write Karmada's bookkeeping.

use super::{policy_of, App, WorkOptions};
use crate::diag::{Code, Diagnostic};
use crate::fort::{FORT_ENABLED, FORT_LABEL};
use crate::interpret;
use crate::model::cluster::Cluster;
use crate::model::inputs::{Inputs, Template};
use crate::model::meta::{ObjectKey, FORT_CLUSTER_ANNOTATION};
use crate::model::meta::{CPP_NAME_ANNOTATION, PP_NAMESPACE_ANNOTATION, PP_NAME_ANNOTATION};
use crate::model::policy::FORT_ANNOTATION;
use crate::model::selector::Labels;
use crate::node::display_path;
use crate::node::{Node, Pos};
use crate::overrides::{self, OverridePolicyRef};
use crate::schedule;
use crate::schema::{self, FaultKind, Lookup};
use serde_json::{Map, Value};

/// The labels a cluster shows while `app` is rendered for it: its own, plus
/// garrison's per-application facts. Add a fact here and every override rule
/// and hook can select on it.
pub fn cluster_labels(cluster: &Cluster, app: &App) -> Labels {
    let mut labels = cluster.labels.clone();
    if let Some(fort) = &app.fort {
        labels.insert(
            FORT_LABEL.to_string(),
            (fort.cluster == cluster.name).to_string(),
        );
    }
    labels
}

/// What making an object reads besides the application and the cluster.
pub struct Materialiser<'a> {
    pub inputs: &'a Inputs,
    pub interpreter: &'a interpret::Interpreter,
}

/// One object, made, with what each override did to it.
#[derive(Clone, Debug, PartialEq)]
pub struct Made {
    pub value: Value,
    pub applied: overrides::Applied,
}

/// One object to make: an application's template, for one cluster, with
/// the replicas the cluster's share holds, and the override policies that
/// select the template, in the order they apply.
pub struct Target<'a> {
    pub app: &'a App,
    pub template: &'a Template,
    pub cluster: &'a Cluster,
    pub replicas: u64,
    pub overrides: &'a [&'a OverridePolicyRef<'a>],
}

impl Materialiser<'_> {
    /// The object of `target`, step by step in Karmada's order; a step that
    /// fails is the diagnostic, and nothing is made.
    pub fn object(&self, target: &Target<'_>) -> Result<Made, Diagnostic> {
        let key = &target.template.key;
        let in_cluster =
            |error: interpret::InterpretError| error.diagnostic(key, Some(&target.cluster.name));
        let mut value = target.template.value.clone();
        interpret::prune(&key.api_version, &key.kind, &mut value);
        self.revise_replicas(target, &mut value)
            .map_err(in_cluster)?;
        let labels = cluster_labels(target.cluster, target.app);
        let applied = self.apply_overrides(target, &labels, &mut value)?;
        self.run_hook(target, &labels, &mut value)
            .map_err(in_cluster)?;
        self.check_revised(key, &value).map_err(in_cluster)?;
        annotate(&mut value, target.app, &applied);
        Ok(Made { value, applied })
    }

    /// Karmada's ReviseReplica for a Divided application: the cluster's
    /// share, and a Job's completions divided with the same weights.
    fn revise_replicas(
        &self,
        target: &Target<'_>,
        value: &mut Value,
    ) -> Result<(), interpret::InterpretError> {
        let (app, key) = (target.app, &target.template.key);
        if !app.binding.revise {
            return Ok(());
        }
        self.interpreter
            .revise_replicas(key, value, target.replicas)?;
        let template = &target.template.value;
        if let Some(total) = interpret::completions(&key.api_version, &key.kind, template) {
            let shares: Vec<(String, u64)> = app
                .binding
                .clusters
                .iter()
                .map(|a| (a.cluster.clone(), a.replicas))
                .collect();
            let divided = schedule::divide::divide_completions(total, &shares);
            if let Some((_, completions)) = divided.iter().find(|(c, _)| c == &target.cluster.name)
            {
                interpret::revise_completions(value, *completions);
            }
        }
        Ok(())
    }

    /// The override policies, in order, seeing the cluster with garrison's
    /// per-application facts (`labels`).
    fn apply_overrides(
        &self,
        target: &Target<'_>,
        labels: &Labels,
        value: &mut Value,
    ) -> Result<overrides::Applied, Diagnostic> {
        let view = target.cluster.view(labels);
        overrides::apply(value, target.overrides, &view).map_err(|error| {
            let policy = self
                .inputs
                .override_policies
                .iter()
                .find(|p| p.name == error.policy_name && p.namespace == error.policy_namespace);
            let segments: Vec<&str> = error.path_in_spec.split('/').filter(|s| !s.is_empty()).collect();
            Diagnostic::error(
                Code::OverrideFailed,
                format!(
                    "{} rule {} cannot be applied to `{}` for cluster `{}`: {}",
                    policy.map_or_else(|| error.policy_name.clone(), |p| p.display()),
                    error.rule,
                    target.template.key,
                    target.cluster.name,
                    error.fault
                ),
            )
            .at_opt(policy.map(|p| p.doc.at(&segments)))
            .help("fix the path or operator; `replace` and `remove` need an existing path, `add` an existing parent")
        })
    }

    /// garrison's revise-object hook (SPEC §4), with the cluster and fort facts.
    fn run_hook(
        &self,
        target: &Target<'_>,
        labels: &Labels,
        value: &mut Value,
    ) -> Result<(), interpret::InterpretError> {
        let app = target.app;
        let cluster = interpret::HookCluster {
            name: &target.cluster.name,
            labels,
        };
        let fort = interpret::HookFort {
            enabled: fort_enabled(self.inputs, app),
            cluster: app.fort.as_ref().map(|f| f.cluster.as_str()),
        };
        self.interpreter.revise_object(
            &target.template.key,
            value,
            &cluster,
            target.replicas,
            &fort,
        )
    }

    /// What Lua scripts returned, checked like a template (SPEC §10): a
    /// script that writes a field the kind does not have, or a value it
    /// does not allow, fails like a script that raises an error.
    fn check_revised(
        &self,
        key: &ObjectKey,
        value: &Value,
    ) -> Result<(), interpret::InterpretError> {
        if !self.interpreter.revises(key) {
            return Ok(());
        }
        let Some(catalog) = self.inputs.catalog.as_deref() else {
            return Ok(());
        };
        let Lookup::Known(kind) = catalog.lookup(&key.api_version, &key.kind) else {
            return Ok(());
        };
        let node = Node::from_value(value, Pos::default());
        let Some(fault) = schema::validate_object(catalog.schemas(), kind.root, &node)
            .into_iter()
            .next()
        else {
            return Ok(());
        };
        let path = display_path(&fault.path);
        let why = match fault.kind {
            FaultKind::UnknownField { field, .. } if path.is_empty() => {
                format!("it returned an object with the unknown field `{field}`")
            }
            FaultKind::UnknownField { field, .. } => {
                format!("it returned an object with the unknown field `{field}` in `{path}`")
            }
            FaultKind::Invalid(message) => {
                format!("it returned an invalid object: `{path}`: {message}")
            }
        };
        match self.interpreter.revised_object_error(key, why) {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}

/// A policy's `conflictResolution` and `preserveResourcesOnDeletion`, which
/// Karmada copies onto each Work.
pub fn work_options(inputs: &Inputs, app: &App) -> WorkOptions {
    policy_of(inputs, app).map_or_else(WorkOptions::default, |p| WorkOptions {
        overwrite: p.spec.conflict_resolution
            == Some(crate::model::policy::ConflictResolution::Overwrite),
        preserve_on_deletion: p.spec.preserve_resources_on_deletion.unwrap_or(false),
    })
}

/// Whether the application's policy opts into fort placement.
fn fort_enabled(inputs: &Inputs, app: &App) -> bool {
    policy_of(inputs, app).is_some_and(|p| {
        p.annotations
            .get(FORT_ANNOTATION)
            .is_some_and(|v| v == FORT_ENABLED)
    })
}

/// Karmada's bookkeeping, where Karmada puts it: the claiming policy, the
/// applied overrides; and garrison's fort record.
fn annotate(value: &mut Value, app: &App, applied: &overrides::Applied) {
    // SOPS signs every value of the document (its MAC), so a SOPS-encrypted
    // object passes through without a single added annotation.
    if value.get("sops").is_some_and(Value::is_object) {
        return;
    }
    let mut entries: Vec<(String, String)> = Vec::new();
    if let Some(policy) = app.policy() {
        match &policy.namespace {
            Some(ns) => {
                entries.push((PP_NAME_ANNOTATION.into(), policy.name.clone()));
                entries.push((PP_NAMESPACE_ANNOTATION.into(), ns.clone()));
            }
            None => entries.push((CPP_NAME_ANNOTATION.into(), policy.name.clone())),
        }
    }
    entries.extend(applied.annotations());
    if let Some(fort) = &app.fort {
        entries.push((FORT_CLUSTER_ANNOTATION.into(), fort.cluster.clone()));
    }
    if entries.is_empty() {
        return;
    }
    let Some(root) = value.as_object_mut() else {
        return;
    };
    let metadata = root
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(metadata) = metadata.as_object_mut() else {
        return;
    };
    let annotations = metadata
        .entry("annotations")
        .or_insert_with(|| Value::Object(Map::new()));
    if !annotations.is_object() {
        *annotations = Value::Object(Map::new());
    }
    if let Some(map) = annotations.as_object_mut() {
        for (k, v) in entries {
            map.insert(k, Value::String(v));
        }
    }
}

//! Rendering a plan's applications for each cluster: which objects each
//! cluster gets (live, and what held clusters would get), made by
//! [`super::materialise`] in parallel, or kept from the previous render when
//! nothing they are made from changed ([`crate::reuse`]).

use super::materialise::{self, Materialiser, Target};
use super::{policy_of, App, ClusterPlan, Options, Rendered, WorkOptions, RESERVED_NAMESPACES};
use crate::diag::{Diagnostic, Diagnostics};
use crate::emit;
use crate::interpret;
use crate::model::cluster::Cluster;
use crate::model::inputs::{Inputs, Template};
use crate::model::layout::{self, Format, Layout};
use crate::model::meta::ObjectKey;
use crate::model::previous::PreviousRender;
use crate::overrides::{self, OverridePolicyRef};
use crate::reuse;
use rayon::prelude::*;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// What rendering reads besides the applications it renders.
pub(super) struct RenderContext<'a> {
    pub inputs: &'a Inputs,
    pub interpreter: &'a interpret::Interpreter,
    pub templates: &'a BTreeMap<&'a ObjectKey, &'a Template>,
    pub previous: &'a PreviousRender,
    pub options: &'a Options,
}

/// One object to produce: application (by index), cluster, replicas, and
/// whether it is a shadow job (what a held cluster would receive, rendered
/// only to count what the hold keeps back).
struct Job<'a> {
    app: usize,
    template: &'a Template,
    cluster: &'a Cluster,
    replicas: u64,
    shadow: bool,
}

pub(super) fn render_clusters(
    context: &RenderContext<'_>,
    apps: &mut [App],
    fleet: &[Cluster],
    paused: &BTreeSet<String>,
    diagnostics: &mut Diagnostics,
) -> Vec<ClusterPlan> {
    let inputs = context.inputs;
    let override_refs: Vec<OverridePolicyRef<'_>> = inputs
        .override_policies
        .iter()
        .map(OverridePolicyRef::from)
        .collect();
    let digests = reuse::Digests::new(inputs, context.options.format);
    let applicable: Vec<Vec<&OverridePolicyRef<'_>>> = apps
        .iter_mut()
        .map(|app| {
            let Some(template) = context.templates.get(&app.key) else {
                return Vec::new();
            };
            let applicable = overrides::applicable(&override_refs, &template.view());
            let policy = policy_of(inputs, app);
            app.digest = Some(digests.app(app, template, policy, &applicable));
            applicable
        })
        .collect();
    let by_name: BTreeMap<&str, &Cluster> = fleet.iter().map(|c| (c.name.as_str(), c)).collect();
    let jobs: Vec<Job<'_>> = apps
        .iter()
        .enumerate()
        .flat_map(|(i, app)| {
            let live = app
                .binding
                .clusters
                .iter()
                .filter(|a| !a.held)
                .map(move |a| (i, a, false));
            let shadow = app.binding.would_be.iter().flatten();
            live.chain(shadow.map(move |a| (i, a, true)))
        })
        .filter_map(|(i, a, shadow)| {
            // Every application comes from a template; a binding's cluster
            // outside the fleet was reported when the binding was made.
            let template = context.templates.get(&apps[i].key)?;
            by_name.get(a.cluster.as_str()).map(|cluster| Job {
                app: i,
                template,
                cluster,
                replicas: a.replicas,
                shadow,
            })
        })
        .collect();
    // Decided once per application, not per job: whether it keeps its
    // files, and (a manifest's path names no cluster) where they are.
    let reusable: Vec<bool> = apps
        .iter()
        .map(|app| {
            let recorded = context.previous.bindings.get(&app.key);
            context.options.reuse
                && app.digest.is_some()
                && recorded.and_then(|b| b.digest.as_ref()) == app.digest.as_ref()
        })
        .collect();
    let manifest_paths: Vec<Option<String>> = apps
        .iter()
        .zip(&reusable)
        .map(|(app, reusable)| {
            (*reusable && context.options.format == Format::Manifests)
                .then(|| Layout::new(Format::Manifests).object(&app.key, ""))
        })
        .collect();
    type Outcome = (usize, String, bool, Result<Made, Diagnostic>);
    let apps_ref: &[App] = apps;
    let results: Vec<Outcome> = jobs
        .par_iter()
        .map(|job| {
            let app = &apps_ref[job.app];
            let result = (reusable[job.app] && !job.shadow)
                .then(|| kept(context, app, job, manifest_paths[job.app].as_deref()))
                .flatten()
                .map(|file| Ok(Made::Kept(file)))
                .unwrap_or_else(|| {
                    render_one(context, app, job, &applicable[job.app]).map(|(file, applied)| {
                        // Dropped here, in the job, unless kept for explain.
                        let applied = if context.options.record_overrides {
                            applied
                        } else {
                            overrides::Applied::default()
                        };
                        Made::Rendered(file, applied)
                    })
                });
            (job.app, job.cluster.name.clone(), job.shadow, result)
        })
        .collect();
    let mut per_cluster: BTreeMap<String, Vec<Rendered>> =
        fleet.iter().map(|c| (c.name.clone(), Vec::new())).collect();
    let mut shadows: BTreeMap<String, Vec<Rendered>> = BTreeMap::new();
    for (index, cluster, shadow, result) in results {
        match (result, shadow) {
            (Ok(made), true) => shadows.entry(cluster).or_default().push(made.into_file()),
            (Ok(Made::Rendered(file, applied)), false) => {
                if context.options.record_overrides {
                    apps[index].overrides.insert(cluster.clone(), applied);
                }
                per_cluster.entry(cluster).or_default().push(file);
            }
            (Ok(Made::Kept(file)), false) => per_cluster.entry(cluster).or_default().push(file),
            // A held cluster's would-be object is only counted; its fault
            // surfaces when the cluster is unpaused.
            (Err(_), true) => {}
            (Err(d), false) => diagnostics.push(d),
        }
    }
    let mut frozen: BTreeMap<String, Vec<ObjectKey>> = BTreeMap::new();
    for app in apps.iter() {
        for a in app.binding.clusters.iter().filter(|a| a.held) {
            frozen
                .entry(a.cluster.clone())
                .or_default()
                .push(app.key.clone());
        }
    }
    let format = context.options.format;
    for (name, objects) in per_cluster.iter_mut() {
        // A frozen object keeps its namespace: pruning the Namespace would
        // delete what the hold keeps running.
        let previous = context.previous;
        let frozen_in: BTreeSet<&str> = frozen
            .get(name)
            .into_iter()
            .flatten()
            .filter(|key| {
                let path = Layout::new(format).cluster_object(key, name);
                previous.files.contains_key(&path) || previous.unread.contains(&path)
            })
            .filter_map(|key| key.namespace.as_deref())
            .collect();
        if let Err(d) = add_namespaces(objects, &frozen_in, name, format) {
            diagnostics.push(d);
        }
    }
    for (name, objects) in shadows.iter_mut() {
        if let Err(d) = add_namespaces(objects, &BTreeSet::new(), name, format) {
            diagnostics.push(d);
        }
    }
    per_cluster
        .into_iter()
        .map(|(name, mut objects)| {
            objects.sort_by(|a, b| a.key.cmp(&b.key));
            let mut shadow = shadows.remove(&name).unwrap_or_default();
            shadow.sort_by(|a, b| a.key.cmp(&b.key));
            ClusterPlan {
                paused: paused.contains(&name),
                frozen: frozen.remove(&name).unwrap_or_default(),
                name,
                objects,
                shadow,
            }
        })
        .collect()
}

/// A job's outcome: a freshly rendered file (with the overrides applied),
/// or the previous render's file, kept because the digest did not change.
enum Made {
    Rendered(Rendered, overrides::Applied),
    Kept(Rendered),
}

impl Made {
    fn into_file(self) -> Rendered {
        match self {
            Made::Rendered(file, _) | Made::Kept(file) => file,
        }
    }
}

/// The previous file of a live job of an application that keeps its files
/// (reuse is on and its render digest is the one recorded with them), if
/// the previous render has it.
fn kept(
    context: &RenderContext<'_>,
    app: &App,
    job: &Job<'_>,
    manifest_path: Option<&str>,
) -> Option<Rendered> {
    let path = match manifest_path {
        Some(path) => path.to_string(),
        None => Layout::new(context.options.format).object(&app.key, &job.cluster.name),
    };
    let full = layout::in_cluster(&job.cluster.name, &path);
    let bytes = match context.previous.files.get(&full) {
        Some(bytes) => Some(bytes.clone()),
        None if context.previous.unread.contains(&full) => None,
        None => return None,
    };
    Some(Rendered {
        key: app.key.clone(),
        path,
        bytes,
    })
}

/// Every namespace a cluster's objects (and the `frozen` objects it keeps
/// from the previous render) live in is created on it, unless the source
/// already sends that Namespace or Kubernetes provides it.
fn add_namespaces(
    objects: &mut Vec<Rendered>,
    frozen: &BTreeSet<&str>,
    cluster: &str,
    format: Format,
) -> Result<(), Diagnostic> {
    let present: BTreeSet<&str> = objects
        .iter()
        .filter(|o| o.key.kind == "Namespace" && o.key.api_version == "v1")
        .map(|o| o.key.name.as_str())
        .collect();
    let needed: BTreeSet<String> = objects
        .iter()
        .filter_map(|o| o.key.namespace.as_deref())
        .chain(frozen.iter().copied())
        .filter(|ns| !present.contains(ns) && !RESERVED_NAMESPACES.contains(ns))
        .map(str::to_string)
        .collect();
    for namespace in needed {
        let mut metadata = Map::new();
        metadata.insert("name".into(), Value::String(namespace.clone()));
        let mut value = Map::new();
        value.insert("apiVersion".into(), Value::String("v1".into()));
        value.insert("kind".into(), Value::String("Namespace".into()));
        value.insert("metadata".into(), Value::Object(metadata));
        let key = ObjectKey {
            api_version: "v1".into(),
            kind: "Namespace".into(),
            namespace: None,
            name: namespace,
        };
        let (path, bytes) = emit::object_file(
            &key,
            Value::Object(value),
            WorkOptions::default(),
            cluster,
            format,
        )?;
        objects.push(Rendered {
            key,
            path,
            bytes: Some(bytes),
        });
    }
    Ok(())
}

/// One application for one cluster, made and serialised at once, so a
/// render of hundreds of thousands of objects never holds them all as
/// JSON trees.
fn render_one(
    context: &RenderContext<'_>,
    app: &App,
    job: &Job<'_>,
    applicable: &[&OverridePolicyRef<'_>],
) -> Result<(Rendered, overrides::Applied), Diagnostic> {
    let materialiser = Materialiser {
        inputs: context.inputs,
        interpreter: context.interpreter,
    };
    let made = materialiser.object(&Target {
        app,
        template: job.template,
        cluster: job.cluster,
        replicas: job.replicas,
        overrides: applicable,
    })?;
    let key = &job.template.key;
    let (path, bytes) = emit::object_file(
        key,
        made.value,
        materialise::work_options(context.inputs, app),
        &job.cluster.name,
        context.options.format,
    )?;
    let file = Rendered {
        key: key.clone(),
        path,
        bytes: Some(bytes),
    };
    Ok((file, made.applied))
}

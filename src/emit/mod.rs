//! Emitting: a [`Plan`] into its files ([`render`]: every object made and
//! serialised, or kept), and the files into a [`Tree`] of bytes. Nothing
//! here touches the disk: `crate::store` puts the tree in place.
//!
//! The tree is built in memory, whole, before anything is written: one file
//! per object under `clusters/<cluster>/`, a `kustomization.yaml` listing
//! them (even when empty, so no generator ever loses a cluster), one binding
//! per application under `bindings/`, and a marker file. Paused clusters are
//! copied byte for byte from the previous render; held applications keep
//! their previous files; unchanged applications ([`crate::reuse`]) keep
//! theirs unread, listed in [`Built::kept`] instead of held in memory.

mod memo;
pub mod render;
pub mod work;
pub mod yaml;

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::binding::binding_name;
use crate::model::layout::{self, Format, Layout, Tree, MARKER_FILE};
use crate::model::meta::ObjectKey;
use crate::model::previous::PreviousRender;
use crate::model::record;
use crate::plan::{App, ClusterPlan, Plan, WorkOptions};
use rayon::prelude::*;
use render::{File, Rendered};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

/// A built output: the files with their bytes, and the files the render
/// keeps from the previous render without having read them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Built {
    pub tree: Tree,
    pub kept: BTreeSet<String>,
}

/// Build the whole output tree for `plan` from its `rendered` files, whose
/// bytes move into the tree (a fleet's worth of bytes is held once).
pub fn build_tree(
    plan: &Plan,
    rendered: Rendered,
    previous: &PreviousRender,
    format: Format,
    tools: &BTreeMap<String, String>,
) -> Result<Built, Diagnostics> {
    let Rendered { clusters, digests } = rendered;
    let results: Vec<Result<Files, Diagnostic>> = plan
        .clusters
        .par_iter()
        .zip(clusters)
        .map(|(cluster, files)| cluster_files(cluster, files.objects, previous, format))
        .collect();
    let mut tree = Tree::new();
    let mut kept = BTreeSet::new();
    let mut diagnostics = Diagnostics::default();
    for result in results {
        match result {
            Ok(files) => {
                for (path, bytes) in files {
                    match bytes {
                        Some(bytes) => {
                            tree.insert(path, bytes);
                        }
                        None => {
                            kept.insert(path);
                        }
                    }
                }
            }
            Err(d) => diagnostics.push(d),
        }
    }
    for (app, digest) in plan.apps.iter().zip(digests) {
        match binding_file(app, digest) {
            Ok((path, bytes)) => {
                if tree.insert(path.clone(), bytes).is_some() {
                    diagnostics.push(
                        Diagnostic::error(
                            Code::PathCollision,
                            format!("two bindings would be written to `{path}`"),
                        )
                        .help(COLLISION_HELP),
                    );
                }
            }
            Err(d) => diagnostics.push(d),
        }
    }
    tree.insert(MARKER_FILE.to_string(), marker_bytes(format, tools));
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    Ok(Built { tree, kept })
}

/// A cluster directory's files by full path; `None` bytes: kept unread.
type Files = Vec<(String, Option<Vec<u8>>)>;

/// The marker: what wrote the render, in which format, and the version of
/// each tool that rendered a dry source (`"tools"`, only when one did).
fn marker_bytes(format: Format, tools: &BTreeMap<String, String>) -> Vec<u8> {
    let mut marker = json!({"generator": "garrison", "layout": 1, "format": format.name()});
    if !tools.is_empty() {
        marker["tools"] = json!(tools);
    }
    let mut bytes = serde_json::to_vec(&marker).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// What to do about G0601: file names carry kind, group, namespace and name,
/// so only objects that differ in nothing else meet.
const COLLISION_HELP: &str = "objects that differ only in API version are one object for the API server, and with `--format work` objects that differ only in API group get one Work name, as in Karmada: keep one of them, or rename one";

/// Serialising a JSON value cannot fail with the YAML writer as used here
/// (string keys, finite numbers); should a new version of it fail, the
/// render stops with G0602 instead of writing half a tree.
fn serialize(value: &Value, what: &str) -> Result<Vec<u8>, Diagnostic> {
    yaml::to_yaml(value).map(String::into_bytes).map_err(|e| {
        Diagnostic::error(Code::Emit, format!("cannot write {what} as YAML: {e}")).help(
            "this is a fault in garrison, not in the input: report it with the template named here",
        )
    })
}

fn cluster_files(
    cluster: &ClusterPlan,
    objects: Vec<File>,
    previous: &PreviousRender,
    format: Format,
) -> Result<Files, Diagnostic> {
    // A paused cluster's directory is the previous render's, byte for byte.
    if cluster.paused && previous.has_cluster(&cluster.name) {
        return Ok(previous
            .cluster_files(&cluster.name)
            .map(|(p, b)| (p.clone(), Some(b.clone())))
            .collect());
    }
    let mut files = object_files(objects, &cluster.name)?;
    // Held applications keep the files they had.
    let layout = Layout::new(format);
    for key in &cluster.frozen {
        let relative = layout.object(key, &cluster.name);
        if let Some(bytes) = previous
            .files
            .get(&layout::in_cluster(&cluster.name, &relative))
        {
            files.insert(relative, Some(bytes.clone()));
        }
    }
    let resources: Vec<Value> = files.keys().map(|p| Value::String(p.clone())).collect();
    let kustomization = json!({
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": resources,
    });
    let mut out: Files = files
        .into_iter()
        .map(|(p, b)| (layout::in_cluster(&cluster.name, &p), b))
        .collect();
    out.push((
        layout::kustomization(&cluster.name),
        Some(serialize(&kustomization, "kustomization.yaml")?),
    ));
    Ok(out)
}

/// The files of `objects` in one cluster directory, by relative path.
fn object_files(
    objects: Vec<File>,
    cluster: &str,
) -> Result<BTreeMap<String, Option<Vec<u8>>>, Diagnostic> {
    let mut files = BTreeMap::new();
    for object in objects {
        if files.contains_key(&object.path) {
            return Err(Diagnostic::error(
                Code::PathCollision,
                format!(
                    "two objects for cluster `{cluster}` would be written to `{}`",
                    object.path
                ),
            )
            .help(COLLISION_HELP));
        }
        files.insert(object.path, object.bytes);
    }
    Ok(files)
}

/// One rendered object as the file that holds it in `cluster`'s directory:
/// its relative path and bytes (the object itself, or its Karmada `Work`).
pub fn object_file(
    key: &ObjectKey,
    value: Value,
    work_options: WorkOptions,
    cluster: &str,
    format: Format,
) -> Result<(String, Vec<u8>), Diagnostic> {
    let value = match format {
        Format::Manifests => value,
        Format::Work => {
            let conflict = conflict_resolution(&value, work_options.overwrite);
            let binding = binding_name(&key.name, &key.kind);
            let mut work = work::wrap(key, value, cluster, &binding, conflict);
            if let Some(spec) = work.get_mut("spec").and_then(Value::as_object_mut) {
                spec.insert(
                    "preserveResourcesOnDeletion".into(),
                    Value::Bool(work_options.preserve_on_deletion),
                );
            }
            work
        }
    };
    let bytes = serialize(&value, &format!("`{key}`"))?;
    Ok((Layout::new(format).object(key, cluster), bytes))
}

/// The file of the Namespace `name` created on `cluster`.
fn namespace_file(name: &str, cluster: &str, format: Format) -> Result<File, Diagnostic> {
    let key = ObjectKey {
        api_version: "v1".into(),
        kind: "Namespace".into(),
        namespace: None,
        name: name.to_string(),
    };
    let value = json!({
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name},
    });
    let (path, bytes) = object_file(&key, value, WorkOptions::default(), cluster, format)?;
    Ok(File {
        key,
        path,
        bytes: Some(bytes),
    })
}

/// What held clusters would receive without their holds, as files under
/// `clusters/<cluster>/`: compared with the previous render it counts the
/// changes a hold keeps back.
pub fn shadow_tree(plan: &Plan, rendered: &Rendered) -> Tree {
    let mut tree = Tree::new();
    for (cluster, files) in plan.clusters.iter().zip(&rendered.clusters) {
        if let Ok(files) = object_files(files.shadow.clone(), &cluster.name) {
            tree.extend(
                files
                    .into_iter()
                    .filter_map(|(p, b)| b.map(|b| (layout::in_cluster(&cluster.name, &p), b))),
            );
        }
    }
    tree
}

/// The template's own conflict-resolution annotation, else the policy's
/// `conflictResolution`, else Karmada's default `abort`.
fn conflict_resolution(value: &Value, policy_overwrite: bool) -> &'static str {
    match value
        .pointer("/metadata/annotations/work.karmada.io~1conflict-resolution")
        .and_then(Value::as_str)
    {
        Some("overwrite") => "overwrite",
        Some("abort") => "abort",
        _ if policy_overwrite => "overwrite",
        _ => "abort",
    }
}

/// The binding an application's schedule is recorded in (and read back from).
fn binding_file(app: &App, digest: Option<String>) -> Result<(String, Vec<u8>), Diagnostic> {
    let value = record::encode(&app.key, &app.record(digest));
    let bytes = serialize(&value, &format!("the binding of `{}`", app.key))?;
    Ok((layout::binding(&app.key), bytes))
}

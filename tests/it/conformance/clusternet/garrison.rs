//! garrison's answer to a Clusternet case: the case written as a
//! repository, loaded, planned and rendered in the default (manifests)
//! format in-process, then read back from the rendered cluster
//! directories' files.

use super::generate::Case;
use garrison::emit;
use garrison::load::{cache::Cache, load_repository, LoadOptions};
use garrison::model::layout::Format;
use garrison::model::meta::ObjectKey;
use garrison::model::previous::PreviousRender;
use serde_json::{json, Map, Value};
use std::path::Path;

/// What garrison renders for `case`, or the diagnostics that refused it:
///
/// ```json
/// {"clusters": {"<cluster>": {"objects": [object, ...]}},
///  "bindings": {"<feed key>": {"divided": bool, "replicas": {"<cluster>": n}}}}
/// ```
///
/// `objects` are the files of the cluster's directory made from
/// templates (the Namespaces garrison creates for them are left out: the
/// oracle, like Clusternet, creates none); `bindings` are keyed as the
/// oracle keys a namespaced feed, `<apiVersion>/<kind>/<namespace>/<name>`.
pub fn answer(case: &Case, dir: &Path) -> Result<Value, String> {
    write_repository(case, dir)?;
    let (inputs, diagnostics) = load_repository(dir, &LoadOptions::default(), &Cache::disabled());
    if diagnostics.has_errors() {
        return Err(format!("{diagnostics:?}"));
    }
    let previous = PreviousRender::default();
    let planning = garrison::plan::Options {
        format: Format::Manifests,
        ..Default::default()
    };
    let plan =
        garrison::plan::plan_with(&inputs, &previous, &planning).map_err(|d| format!("{d:?}"))?;
    let options = emit::render::Options {
        format: Format::Manifests,
        reuse: false,
    };
    let rendered =
        emit::render::render(&inputs, &plan, &previous, options).map_err(|d| format!("{d:?}"))?;
    let mut clusters = Map::new();
    for (cluster, files) in plan.clusters.iter().zip(&rendered.clusters) {
        let delivered: Vec<&ObjectKey> = cluster
            .objects
            .iter()
            .map(|d| &plan.apps[d.app].key)
            .collect();
        let mut objects = Vec::new();
        for file in &files.objects {
            if !delivered.contains(&&file.key) {
                continue; // a Namespace garrison creates for the objects
            }
            let bytes = file.bytes.as_deref().unwrap_or_default();
            let text = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
            let object: Value = serde_saphyr::from_str(text).map_err(|e| e.to_string())?;
            objects.push(object);
        }
        clusters.insert(cluster.name.clone(), json!({"objects": objects}));
    }
    let mut bindings = Map::new();
    for app in plan.apps.iter().filter(|a| a.clusternet()) {
        let key = &app.key;
        let name = format!(
            "{}/{}/{}/{}",
            key.api_version,
            key.kind,
            key.namespace.as_deref().unwrap_or_default(),
            key.name
        );
        let replicas: Map<String, Value> = app
            .binding
            .clusters
            .iter()
            .map(|a| (a.cluster.clone(), json!(a.replicas)))
            .collect();
        bindings.insert(
            name,
            json!({"divided": app.binding.revise, "replicas": replicas}),
        );
    }
    Ok(json!({"clusters": clusters, "bindings": bindings}))
}

/// Every object of the case in one file per kind of input.
fn write_repository(case: &Case, dir: &Path) -> Result<(), String> {
    let groups = [
        ("clusters.yaml", &case.clusters),
        ("subscriptions.yaml", &case.subscriptions),
        ("localizations.yaml", &case.localizations),
        ("globalizations.yaml", &case.globalizations),
        ("templates.yaml", &case.templates),
    ];
    for (name, objects) in groups {
        if objects.is_empty() {
            continue;
        }
        let text: Vec<String> = objects.iter().map(Value::to_string).collect();
        std::fs::write(dir.join(name), text.join("\n---\n")).map_err(|e| e.to_string())?;
    }
    Ok(())
}

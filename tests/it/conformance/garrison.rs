//! garrison's answer to a case, in the oracle's output format: the case
//! written as a repository, loaded, planned and rendered in `--format work`
//! in-process, then read back from the rendered Work files.

use super::generate::Case;
use garrison::emit;
use garrison::load::{cache::Cache, load_repository, previous, LoadOptions};
use garrison::model::layout::{Format, Tree};
use garrison::model::previous::PreviousRender;
use garrison::plan::{Plan, Source};
use garrison::store::directory;
use serde_json::{json, Value};
use std::path::Path;

/// What garrison computes for `case`, or the diagnostics that refused it.
pub fn answer(case: &Case, dir: &Path) -> Result<Value, String> {
    let (plan, rendered) = render(case, dir, &PreviousRender::default())?;
    results(case, &plan, &rendered)
}

/// garrison's answers to `first`, rendered with no previous render into an
/// output directory (`dir/out`), and to `then`, rendered with that
/// directory as its previous render, as `garrison render` does twice on
/// the same output: the second render's scheduler remembers the first's
/// bindings (SPEC §2). `Err` when either render is refused, with the phase.
pub fn answers_in_turn(first: &Case, then: &Case, dir: &Path) -> Result<(Value, Value), String> {
    let (repo_a, repo_b, out) = (dir.join("a"), dir.join("b"), dir.join("out"));
    for repo in [&repo_a, &repo_b] {
        std::fs::create_dir_all(repo).map_err(|e| e.to_string())?;
    }
    let none = PreviousRender::default();
    let (plan, rendered) = render(first, &repo_a, &none).map_err(|e| format!("phase A: {e}"))?;
    let answer_a = results(first, &plan, &rendered)?;
    let built = emit::build_tree(&plan, rendered, &none, Format::Work, &Default::default())
        .map_err(|d| format!("phase A: {d:?}"))?;
    directory::write_tree(&out, &built.tree, &Tree::new()).map_err(|e| e.to_string())?;

    let stored = directory::read_tree(&out).map_err(|e| e.to_string())?;
    let previous = previous::from_tree(stored);
    let (plan, rendered) = render(then, &repo_b, &previous).map_err(|e| format!("phase B: {e}"))?;
    Ok((answer_a, results(then, &plan, &rendered)?))
}

/// `case` written as a repository in `dir`, loaded, planned against
/// `previous` and rendered in the Work format.
fn render(
    case: &Case,
    dir: &Path,
    previous: &PreviousRender,
) -> Result<(Plan, emit::render::Rendered), String> {
    write_repository(case, dir)?;
    let (inputs, diagnostics) = load_repository(dir, &LoadOptions::default(), &Cache::disabled());
    let refused = |d: &garrison::diag::Diagnostics| {
        garrison::diag::render(d, &inputs.sources, garrison::diag::Style::Concise)
    };
    if diagnostics.has_errors() {
        return Err(refused(&diagnostics));
    }
    let planning = garrison::plan::Options {
        format: Format::Work,
        ..Default::default()
    };
    let plan = garrison::plan::plan_with(&inputs, previous, &planning).map_err(|d| refused(&d))?;
    let options = emit::render::Options {
        format: Format::Work,
        reuse: false,
    };
    let rendered =
        emit::render::render(&inputs, &plan, previous, options).map_err(|d| refused(&d))?;
    Ok((plan, rendered))
}

/// The rendered case in the oracle's output format.
fn results(case: &Case, plan: &Plan, rendered: &emit::render::Rendered) -> Result<Value, String> {
    let mut results = Vec::new();
    for template in &case.templates {
        results.push(result(template, plan, rendered)?);
    }
    Ok(json!({"rejected": [], "results": results}))
}

/// Every object of the case in a file of its own, at
/// `<kind>/<namespace>/<name>.yaml` (`<kind>/<name>.yaml` when it has no
/// namespace): a refusal then names the object the way the oracle's
/// `rejected` entries do, so "both refuse" is checked object by object
/// ([`super::compare::karmada_fails_too`]).
fn write_repository(case: &Case, dir: &Path) -> Result<(), String> {
    let groups = [
        &case.clusters,
        &case.policies,
        &case.overrides,
        &case.customizations,
        &case.templates,
    ];
    for object in groups.into_iter().flatten() {
        let text = |pointer: &str| object.pointer(pointer).and_then(Value::as_str);
        let kind = text("/kind").unwrap_or("Unknown");
        let name = text("/metadata/name").unwrap_or("unnamed");
        let path = match text("/metadata/namespace") {
            Some(namespace) => dir.join(kind).join(namespace).join(format!("{name}.yaml")),
            None => dir.join(kind).join(format!("{name}.yaml")),
        };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        // Two objects of one kind and name: the second goes next to the first.
        let path = if path.exists() {
            path.with_extension("again.yaml")
        } else {
            path
        };
        std::fs::write(&path, object.to_string()).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The result of one template, as the oracle shapes it.
fn result(
    template: &Value,
    plan: &Plan,
    rendered: &emit::render::Rendered,
) -> Result<Value, String> {
    let text = |p: &str| {
        template
            .pointer(p)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let reference = json!({
        "apiVersion": text("/apiVersion"),
        "kind": text("/kind"),
        "namespace": text("/metadata/namespace"),
        "name": text("/metadata/name"),
    });
    let found = plan.apps.iter().enumerate().find(|(_, app)| {
        Some(&app.key.api_version) == text("/apiVersion").as_ref()
            && Some(&app.key.kind) == text("/kind").as_ref()
            && app.key.namespace == text("/metadata/namespace")
            && Some(&app.key.name) == text("/metadata/name").as_ref()
    });
    let Some((index, app)) = found else {
        return Ok(
            json!({"template": reference, "policy": null, "skipped": null, "scheduleError": null, "clusters": [], "works": []}),
        );
    };
    let policy = match &app.source {
        Source::Policy { policy, .. } => json!({
            "kind": if policy.namespace.is_some() { "PropagationPolicy" } else { "ClusterPropagationPolicy" },
            "namespace": policy.namespace,
            "name": policy.name,
        }),
        _ => Value::Null,
    };
    let clusters: Vec<Value> = app
        .binding
        .clusters
        .iter()
        .map(|a| json!({"name": a.cluster, "replicas": a.replicas}))
        .collect();
    let mut works = Vec::new();
    for (cluster, files) in plan.clusters.iter().zip(&rendered.clusters) {
        if !cluster.objects.iter().any(|d| d.app == index) {
            continue;
        }
        let Some(file) = files.objects.iter().find(|f| f.key == app.key) else {
            continue;
        };
        let bytes = file.bytes.as_deref().unwrap_or_default();
        let text = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
        let work: Value = serde_saphyr::from_str(text).map_err(|e| e.to_string())?;
        works.push(json!({
            "cluster": cluster.name,
            "namespace": work.pointer("/metadata/namespace"),
            "name": work.pointer("/metadata/name"),
            "manifest": work.pointer("/spec/workload/manifests/0"),
            "suspendDispatching": work.pointer("/spec/suspendDispatching").and_then(Value::as_bool).unwrap_or(false),
            "preserveResourcesOnDeletion": work.pointer("/spec/preserveResourcesOnDeletion").and_then(Value::as_bool).unwrap_or(false),
        }));
    }
    let schedule_error = match &app.binding.decision {
        garrison::schedule::Decision::Unschedulable(why) => json!(why.to_string()),
        _ => Value::Null,
    };
    Ok(json!({
        "template": reference,
        "policy": policy,
        "skipped": null,
        "scheduleError": schedule_error,
        "clusters": clusters,
        "works": works,
    }))
}

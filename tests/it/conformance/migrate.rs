//! `garrison import` and `garrison verify` proved on control planes that
//! Karmada's own code built: the oracle answers a case and exports its
//! in-memory API server as kubectl would (`conformance/karmada/export.go`:
//! the Clusters, policies and templates as stored after admission, the
//! bindings and Works as Karmada's controllers wrote them). The export is
//! imported into a repository, and verify must find that the repository
//! renders exactly what the Works deliver; with one Work changed, it must
//! name exactly that difference.

use super::generate::{self, Case};
use super::oracle::Oracle;
use crate::support::{run, stderr, stdout, temp, write};
use serde_json::Value;
use std::path::Path;

/// How many generated cases are exported, imported and verified.
const SEEDS: u64 = 60;

/// What verify reports on the dump of `case`, as `cluster kind object
/// (reason)` lines of its unexplained differences; `None` when Karmada
/// cannot deliver the case (a refused object, a Work it fails to write),
/// where there is nothing to migrate.
fn unexplained(
    name: &str,
    oracle: &mut Oracle,
    (before, case): (Option<&Case>, &Case),
    dir: &Path,
) -> Option<Result<Vec<String>, String>> {
    // A case that continues another is that control plane a while later.
    if let Some(before) = before {
        oracle.answer(before);
    }
    let (export, works) = dump(oracle, case)?;
    let found = verified(&export, &works, dir);
    // GARRISON_CONFORMANCE_DUMP keeps the dumps that verify finds
    // differences in, to import and verify by hand.
    if let (Some(out), false) = (
        std::env::var_os("GARRISON_CONFORMANCE_DUMP"),
        found.as_ref().is_ok_and(Vec::is_empty),
    ) {
        let stem: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let out = Path::new(&out);
        write(
            &out.join(format!("{stem}.export.json")),
            &export.to_string(),
        );
        write(&out.join(format!("{stem}.works.json")), &works.to_string());
    }
    Some(found)
}

/// The oracle's export of `case`: the control plane, and its Works.
fn dump(oracle: &mut Oracle, case: &Case) -> Option<(Value, Value)> {
    let answer = oracle.answer_exported(case);
    let fails = answer["error"].is_string()
        || answer["rejected"].as_array().is_some_and(|r| !r.is_empty())
        || answer["results"].as_array().into_iter().flatten().any(|r| {
            // A template Karmada cannot deliver whole: garrison refuses
            // such a render (the case-file comparison checks that).
            r["syncError"].is_string()
                || r["dependenciesError"].is_string()
                || r["skipped"]
                    .as_str()
                    .is_some_and(|s| s.starts_with("the resource detector does not bind it"))
        });
    if fails {
        return None;
    }
    let plane = &answer["controlPlane"];
    Some((plane["export"].clone(), plane["works"].clone()))
}

/// `export` imported into `dir/fleet`, then verified against `works`.
fn verified(export: &Value, works: &Value, dir: &Path) -> Result<Vec<String>, String> {
    let (export_path, works_path, fleet) = (
        dir.join("export.json"),
        dir.join("works.json"),
        dir.join("fleet"),
    );
    write(&export_path, &export.to_string());
    write(&works_path, &works.to_string());
    let path = |p: &Path| p.to_string_lossy().into_owned();
    let output = run(&["import", "--repo", &path(&fleet), &path(&export_path)]);
    if output.status.code() != Some(0) {
        return Err(format!("import refused the export: {}", stderr(&output)));
    }
    let output = run(&[
        "--json",
        "verify",
        "--repo",
        &path(&fleet),
        "--works",
        &path(&works_path),
        "--no-cache",
    ]);
    let verdict: Value = serde_json::from_str(&stdout(&output))
        .map_err(|e| format!("verify printed no verdict ({e}): {}", stderr(&output)))?;
    if !matches!(output.status.code(), Some(0 | 1)) {
        return Err(format!("verify failed: {}", stderr(&output)));
    }
    let mut found = Vec::new();
    for cluster in verdict["clusters"].as_array().into_iter().flatten() {
        for d in cluster["differences"].as_array().into_iter().flatten() {
            let object = d["object"].as_str().unwrap_or_default();
            // The oracle runs no namespace sync controller, Karmada's
            // writer of the Works of the control plane's Namespaces (its
            // API server holds none: a case gives templates, not their
            // namespaces), where garrison renders a template's Namespace
            // for each cluster it goes to.
            let namespace = d["kind"] == "only-garrison" && object.starts_with("Namespace/");
            // A suspended Work (a policy's `suspension`) is named, not
            // explained: what its member runs is not in the export. The
            // oracle's members never had anything, so what is checked here
            // is that verify says so.
            let suspended = d["kind"] == "only-karmada"
                && d["reason"]
                    .as_str()
                    .is_some_and(|r| r.starts_with("Karmada suspends this Work"));
            if d["explained"] != true && !namespace && !suspended {
                found.push(format!(
                    "{} {} {} ({})\n{}",
                    cluster["name"].as_str().unwrap_or_default(),
                    d["kind"].as_str().unwrap_or_default(),
                    object,
                    d["reason"].as_str().unwrap_or("no reason"),
                    d["diff"].as_str().unwrap_or_default()
                ));
            }
        }
    }
    Ok(found)
}

/// Generated cases and the hand-written case files: each control plane
/// Karmada built, imported, renders what its Works deliver.
#[test]
fn imported_control_planes_render_what_karmadas_works_deliver() {
    let mut oracle = Oracle::start();
    let mut cases: Vec<(String, Option<Case>, Case)> = (0..SEEDS)
        .map(|seed| (format!("seed {seed}"), None, generate::case(seed)))
        .collect();
    for path in super::case_file_paths(&super::case_files()) {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let value: Value = serde_json::from_str(&text).unwrap_or_default();
        let name = path.display().to_string();
        // A case in two turns is a previous schedule and the next: its
        // dump is the control plane after the second.
        if value.get("then").is_some() {
            let parse = |v: &Value| serde_json::from_value::<Case>(v.clone());
            if let (Ok(first), Ok(then)) = (parse(&value["first"]), parse(&value["then"])) {
                cases.push((name, Some(first), then.continuing()));
            }
        } else if let Ok(case) = serde_json::from_value::<Case>(value) {
            cases.push((name, None, case));
        }
    }
    let (mut verified, mut found) = (0, Vec::new());
    for (name, before, case) in &cases {
        let dir = temp();
        match unexplained(name, &mut oracle, (before.as_ref(), case), dir.path()) {
            None => {}
            Some(Ok(differences)) => {
                verified += 1;
                found.extend(differences.into_iter().map(|d| format!("{name}: {d}")));
            }
            Some(Err(why)) => found.push(format!("{name}: {why}")),
        }
    }
    oracle.finish();
    eprintln!(
        "migrate: {verified} of {} control planes verified",
        cases.len()
    );
    assert!(
        verified >= cases.len() / 2,
        "only {verified} of {} cases could be exported",
        cases.len()
    );
    assert!(
        found.is_empty(),
        "{} unexplained differences:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// One Work of a dump changed (a label added to its manifest, as if
/// someone had edited it on the control plane): verify names that
/// cluster and object, and nothing else.
#[test]
fn a_changed_work_is_exactly_the_difference_verify_names() {
    let mut oracle = Oracle::start();
    let (export, mut works) = (0..SEEDS)
        .find_map(|seed| {
            let (export, works) = dump(&mut oracle, &generate::case(seed))?;
            works["items"]
                .as_array()
                .is_some_and(|w| !w.is_empty())
                .then_some((export, works))
        })
        .unwrap_or_else(|| panic!("no generated case has a Work"));
    oracle.finish();
    let work = &mut works["items"][0];
    let cluster = work["metadata"]["namespace"]
        .as_str()
        .and_then(|n| n.strip_prefix("karmada-es-"))
        .unwrap_or_default()
        .to_string();
    let manifest = &mut work["spec"]["workload"]["manifests"][0];
    let kind = manifest["kind"].as_str().unwrap_or_default().to_string();
    let name = manifest["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    manifest["metadata"]["labels"]["edited-by"] = Value::from("hand");
    let dir = temp();
    let found = verified(&export, &works, dir.path()).unwrap_or_else(|why| panic!("{why}"));
    assert_eq!(found.len(), 1, "{found:#?}");
    let first = found[0].lines().next().unwrap_or_default();
    assert!(
        first.starts_with(&format!("{cluster} differs {kind}"))
            && first.contains(&format!("/{name} ")),
        "{first}"
    );
    assert!(
        found[0].contains("+++ garrison/") && found[0].contains("-    edited-by: hand"),
        "{}",
        found[0]
    );
}

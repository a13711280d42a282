//! `garrison manifests CLUSTER`: one cluster's rendered objects on stdout,
//! as one YAML stream, for a tool that takes manifests from a command's
//! output rather than from a directory (an Argo CD config management
//! plugin, `docs/delivery.md`). They are the files `render` would write
//! in `clusters/CLUSTER/`, every object rendered anew as `check` renders
//! them, in their files' order; nothing is written.

use super::pipeline::{self, Purpose, Request};
use super::printer::Printer;
use super::settings::{Guards, ManifestsSettings};
use super::{ExitStatus, Stop};
use crate::model::layout::{self, Tree};
use crate::plan::Scope;
use crate::store;
use std::collections::BTreeMap;

/// How many of the fleet's clusters an unknown cluster's error lists.
const CLUSTERS_LISTED: usize = 10;

pub fn run(settings: &ManifestsSettings, printer: &Printer) -> Result<ExitStatus, Stop> {
    let old = match &settings.stored {
        Some(s) => store::read(s, &settings.repo.root)?,
        None => Tree::new(),
    };
    let outcome = pipeline::run(
        Request {
            repo: &settings.repo,
            skip: settings
                .stored
                .as_ref()
                .map(|s| s.skip())
                .unwrap_or_default(),
            previous: old.into(),
            format: settings.format,
            scope: Scope::All,
            purpose: Purpose::Compare {
                guards: Guards::WARN,
            },
        },
        printer,
    )?;
    let names = outcome.plan.clusters.iter().map(|c| c.name.as_str());
    let wanted = settings.cluster.as_str();
    let Some(cluster) = outcome.plan.clusters.iter().find(|c| c.name == wanted) else {
        printer.error(unknown_cluster(wanted, names.collect()));
        return Ok(ExitStatus::Error);
    };
    // A first render gives a paused cluster nothing (SPEC §5): printed to a
    // tool that applies it, that nothing would delete what the cluster runs.
    if cluster.paused && settings.stored.is_none() {
        printer.error(format_args!(
            "cluster `{wanted}` is paused: it keeps what the stored render gave it, and no stored render is named; name it with --branch or --out"
        ));
        return Ok(ExitStatus::Error);
    }
    let files = cluster_files(&outcome.tree, wanted);
    if printer.json() {
        let value = serde_json::json!({ "cluster": wanted, "files": files });
        printer.out_json(&value)?;
    } else {
        printer.out(stream(&files));
    }
    Ok(ExitStatus::Success)
}

/// The object files of `cluster`'s directory in `tree`, by their path in
/// it: every file but the kustomization that lists them.
fn cluster_files(tree: &Tree, cluster: &str) -> BTreeMap<String, String> {
    let dir = layout::cluster_dir(cluster);
    tree.range(dir.clone()..)
        .take_while(|(path, _)| path.starts_with(&dir))
        .filter_map(|(path, bytes)| {
            let relative = path.strip_prefix(&dir)?;
            (relative != layout::KUSTOMIZATION).then(|| {
                (
                    relative.to_string(),
                    String::from_utf8_lossy(bytes).into_owned(),
                )
            })
        })
        .collect()
}

/// `files` as one YAML stream: each document after a `---` line.
fn stream(files: &BTreeMap<String, String>) -> String {
    let mut text = String::new();
    for document in files.values() {
        text.push_str("---\n");
        text.push_str(document);
        if !document.ends_with('\n') {
            text.push('\n');
        }
    }
    text
}

/// The error for a cluster the fleet does not have, with the name most
/// likely meant, or the fleet's clusters.
fn unknown_cluster(wanted: &str, names: Vec<&str>) -> String {
    if let Some(near) = crate::diag::closest(wanted, names.iter().copied()) {
        return format!("the fleet has no cluster `{wanted}`; did you mean `{near}`?");
    }
    if names.is_empty() {
        return format!("the fleet has no cluster `{wanted}`; it has no cluster at all");
    }
    let mut listed: Vec<String> = names
        .iter()
        .take(CLUSTERS_LISTED)
        .map(|n| format!("`{n}`"))
        .collect();
    if names.len() > CLUSTERS_LISTED {
        listed.push(format!("and {} more", names.len() - CLUSTERS_LISTED));
    }
    format!(
        "the fleet has no cluster `{wanted}`; its clusters are {}",
        listed.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::model::layout::text_tree as tree;

    #[test]
    fn a_clusters_files_are_its_objects_without_the_kustomization() {
        let tree = tree(&[
            ("bindings/shop/deployment.apps_web.yaml", "b"),
            ("clusters/eu-1/kustomization.yaml", "k"),
            (
                "clusters/eu-1/shop/deployment.apps_web.yaml",
                "kind: Deployment\n",
            ),
            (
                "clusters/eu-1/_cluster/namespace_shop.yaml",
                "kind: Namespace",
            ),
            ("clusters/eu-10/shop/deployment.apps_web.yaml", "other"),
        ]);
        let files = cluster_files(&tree, "eu-1");
        assert_eq!(
            files.keys().map(String::as_str).collect::<Vec<_>>(),
            [
                "_cluster/namespace_shop.yaml",
                "shop/deployment.apps_web.yaml"
            ]
        );
        assert_eq!(
            stream(&files),
            "---\nkind: Namespace\n---\nkind: Deployment\n"
        );
        assert_eq!(stream(&cluster_files(&tree, "us-1")), "");
    }

    #[test]
    fn an_unknown_cluster_names_the_one_meant_or_the_fleet() {
        assert_eq!(
            unknown_cluster("eu-centrl-1", vec!["eu-central-1", "us-east-1"]),
            "the fleet has no cluster `eu-centrl-1`; did you mean `eu-central-1`?"
        );
        assert_eq!(
            unknown_cluster("mars", vec!["eu-1", "us-1"]),
            "the fleet has no cluster `mars`; its clusters are `eu-1`, `us-1`"
        );
        let many: Vec<String> = (0..12).map(|i| format!("c{i:02}")).collect();
        let text = unknown_cluster("mars", many.iter().map(String::as_str).collect());
        assert!(text.ends_with("`c09`, and 2 more"), "{text}");
        assert_eq!(
            unknown_cluster("eu-1", vec![]),
            "the fleet has no cluster `eu-1`; it has no cluster at all"
        );
    }
}

//! Real-world fidelity (SPEC §10: a false error on a valid object is as bad
//! as a missed one). `testdata/corpus/` holds verbatim manifests of public
//! projects (see its README): built-in kinds, CustomResourceDefinitions and
//! custom resources of them, and Karmada policies. Each file is loaded as
//! garrison loads a repository's files (classification, then checking
//! against the Kubernetes API and every CRD of the corpus) and must yield
//! no error at all. Files are checked one by one: the corpus repeats
//! objects across alternative files, which one repository could not.

use garrison::diag::{render, Diagnostics, Sources, Style};
use garrison::load::cache::Cache;
use garrison::load::yaml::{parse_stream, Limits};
use garrison::load::{classify, templates};
use garrison::model::inputs::{Document, Inputs};
use garrison::node::Node;
use rayon::prelude::*;
use std::path::{Path, PathBuf};

pub(crate) fn corpus() -> PathBuf {
    crate::support::testdata().join("corpus")
}

/// Every manifest file under `dir`, sorted.
pub(crate) fn files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path
                .extension()
                .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
            {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// A manifest's text, without a byte-order mark.
pub(crate) fn read(path: &Path) -> String {
    match std::fs::read_to_string(path) {
        Ok(text) => text.strip_prefix('\u{feff}').unwrap_or(&text).to_string(),
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

pub(crate) fn parse(path: &Path, text: &str) -> Vec<Node> {
    match parse_stream(text, &Limits::default()) {
        Ok(nodes) => nodes,
        Err(e) => panic!("{} does not parse: {e:?}", path.display()),
    }
}

/// The namespace a project's manifests are applied to (EXPECTED.md §1).
fn default_namespace(relative: &str) -> &'static str {
    if relative.starts_with("argo-cd/") {
        "argocd"
    } else {
        "default"
    }
}

/// What loading one file reports, and how many templates it holds.
fn load_one(
    catalog: &garrison::schema::Catalog,
    root: &Path,
    path: &Path,
) -> (Diagnostics, Sources, usize) {
    let relative = path
        .strip_prefix(root)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    let text = read(path);
    let mut sources = Sources::default();
    let file = sources.add(relative.clone(), text.clone());
    let nodes = parse(path, &text);
    let namespace = default_namespace(&relative);
    let mut diagnostics = Diagnostics::default();
    let (mut inputs, documents): (Inputs, Vec<Document>) = classify::classify_documents(
        nodes.into_iter().map(|n| (file, n)).collect(),
        &sources,
        Some(namespace),
        &mut diagnostics,
    );
    inputs.sources = sources.clone();
    inputs.config.default_namespace = Some(namespace.to_string());
    templates::check_with(
        catalog,
        &mut inputs,
        documents,
        &Cache::disabled(),
        &mut diagnostics,
    );
    let count = inputs.templates.len();
    (diagnostics, sources, count)
}

#[test]
fn real_public_manifests_validate_without_a_false_error() {
    let root = corpus();
    let all = files(&root);
    assert!(all.len() > 600, "the corpus has {} files", all.len());

    // The catalog: Kubernetes' API and every CRD of the corpus.
    let texts: Vec<(PathBuf, String)> = all.iter().map(|p| (p.clone(), read(p))).collect();
    let mut crd_sources = Sources::default();
    let mut crd_nodes = Vec::new();
    for (path, text) in &texts {
        if !text.contains("kind: CustomResourceDefinition") {
            continue;
        }
        let file = crd_sources.add(path.display().to_string(), text.clone());
        crd_nodes.extend(parse(path, text).into_iter().map(|n| (file, n)));
    }
    let mut crd_diagnostics = Diagnostics::default();
    let (crd_inputs, crd_documents) =
        classify::classify_documents(crd_nodes, &crd_sources, None, &mut crd_diagnostics);
    let catalog = templates::catalog(
        &crd_inputs.config,
        &crd_inputs.templates,
        &crd_documents,
        &mut crd_diagnostics,
    );
    assert_eq!(
        render(&crd_diagnostics, &crd_sources, Style::Concise),
        "",
        "the corpus' CRDs"
    );

    let results: Vec<(String, usize, usize)> = all
        .par_iter()
        .map(|path| {
            let (diagnostics, sources, count) = load_one(&catalog, &root, path);
            let errors = Diagnostics(
                diagnostics
                    .0
                    .iter()
                    .filter(|d| d.is_error())
                    .cloned()
                    .collect(),
            );
            let unschematic = diagnostics
                .0
                .iter()
                .filter(|d| d.code == garrison::diag::Code::NoSchema)
                .count();
            (
                render(&errors, &sources, Style::Concise),
                count,
                unschematic,
            )
        })
        .collect();
    let errors: String = results.iter().map(|(e, _, _)| e.as_str()).collect();
    assert_eq!(errors, "", "false errors on real manifests");
    let templates: usize = results.iter().map(|(_, n, _)| n).sum();
    assert!(templates > 900, "only {templates} templates were checked");
    // Only the custom resources whose CRD is deliberately absent have no schema.
    let unschematic: Vec<&PathBuf> = all
        .iter()
        .zip(&results)
        .filter(|(_, (_, _, n))| *n > 0)
        .map(|(path, _)| path)
        .collect();
    assert!(
        !unschematic.is_empty()
            && unschematic
                .iter()
                .all(|p| p.starts_with(root.join("_no-crd"))),
        "{unschematic:?}"
    );
}

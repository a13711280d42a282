//! Every fixture in `testdata/` rendered by the real binary: the whole tree
//! snapshotted, every cluster directory built by `kubectl kustomize`, and
//! the invariants checked (re-render is byte-identical and a no-op; input
//! order does not matter). A directory of `testdata/` that is neither a
//! case (`repo/` and a `README.md`) nor listed as read by another test
//! fails the test instead of being passed over.

use crate::support::{
    copy_dir, kustomize, read_tree, render_to, stderr, stdout, testdata, tree_text,
};
use garrison::load::yaml::parse_stream;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

fn case_args(case: &Path) -> Vec<String> {
    std::fs::read_to_string(case.join("args"))
        .map(|text| {
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

fn render(repo: &Path, out: &Path, extra: &[String]) -> std::process::Output {
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    render_to(repo, out, &extra)
}

/// Objects parsed from YAML text, by identity.
fn objects(text: &str) -> BTreeMap<String, Value> {
    let docs = match parse_stream(text, &Default::default()) {
        Ok(docs) => docs,
        Err(e) => panic!("unparsable YAML: {e:?}\n{text}"),
    };
    docs.iter()
        .map(|d| d.to_value())
        .map(|v| {
            let id = format!(
                "{}/{}/{}/{}",
                v["apiVersion"].as_str().unwrap_or(""),
                v["kind"].as_str().unwrap_or(""),
                v.pointer("/metadata/namespace")
                    .and_then(Value::as_str)
                    .unwrap_or(""),
                v.pointer("/metadata/name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
            );
            (id, v)
        })
        .collect()
}

/// Every cluster directory builds with kubectl kustomize and yields exactly its files' objects.
fn check_with_kustomize(out: &Path) {
    let clusters = out.join("clusters");
    let Ok(entries) = std::fs::read_dir(&clusters) else {
        panic!("no clusters/ in {}", out.display())
    };
    for entry in entries.filter_map(Result::ok) {
        let dir = entry.path();
        let built = objects(&kustomize(&dir));
        let mut ours = BTreeMap::new();
        for (path, bytes) in read_tree(&dir) {
            if path == "kustomization.yaml" {
                continue;
            }
            ours.extend(objects(&String::from_utf8_lossy(&bytes)));
        }
        assert_eq!(
            built.keys().collect::<Vec<_>>(),
            ours.keys().collect::<Vec<_>>(),
            "kustomize build of {} does not yield exactly its files' objects",
            dir.display()
        );
        for (id, value) in &ours {
            assert_eq!(
                Some(value),
                built.get(id),
                "{id} reads back differently through kubectl in {}",
                dir.display()
            );
        }
    }
}

/// The same repository with its plain input files renamed so the walk
/// meets them in reverse order; garrison.yaml and the files of dry sources
/// (whose places the tools read) are copied where they are.
fn shuffled_copy(repo: &Path, to: &Path) {
    let inputs: std::collections::BTreeSet<String> =
        garrison::load::walked_paths(repo).0.into_iter().collect();
    let tree = read_tree(repo);
    let count = tree.len();
    for (index, (path, bytes)) in tree.into_iter().enumerate() {
        let target = if inputs.contains(&path) {
            to.join(format!("{:04}-{}", count - index, path.replace('/', "__")))
        } else {
            to.join(&path)
        };
        if let Some(parent) = target.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        if let Err(e) = std::fs::write(&target, bytes) {
            panic!("cannot write {}: {e}", target.display());
        }
    }
}

/// The tree with the marker's kustomize version (kubectl's, which differs
/// between machines) replaced; `tests/it/dry.rs` checks what it records.
fn machine_neutral(tree: &BTreeMap<String, Vec<u8>>) -> BTreeMap<String, Vec<u8>> {
    let mut tree = tree.clone();
    if let Some(bytes) = tree.get_mut(".garrison.json") {
        if let Ok(mut marker) = serde_json::from_slice::<Value>(bytes) {
            if let Some(kustomize) = marker.pointer_mut("/tools/kustomize") {
                *kustomize = "[the machine's kubectl]".into();
                *bytes = format!("{marker}\n").into_bytes();
            }
        }
    }
    tree
}

/// The directories of `testdata/` that are no render case, each read by
/// another test: `bad_input.rs`, `corpus.rs`, and the classification unit
/// tests of `src/load/classify.rs`.
const NOT_RENDER_CASES: &[&str] = &[
    "apiserver",
    "bad-input",
    "clusternet-api",
    "corpus",
    "karmada-api",
    "migrate",
];

#[test]
fn fixtures_render_as_snapshotted() {
    let cases = crate::support::cases(&testdata(), NOT_RENDER_CASES);
    insta::glob!("../../testdata", "*/README.md", |readme| {
        let case = readme.parent().unwrap_or(Path::new("."));
        let name = case.file_name().unwrap_or_default().to_string_lossy();
        if !cases.iter().any(|c| *c == name) {
            // The README of a directory another test reads (NOT_RENDER_CASES).
            return;
        }
        let repo = case.join("repo");
        let args = case_args(case);
        let dir = crate::support::temp();
        let out = dir.path().join("out");
        if case.join("previous").is_dir() {
            copy_dir(&case.join("previous"), &out);
        }
        let output = render(&repo, &out, &args);
        assert!(
            output.status.success(),
            "render of {} failed:\n{}",
            case.display(),
            stderr(&output)
        );
        let tree = read_tree(&out);
        insta::assert_snapshot!(tree_text(&machine_neutral(&tree)));

        check_with_kustomize(&out);

        // A second render of the same input changes nothing.
        let again = render(&repo, &out, &args);
        assert!(again.status.success(), "{}", stderr(&again));
        assert!(
            stdout(&again).contains("no changes"),
            "re-render of {} reported changes:\n{}",
            case.display(),
            stdout(&again)
        );
        assert_eq!(
            read_tree(&out),
            tree,
            "re-render of {} changed bytes",
            case.display()
        );

        // File order does not matter.
        if !case.join("previous").is_dir() {
            let shuffled = dir.path().join("shuffled");
            let _ = std::fs::create_dir_all(&shuffled);
            shuffled_copy(&repo, &shuffled);
            let out2 = dir.path().join("out2");
            let output = render(&shuffled, &out2, &args);
            assert!(output.status.success(), "{}", stderr(&output));
            assert_eq!(
                read_tree(&out2),
                tree,
                "input order changed the output of {}",
                case.display()
            );
        }
    });
}

#[test]
fn a_fixture_directory_without_repo_or_readme_is_an_error() {
    let dir = crate::support::temp();
    let make = |path: &str| {
        let path = dir.path().join(path);
        let made = match (path.extension(), path.parent()) {
            (Some(_), Some(parent)) => std::fs::create_dir_all(parent)
                .and_then(|()| std::fs::write(&path, "about the case\n")),
            _ => std::fs::create_dir_all(&path),
        };
        if let Err(e) = made {
            panic!("cannot make {}: {e}", path.display());
        }
    };
    for path in [
        "good/repo",
        "good/README.md",
        "other",
        "bare",
        "notes/README.md",
        "untold/repo",
    ] {
        make(path);
    }
    let found = crate::support::check_cases(dir.path(), &["other"]);
    let fault = match found {
        Ok(cases) => panic!("accepted as cases: {cases:?}"),
        Err(fault) => fault.replace(&dir.path().display().to_string(), "[TMP]"),
    };
    insta::assert_snapshot!(fault, @"fixture directories under `[TMP]` that are not cases: `bare` has no repo/ and no README.md; `notes` has no repo/; `untold` has no README.md; every case needs `repo/` and a `README.md`");
    for path in ["bare", "notes", "untold"] {
        if let Err(e) = std::fs::remove_dir_all(dir.path().join(path)) {
            panic!("{e}");
        }
    }
    assert_eq!(
        crate::support::check_cases(dir.path(), &["other"]),
        Ok(vec!["good".to_string()])
    );
    assert_eq!(
        crate::support::check_cases(dir.path(), &["other", "gone"]),
        Err(format!(
            "fixture directories under `{}` that are not cases: `gone` is listed as read by another test, but is gone; every case needs `repo/` and a `README.md`",
            dir.path().display()
        ))
    );
}

//! The layering of `docs/architecture.md`, checked: a module of the crate
//! imports only modules of lower layers, so the import graph has no cycle.
//! Test code is left out (it may build inputs with whatever it needs).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Each top-level module and its layer, lowest first; the table of
/// `docs/architecture.md`.
const LAYERS: &[(&str, u8)] = &[
    ("node", 0),
    ("diag", 1),
    ("yaml", 1),
    ("schema", 2),
    ("model", 3),
    ("apiserver", 4),
    ("load", 5),
    ("schedule", 5),
    ("overrides", 5),
    ("pause", 5),
    ("fort", 6),
    ("interpret", 6),
    ("plan", 7),
    ("reuse", 8),
    ("prune", 8),
    ("vanish", 8),
    ("emit", 9),
    ("report", 10),
    ("cli", 11),
    ("store", 11),
    ("migrate", 11),
    ("commands", 12),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every Rust file of `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => panic!("cannot list {}: {e}", dir.display()),
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The file without its test code: a `tests.rs` file (or a `tests/`
/// directory) is all test code; otherwise everything from the first
/// `#[cfg(test)]` on.
fn production_code(path: &Path, text: &str) -> Option<String> {
    let relative = path.strip_prefix(src()).ok()?;
    let is_test = relative
        .components()
        .any(|c| c.as_os_str() == "tests" || c.as_os_str() == "tests.rs");
    if is_test {
        return None;
    }
    let code = text.split("#[cfg(test)]").next().unwrap_or(text);
    // Comments may name any module.
    Some(
        code.lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// The top-level modules `code` names as `crate::<module>`.
fn imports(code: &str) -> Vec<String> {
    code.match_indices("crate::")
        .map(|(at, _)| {
            code[at + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

#[test]
fn no_module_imports_one_above_it() {
    let layers: BTreeMap<&str, u8> = LAYERS.iter().copied().collect();
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    files.sort();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for path in &files {
        let Ok(relative) = path.strip_prefix(src()) else {
            continue;
        };
        let top = relative
            .components()
            .next()
            .map(|c| {
                c.as_os_str()
                    .to_string_lossy()
                    .trim_end_matches(".rs")
                    .to_string()
            })
            .unwrap_or_default();
        // The binary, the crate root and the build script sit above everything.
        if ["main", "lib", "build"].contains(&top.as_str()) {
            continue;
        }
        let Some(&layer) = layers.get(top.as_str()) else {
            wrong.push(format!(
                "{}: module `{top}` has no layer in LAYERS",
                relative.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let Some(code) = production_code(path, &text) else {
            continue;
        };
        checked += 1;
        for module in imports(&code) {
            if module == top {
                continue;
            }
            match layers.get(module.as_str()) {
                Some(&other) if other < layer => {}
                Some(&other) => wrong.push(format!(
                    "{}: `{top}` (layer {layer}) imports `{module}` (layer {other})",
                    relative.display()
                )),
                None => wrong.push(format!(
                    "{}: imports `crate::{module}`, which has no layer",
                    relative.display()
                )),
            }
        }
    }
    assert!(checked > 50, "only {checked} files were checked");
    wrong.sort();
    wrong.dedup();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

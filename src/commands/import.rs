//! `garrison import`: read the export files, convert them
//! ([`crate::migrate::import`]), and write the repository whole, or
//! nothing (the store's directory swap, under its lock).

use super::printer::Printer;
use super::settings::ImportSettings;
use super::{ExitStatus, Stop};
use crate::migrate::export::{self, Export};
use crate::migrate::import::{self, Imported};
use crate::model::layout::Tree;
use anyhow::Context;
use std::path::{Path, PathBuf};

pub fn run(settings: &ImportSettings, printer: &Printer) -> Result<ExitStatus, Stop> {
    let target = &settings.repo;
    let _lock = crate::store::lock(target)?;
    refuse_used(target)?;
    let export = read(&settings.exports)?;
    if export.diagnostics.has_errors() {
        printer.diagnostics(&export.diagnostics, &export.sources);
        return Ok(ExitStatus::Error);
    }
    let (imported, warnings) = match import::import(&export.documents) {
        Ok(imported) => imported,
        Err(faults) => {
            printer.diagnostics(&faults, &export.sources);
            return Ok(ExitStatus::Error);
        }
    };
    printer.diagnostics(&warnings, &export.sources);
    crate::store::write_directory(target, &imported.tree, &Tree::new())?;
    if printer.json() {
        printer.out_json(&json(&imported, target, &export))?;
    } else {
        printer.out(text(&imported, target, &export));
    }
    Ok(ExitStatus::Success)
}

/// Read the export files as given, for `import` and for `verify --works`.
pub(super) fn read(paths: &[PathBuf]) -> anyhow::Result<Export> {
    let mut files = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read `{}`", path.display()))?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text).to_string();
        files.push((path.to_string_lossy().replace('\\', "/"), text));
    }
    Ok(export::parse(files))
}

/// An import never mixes with files already there.
fn refuse_used(target: &Path) -> anyhow::Result<()> {
    let used = match std::fs::read_dir(target) {
        Ok(mut entries) => entries.next().is_some(),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => false,
        Err(error) => {
            return Err(error).with_context(|| format!("cannot read `{}`", target.display()))
        }
    };
    if used {
        anyhow::bail!(
            "`{}` is not empty: import into a new directory, then move what you want of it into your repository",
            target.display()
        );
    }
    Ok(())
}

fn text(imported: &Imported, target: &Path, export: &Export) -> String {
    let total: usize = imported.written.values().sum();
    let kinds: Vec<String> = imported
        .written
        .iter()
        .map(|(kind, n)| format!("{n} {kind}"))
        .collect();
    let mut out = format!(
        "imported {total} object(s) into `{}`: {}\n",
        target.display(),
        kinds.join(", ")
    );
    match &imported.kubernetes_version {
        Some(version) => out.push_str(&format!(
            "garrison.yaml: kubernetesVersion \"{version}\", the members' lowest\n"
        )),
        None => out.push_str("garrison.yaml: no member reports its Kubernetes version\n"),
    }
    if !imported.left_out.is_empty() {
        out.push_str(&format!("left out {}:\n", imported.left_out.len()));
        for left in &imported.left_out {
            out.push_str(&format!(
                "  {} ({}): {}\n",
                left.object,
                export.sources.locate(&left.origin),
                left.why
            ));
        }
    }
    out.push_str(&format!(
        "next: garrison verify --repo {} --works WORKS.yaml\n",
        target.display()
    ));
    out
}

fn json(imported: &Imported, target: &Path, export: &Export) -> serde_json::Value {
    let left_out: Vec<serde_json::Value> = imported
        .left_out
        .iter()
        .map(|left| {
            serde_json::json!({
                "object": left.object,
                "at": export.sources.locate(&left.origin),
                "why": left.why,
            })
        })
        .collect();
    serde_json::json!({
        "repo": target.to_string_lossy(),
        "written": imported.written,
        "files": imported.tree.keys().collect::<Vec<_>>(),
        "kubernetesVersion": imported.kubernetes_version,
        "leftOut": left_out,
    })
}

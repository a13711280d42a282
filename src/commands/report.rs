//! `garrison report --html FILE`: the plan, and what it changes in the
//! stored render, as one self-contained HTML page. The render is made as
//! `diff` makes it (nothing is written but the page), and every
//! application is explained as `explain` explains it.

use super::pipeline;
use super::printer::Printer;
use super::settings::{Location, ReportSettings};
use super::{ExitStatus, Stop};
use crate::report::{explain, html};
use anyhow::Context as _;
use std::path::Path;

pub fn run(settings: &ReportSettings, printer: &Printer) -> Result<ExitStatus, Stop> {
    let compare = &settings.compare;
    let outcome = pipeline::preview(compare, printer)?;
    let explanations = match explain::explain_all(&outcome.plan, &outcome.inputs) {
        Ok(explanations) => explanations,
        Err(diagnostics) => {
            printer.diagnostics(&diagnostics, &outcome.inputs.sources);
            return Ok(ExitStatus::Error);
        }
    };
    let report = html::report(&html::Sources {
        plan: &outcome.plan,
        previous: &outcome.previous,
        new: &outcome.tree,
        kept: &outcome.kept,
        shadow: &outcome.shadow,
        format: outcome.format,
        explanations: &explanations,
        against: match &compare.stored {
            Location::Dir(dir) => dir.display().to_string(),
            Location::Branch(branch) => format!("branch {branch}"),
        },
    });
    let page = html::page(&report);
    write(&settings.html, page.as_bytes())?;
    if printer.json() {
        let value = serde_json::json!({
            "html": settings.html.display().to_string(),
            "bytes": page.len(),
            "clusters": report.clusters.len(),
            "rows": report.rows.len(),
            "totals": report.totals,
        });
        printer.out_json(&value)?;
    } else {
        let t = &report.totals;
        printer.out(format!(
            "wrote {}: {} clusters, {} applications; {} added, {} changed, {} removed, {} held back\n",
            settings.html.display(),
            report.clusters.len(),
            t.applications,
            t.added,
            t.changed,
            t.removed,
            t.held_back
        ));
    }
    Ok(ExitStatus::Success)
}

/// Write `bytes` to `path` whole: into a file beside it, then renamed over
/// it, so a reader never sees half a page.
fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let name = path
        .file_name()
        .with_context(|| format!("`{}` names no file", path.display()))?;
    let mut partial = name.to_os_string();
    partial.push(format!(".{}.partial", std::process::id()));
    let partial = path.with_file_name(partial);
    let written = std::fs::write(&partial, bytes).and_then(|()| std::fs::rename(&partial, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written.with_context(|| format!("cannot write the report to `{}`", path.display()))
}

//! `garrison diff`: what a render would change, per cluster then as a
//! unified diff (Secret values masked). Writes nothing.

use super::pipeline;
use super::printer::Printer;
use super::settings::DiffSettings;
use super::{ExitStatus, Stop};
use crate::model::layout;
use crate::report;

pub fn run(settings: &DiffSettings, printer: &Printer) -> Result<ExitStatus, Stop> {
    let compare = &settings.compare;
    let outcome = pipeline::preview(compare, printer)?;
    let summary = outcome.summary();
    let color = printer.color();
    let diff = report::unified_diff(&outcome.previous.files, &outcome.tree, color);
    let held = report::unified_diff(&outcome.previous.files, &held_view(&outcome), color);
    if printer.json() {
        let value = serde_json::json!({ "summary": summary, "diff": diff, "heldBack": held });
        printer.out_json(&value)?;
    } else {
        printer.out(summary.to_text(report::Tense::Preview));
        if !diff.is_empty() {
            printer.out("\n");
            printer.out(&diff);
        }
        if !held.is_empty() {
            printer
                .out("\nheld back on paused or suspended clusters (applied when the hold ends):\n");
            printer.out(&held);
        }
    }
    Ok(if settings.exit_code && summary.changed() {
        ExitStatus::Changes
    } else {
        ExitStatus::Success
    })
}

/// The previous render with held clusters' would-be files laid over it: its
/// diff against the previous render is exactly what the holds keep back.
fn held_view(outcome: &pipeline::Outcome) -> layout::Tree {
    let mut view = outcome.previous.files.clone();
    for cluster in outcome
        .plan
        .clusters
        .iter()
        .filter(|c| c.paused || !c.frozen.is_empty() || !c.shadow.is_empty())
    {
        let root = layout::cluster_dir(&cluster.name);
        let frozen: Vec<String> = outcome
            .frozen
            .get(&cluster.name)
            .into_iter()
            .flatten()
            .map(|path| layout::in_cluster(&cluster.name, path))
            .collect();
        view.retain(|path, _| {
            let object = path.starts_with(&root) && !path.ends_with(layout::KUSTOMIZATION);
            !(object && (cluster.paused || frozen.contains(path)))
        });
        view.extend(
            outcome
                .shadow
                .iter()
                .filter(|(p, _)| p.starts_with(&root))
                .map(|(p, b)| (p.clone(), b.clone())),
        );
    }
    view
}

//! `garrison diff`: what a render would change, per cluster then as a
//! unified diff (Secret values masked). Writes nothing.

use super::stored::Stored;
use super::{pipeline, ExitStatus, Printer};
use crate::cli::DiffArgs;
use crate::model::layout::{self, Layout};
use crate::report;

pub fn run(args: &DiffArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let stored = Stored::from_args(&args.stored.stored);
    let repo = &args.stored.repo.repo;
    let old = stored.read(repo)?;
    let outcome = match pipeline::run(
        &args.stored.repo,
        stored.skip(),
        old.into(),
        args.stored.format.map(Into::into),
        &crate::plan::Scope::All,
        pipeline::Purpose::Render {
            reuse: true,
            prune: pipeline::Prune::Warn,
        },
        printer,
    ) {
        Ok(outcome) => outcome,
        Err(status) => return Ok(status),
    };
    let summary = outcome.summary();
    let diff = report::unified_diff(&outcome.previous.files, &outcome.tree, printer.color);
    let held = report::unified_diff(&outcome.previous.files, &held_view(&outcome), printer.color);
    if printer.json {
        let value = serde_json::json!({ "summary": summary, "diff": diff, "heldBack": held });
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        print!("{}", summary.to_text());
        if !diff.is_empty() {
            println!();
            print!("{diff}");
        }
        if !held.is_empty() {
            println!("\nheld back on paused or suspended clusters (applied when the hold ends):");
            print!("{held}");
        }
    }
    Ok(if args.exit_code && summary.changed() {
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
        let frozen: Vec<String> = cluster
            .frozen
            .iter()
            .map(|k| Layout::new(outcome.format).cluster_object(k, &cluster.name))
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

//! `garrison validate`: every input parsed and checked, and a first render
//! planned and built in memory, so that validate refuses what `render` would
//! refuse; nothing is written.

use super::pipeline::{self, InputCounts, Purpose, Request};
use super::printer::Printer;
use super::settings::{Guards, RepoSettings};
use super::{ExitStatus, Stop};
use crate::diag::Code;
use crate::plan::Scope;

pub fn run(repo: &RepoSettings, printer: &Printer) -> Result<ExitStatus, Stop> {
    let outcome = pipeline::run(
        Request {
            repo,
            skip: Vec::new(),
            previous: crate::model::layout::Tree::new().into(),
            format: None,
            scope: Scope::All,
            purpose: Purpose::Compare {
                guards: Guards::ALLOW,
            },
        },
        printer,
    );
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(Stop::Exit(ExitStatus::Error)) => {
            if let Some(hint) = several_fleets(repo, printer) {
                printer.notice(hint);
            }
            return Err(Stop::Exit(ExitStatus::Error));
        }
        Err(stop) => return Err(stop),
    };
    let read = outcome.read;
    if printer.json() {
        let mut report = printer.report(true);
        for (key, count) in [
            ("templates", read.templates),
            ("propagation_policies", read.propagation_policies),
            ("override_policies", read.override_policies),
            ("clusters", read.clusters),
            ("subscriptions", read.subscriptions),
            ("localizations", read.localizations),
            ("globalizations", read.globalizations),
        ] {
            report.insert(key.into(), count.into());
        }
        printer.out_json(&report)?;
        return Ok(ExitStatus::Success);
    }
    printer.out(format_args!(
        "{}: valid ({} warning(s))\n",
        counted(&read),
        outcome.plan.warnings.warnings()
    ));
    Ok(ExitStatus::Success)
}

/// What was read, as the summary line says it. Clusternet's kinds are
/// named when the repository holds any of them, so a Karmada fleet's line
/// stays as short as its inputs.
fn counted(read: &InputCounts) -> String {
    let mut parts = vec![
        format!("{} templates", read.templates),
        format!("{} propagation policies", read.propagation_policies),
        format!("{} override policies", read.override_policies),
    ];
    if read.subscriptions + read.localizations + read.globalizations > 0 {
        parts.push(format!("{} subscriptions", read.subscriptions));
        parts.push(format!("{} localizations", read.localizations));
        parts.push(format!("{} globalizations", read.globalizations));
    }
    parts.push(format!("{} clusters", read.clusters));
    parts.join(", ")
}

/// How many directories holding a `garrison.yaml` a hint names.
const FLEETS_NAMED: usize = 3;

/// A hint when the refused `--repo` looks like several fleets side by
/// side, each of which validates on its own: it holds two or more
/// `garrison.yaml` files (at its root and below), or a cluster is defined
/// more than once (G0205), as when two fleets name their clusters alike.
fn several_fleets(repo: &RepoSettings, printer: &Printer) -> Option<String> {
    let configs: Vec<String> = crate::load::input_paths(&repo.root)
        .into_iter()
        .filter(|path| path == "garrison.yaml" || path.ends_with("/garrison.yaml"))
        .collect();
    let twice = printer.reported(Code::DuplicateCluster);
    let root = repo.root.display();
    let found = match (configs.len(), twice) {
        (0 | 1, 0) => return None,
        (0 | 1, _) => format!("{twice} cluster(s) of `{root}` are defined more than once"),
        (fleets, _) => format!("`{root}` holds {fleets} garrison.yaml files"),
    };
    let mut dirs: Vec<String> = configs
        .iter()
        .take(FLEETS_NAMED)
        .map(|path| {
            let dir = path.trim_end_matches("garrison.yaml").trim_end_matches('/');
            format!("--repo {}", repo.root.join(dir).display())
        })
        .collect();
    if configs.len() > FLEETS_NAMED {
        dirs.push("…".into());
    }
    let each = if configs.len() > 1 {
        format!(" ({})", dirs.join(", "))
    } else {
        String::new()
    };
    Some(format!(
        "hint: {found}; if it holds several fleets, validate each with its own --repo{each}"
    ))
}

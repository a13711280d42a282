//! `garrison validate`: every input parsed and checked, and a first render
//! planned and built in memory, so that validate refuses what `render` would
//! refuse; nothing is written.

use super::{pipeline, ExitStatus, Printer};
use crate::cli::RepoArgs;

pub fn run(args: &RepoArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let outcome = match pipeline::run(
        args,
        Vec::new(),
        crate::model::layout::Tree::new().into(),
        None,
        &crate::plan::Scope::All,
        pipeline::Purpose::Compare {
            prune: pipeline::Prune::Allow,
        },
        printer,
    ) {
        Ok(outcome) => outcome,
        Err(status) => return Ok(status),
    };
    let read = outcome.read;
    println!(
        "{} templates, {} propagation policies, {} override policies, {} clusters: valid ({} warning(s))",
        read.templates,
        read.propagation_policies,
        read.override_policies,
        read.clusters,
        outcome.plan.warnings.warnings()
    );
    Ok(ExitStatus::Success)
}

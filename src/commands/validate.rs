//! `garrison validate`: every input parsed and checked, nothing rendered.

use super::{ExitStatus, Printer};
use crate::cli::RepoArgs;
use crate::load::{self, cache::Cache, LoadOptions};
use crate::model::previous::PreviousRender;

pub fn run(args: &RepoArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let cache = Cache::open_in(args.cache().as_deref());
    let (inputs, mut diagnostics) =
        load::load_repository(&args.repo, &LoadOptions::default(), &cache);
    let _ = cache.save();
    if !diagnostics.has_errors() {
        match crate::plan::plan(&inputs, &PreviousRender::default()) {
            Ok(plan) => diagnostics.extend(plan.warnings),
            Err(errors) => diagnostics.extend(errors),
        }
    }
    printer.diagnostics(&diagnostics, &inputs.sources);
    if diagnostics.has_errors() {
        return Ok(ExitStatus::Error);
    }
    println!(
        "{} templates, {} propagation policies, {} override policies, {} clusters: valid ({} warning(s))",
        inputs.templates.len(),
        inputs.propagation_policies.len(),
        inputs.override_policies.len(),
        inputs.clusters.len(),
        diagnostics.warnings()
    );
    Ok(ExitStatus::Success)
}

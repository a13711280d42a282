//! `garrison validate`: every input parsed and checked, and a first render
//! planned and built in memory, so that validate refuses what `render` would
//! refuse; nothing is written.

use super::pipeline::{self, Purpose, Request};
use super::printer::Printer;
use super::settings::{Guards, RepoSettings};
use super::{ExitStatus, Stop};
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
    )?;
    let read = outcome.read;
    if printer.json() {
        let mut report = printer.report(true);
        for (key, count) in [
            ("templates", read.templates),
            ("propagation_policies", read.propagation_policies),
            ("override_policies", read.override_policies),
            ("clusters", read.clusters),
        ] {
            report.insert(key.into(), count.into());
        }
        printer.out_json(&report)?;
        return Ok(ExitStatus::Success);
    }
    printer.out(format_args!(
        "{} templates, {} propagation policies, {} override policies, {} clusters: valid ({} warning(s))\n",
        read.templates,
        read.propagation_policies,
        read.override_policies,
        read.clusters,
        outcome.plan.warnings.warnings()
    ));
    Ok(ExitStatus::Success)
}

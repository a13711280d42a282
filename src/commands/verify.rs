//! `garrison verify`: render the repository in memory, in the Work
//! format and against no stored render (as render and diff plan it,
//! through [`pipeline`]), and compare every cluster's objects with the
//! exported Works ([`crate::migrate::verify`]). Writes nothing.

use super::pipeline::{self, Purpose, Request};
use super::printer::Printer;
use super::settings::{Guards, RepoSettings, VerifySettings};
use super::{ExitStatus, Stop};
use crate::migrate::verify::{self, Context, Verdict};
use crate::model::layout::{Format, Tree};
use crate::plan::Scope;
use std::path::PathBuf;

pub fn run(settings: &VerifySettings, printer: &Printer) -> Result<ExitStatus, Stop> {
    let verdict = verdict(&settings.repo, &settings.works, printer)?;
    if printer.json() {
        printer.out_json(&serde_json::json!({
            "agrees": verdict.agrees(),
            "clusters": verdict.clusters,
        }))?;
    } else {
        printer.out(verdict.to_text(printer.color()));
    }
    Ok(if verdict.agrees() {
        ExitStatus::Success
    } else {
        ExitStatus::Changes
    })
}

/// What the repository renders compared with the Works of `works`; when
/// either cannot be read, the faults are printed and the run stops with
/// [`ExitStatus::Error`]. `report --works` draws the same verdict.
pub fn verdict(repo: &RepoSettings, works: &[PathBuf], printer: &Printer) -> Result<Verdict, Stop> {
    let works = super::import::read(works)?;
    if works.diagnostics.has_errors() {
        printer.diagnostics(&works.diagnostics, &works.sources);
        return Err(Stop::Exit(ExitStatus::Error));
    }
    let karmada = match verify::karmada_deliveries(&works.documents) {
        Ok(karmada) => karmada,
        Err(faults) => {
            printer.diagnostics(&faults, &works.sources);
            return Err(Stop::Exit(ExitStatus::Error));
        }
    };
    let outcome = pipeline::run(
        Request {
            repo,
            skip: Vec::new(),
            previous: Tree::new().into(),
            format: Some(Format::Work),
            scope: Scope::All,
            purpose: Purpose::Compare {
                guards: Guards::ALLOW,
            },
        },
        printer,
    )?;
    let context = Context {
        fleet: outcome
            .inputs
            .clusters
            .iter()
            .map(|c| c.name.clone())
            .collect(),
        autoscaled: outcome
            .inputs
            .autoscalers
            .iter()
            .map(|hpa| {
                let target = &hpa.spec.scale_target_ref;
                format!("{}/{}/{}", target.kind, hpa.namespace, target.name)
            })
            .collect(),
    };
    let garrison = verify::garrison_deliveries(&outcome.tree);
    Ok(verify::verify(&karmada, &garrison, &context))
}

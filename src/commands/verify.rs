//! `garrison verify`: render the repository in memory, in the Work
//! format and against no stored render (as render and diff plan it,
//! through [`pipeline`]), and compare every cluster's objects with the
//! exported Works ([`crate::migrate::verify`]). Writes nothing.

use super::pipeline::{self, Purpose, Request};
use super::printer::Printer;
use super::settings::{Guards, VerifySettings};
use super::{ExitStatus, Stop};
use crate::migrate::verify::{self, Context};
use crate::model::layout::{Format, Tree};
use crate::plan::Scope;

pub fn run(settings: &VerifySettings, printer: &Printer) -> Result<ExitStatus, Stop> {
    let works = super::import::read(&settings.works)?;
    if works.diagnostics.has_errors() {
        printer.diagnostics(&works.diagnostics, &works.sources);
        return Ok(ExitStatus::Error);
    }
    let karmada = match verify::karmada_deliveries(&works.documents) {
        Ok(karmada) => karmada,
        Err(faults) => {
            printer.diagnostics(&faults, &works.sources);
            return Ok(ExitStatus::Error);
        }
    };
    let outcome = pipeline::run(
        Request {
            repo: &settings.repo,
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
    let verdict = verify::verify(&karmada, &garrison, &context);
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

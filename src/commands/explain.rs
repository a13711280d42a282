//! `garrison explain KIND/NAMESPACE/NAME`: one application's decisions.

use super::pipeline::{self, Purpose, Request};
use super::printer::Printer;
use super::settings::ExplainSettings;
use super::{stored, ExitStatus, Stop};
use crate::plan::materialise::Materialiser;
use crate::plan::{App, Scope};
use crate::report::explain;

pub fn run(settings: &ExplainSettings, printer: &Printer) -> Result<ExitStatus, Stop> {
    let old = match &settings.stored {
        Some(s) => stored::read(s, &settings.repo.root)?,
        None => Default::default(),
    };
    let skip = settings
        .stored
        .as_ref()
        .map(|s| s.skip())
        .unwrap_or_default();
    let outcome = pipeline::run(
        Request {
            repo: &settings.repo,
            skip,
            previous: old.into(),
            format: None,
            scope: Scope::All,
            purpose: Purpose::Explain,
        },
        printer,
    )?;
    let object = &settings.object;
    let found = explain::find(&outcome.plan, object);
    match found.as_slice() {
        [app] => {
            let Some(explanation) = explained(&outcome, app, printer) else {
                return Ok(ExitStatus::Error);
            };
            if printer.json() {
                printer.out_json(&explanation)?;
            } else {
                printer.out(explanation.to_text());
            }
            Ok(ExitStatus::Success)
        }
        [] => {
            let unclaimed = outcome
                .plan
                .unclaimed
                .iter()
                .any(|k| k.to_string().eq_ignore_ascii_case(object));
            if unclaimed {
                printer.notice(format_args!(
                    "`{object}` is in the source but no policy or binding propagates it"
                ));
            } else {
                printer.notice(format_args!(
                    "no application `{object}`; write KIND/NAMESPACE/NAME, or KIND/NAME for cluster-scoped objects"
                ));
            }
            Ok(ExitStatus::Error)
        }
        many => {
            let versions: Vec<&str> = many.iter().map(|a| a.key.api_version.as_str()).collect();
            printer.notice(format_args!(
                "`{object}` names objects of several API groups ({}); all are listed:",
                versions.join(", ")
            ));
            for app in many {
                let Some(explanation) = explained(&outcome, app, printer) else {
                    return Ok(ExitStatus::Error);
                };
                printer.out(explanation.to_text());
            }
            Ok(ExitStatus::Success)
        }
    }
}

/// The explanation of `app`; `None` when one of its objects cannot be
/// made (the diagnostics are printed).
fn explained(
    outcome: &pipeline::Outcome,
    app: &App,
    printer: &Printer,
) -> Option<explain::Explanation> {
    let plan = &outcome.plan;
    let index = plan.apps.iter().position(|a| a.key == app.key)?;
    let materialiser = Materialiser::new(&outcome.inputs);
    match explain::explain_at(plan, &outcome.inputs, &materialiser, index) {
        Ok(explained) => Some(explained.explanation),
        Err(diagnostics) => {
            printer.diagnostics(&diagnostics, &outcome.inputs.sources);
            None
        }
    }
}

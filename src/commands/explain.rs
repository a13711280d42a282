//! `garrison explain KIND/NAMESPACE/NAME` (or a form kubectl takes,
//! [`query`]): one application's decisions.

use super::pipeline::{self, Purpose, Request};
use super::printer::Printer;
use super::settings::ExplainSettings;
use super::{ExitStatus, Stop};
use crate::plan::materialise::Materialiser;
use crate::plan::{App, Scope};
use crate::report::explain;
use crate::report::query::Query;
use crate::store;

pub fn run(settings: &ExplainSettings, printer: &Printer) -> Result<ExitStatus, Stop> {
    let query = match Query::parse(
        &settings.object,
        settings.name.as_deref(),
        settings.namespace.as_deref(),
    ) {
        Ok(query) => query,
        Err(why) => {
            printer.error(why);
            return Ok(ExitStatus::Error);
        }
    };
    let old = match &settings.stored {
        Some(s) => store::read(s, &settings.repo.root)?,
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
    let found = query.find(&outcome.plan);
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
            let plan = &outcome.plan;
            if let [key, ..] = query.select(&plan.unclaimed, |k| k).as_slice() {
                printer.error(format_args!(
                    "`{key}` is in the source but no policy or binding propagates it"
                ));
                return Ok(ExitStatus::Error);
            }
            let suggested = query.suggest(plan.apps.iter().map(|a| &a.key));
            let hint = match suggested.as_slice() {
                [] => "write KIND/NAMESPACE/NAME, KIND/NAME with --namespace, or KIND/NAME for a cluster-scoped one".to_string(),
                [one] => format!("did you mean `{one}`?"),
                many => format!("did you mean one of `{}`?", many.join("`, `")),
            };
            printer.error(format_args!("no application {query}; {hint}"));
            Ok(ExitStatus::Error)
        }
        many => {
            let versions: Vec<&str> = many.iter().map(|a| a.key.api_version.as_str()).collect();
            printer.notice(format_args!(
                "{query} names objects of several API groups ({}); all are listed:",
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

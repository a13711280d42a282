//! `garrison explain KIND/NAMESPACE/NAME`: one application's decisions.

use super::pipeline::{self, Purpose, Request};
use super::printer::Printer;
use super::settings::ExplainSettings;
use super::{stored, ExitStatus, Stop};
use crate::diag::Diagnostics;
use crate::overrides::Applied;
use crate::plan::materialise::Materialiser;
use crate::plan::{App, Scope};
use crate::report::explain;
use std::collections::BTreeMap;

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
    match applied(outcome, app) {
        Ok(applied) => Some(explain::explain(app, &applied)),
        Err(diagnostics) => {
            printer.diagnostics(&diagnostics, &outcome.inputs.sources);
            None
        }
    }
}

/// What the override policies do to `app` on each cluster it is made for:
/// its objects, made now (only this application's).
fn applied(
    outcome: &pipeline::Outcome,
    app: &App,
) -> Result<BTreeMap<String, Applied>, Diagnostics> {
    let plan = &outcome.plan;
    let Some(index) = plan.apps.iter().position(|a| a.key == app.key) else {
        return Ok(BTreeMap::new());
    };
    let materialiser = Materialiser::new(&outcome.inputs);
    let mut applied = BTreeMap::new();
    let mut diagnostics = Diagnostics::default();
    for assignment in app.binding.clusters.iter().filter(|a| !a.held) {
        let Some(cluster) = outcome
            .inputs
            .clusters
            .iter()
            .find(|c| c.name == assignment.cluster)
        else {
            continue;
        };
        match plan.materialise(&materialiser, index, cluster, assignment.replicas) {
            Some(Ok(made)) => {
                applied.insert(cluster.name.clone(), made.applied);
            }
            Some(Err(diagnostic)) => diagnostics.push(diagnostic),
            None => {}
        }
    }
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    Ok(applied)
}

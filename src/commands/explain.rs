//! `garrison explain KIND/NAMESPACE/NAME` (or a form kubectl takes,
//! [`query`]): one application's decisions.

use super::pipeline::{self, Purpose, Request};
use super::printer::Printer;
use super::settings::ExplainSettings;
use super::{stored, ExitStatus, Stop};
use crate::diag::Diagnostics;
use crate::overrides::Applied;
use crate::plan::materialise::Materialiser;
use crate::plan::{App, Scope};
use crate::report::explain;
use crate::report::query::Query;
use std::collections::BTreeMap;

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

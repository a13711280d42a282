//! `garrison explain KIND/NAMESPACE/NAME`: one application's decisions.

use super::stored::Stored;
use super::{pipeline, ExitStatus, Printer};
use crate::cli::ExplainArgs;
use crate::report::explain;

pub fn run(args: &ExplainArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let stored = match (&args.out, &args.branch) {
        (_, Some(branch)) => Some(Stored::Branch(branch.clone())),
        (Some(out), None) => Some(Stored::Dir(out.clone())),
        (None, None) => None,
    };
    let old = match &stored {
        Some(s) => s.read(&args.repo.repo)?,
        None => Default::default(),
    };
    let skip = stored.as_ref().map(Stored::skip).unwrap_or_default();
    let outcome = match pipeline::run(
        &args.repo,
        skip,
        old.into(),
        None,
        &crate::plan::Scope::All,
        pipeline::Purpose::Explain,
        printer,
    ) {
        Ok(outcome) => outcome,
        Err(status) => return Ok(status),
    };
    let found = explain::find(&outcome.plan, &args.object);
    match found.as_slice() {
        [app] => {
            let explanation = explain::explain(app);
            if printer.json {
                println!("{}", serde_json::to_string_pretty(&explanation)?);
            } else {
                print!("{}", explanation.to_text());
            }
            Ok(ExitStatus::Success)
        }
        [] => {
            let unclaimed = outcome
                .plan
                .unclaimed
                .iter()
                .any(|k| k.to_string().eq_ignore_ascii_case(&args.object));
            if unclaimed {
                eprintln!(
                    "garrison: `{}` is in the source but no policy or binding propagates it",
                    args.object
                );
            } else {
                eprintln!(
                    "garrison: no application `{}`; write KIND/NAMESPACE/NAME, or KIND/NAME for cluster-scoped objects",
                    args.object
                );
            }
            Ok(ExitStatus::Error)
        }
        many => {
            let versions: Vec<&str> = many.iter().map(|a| a.key.api_version.as_str()).collect();
            eprintln!(
                "garrison: `{}` names objects of several API groups ({}); all are listed:",
                args.object,
                versions.join(", ")
            );
            for app in many {
                print!("{}", explain::explain(app).to_text());
            }
            Ok(ExitStatus::Success)
        }
    }
}

//! `garrison check`: is the stored render what the source renders to now?
//! Exit 0 when current, 1 when stale, 2 on an error.

use super::stored::Stored;
use super::{pipeline, ExitStatus, Printer};
use crate::cli::StoredArgs;

pub fn run(args: &StoredArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let stored = Stored::from_args(&args.stored);
    let old = stored.read(&args.repo.repo)?;
    let outcome = match pipeline::run(
        &args.repo,
        stored.skip(),
        old.into(),
        args.format.map(Into::into),
        &crate::plan::Scope::All,
        pipeline::Purpose::Compare {
            prune: pipeline::Prune::Warn,
        },
        printer,
    ) {
        Ok(outcome) => outcome,
        Err(status) => return Ok(status),
    };
    // Compared whole: nothing was kept or left unread.
    let current = outcome.unchanged();
    let summary = outcome.summary();
    if printer.json {
        let value = serde_json::json!({ "current": current, "summary": summary });
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else if current {
        println!("current: the stored render is what the source renders to");
    } else {
        print!("{}", summary.to_text());
        println!("stale: render again to update the stored render");
    }
    Ok(if current {
        ExitStatus::Success
    } else {
        ExitStatus::Changes
    })
}

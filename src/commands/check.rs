//! `garrison check`: is the stored render what the source renders to now?
//! Exit 0 when current, 1 when stale, 2 on an error.

use super::pipeline::{self, Purpose, Request};
use super::printer::Printer;
use super::settings::{CompareSettings, Guards};
use super::{ExitStatus, Stop};
use crate::plan::Scope;
use crate::report;
use crate::store;

pub fn run(settings: &CompareSettings, printer: &Printer) -> Result<ExitStatus, Stop> {
    let old = store::read(&settings.stored, &settings.repo.root)?;
    let outcome = pipeline::run(
        Request {
            repo: &settings.repo,
            skip: settings.stored.skip(),
            previous: old.into(),
            format: settings.format,
            scope: Scope::All,
            purpose: Purpose::Compare {
                guards: Guards::WARN,
            },
        },
        printer,
    )?;
    // Compared whole: nothing was kept or left unread.
    let current = outcome.unchanged();
    let summary = outcome.summary();
    if printer.json() {
        let value = serde_json::json!({ "current": current, "summary": summary });
        printer.out_json(&value)?;
    } else if current {
        printer.out("current: the stored render is what the source renders to\n");
    } else {
        printer.out(summary.to_text(report::Tense::Preview));
        printer.out("stale: render again to update the stored render\n");
    }
    Ok(if current {
        ExitStatus::Success
    } else {
        ExitStatus::Changes
    })
}

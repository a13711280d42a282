//! `garrison report --html FILE`: the plan, and what it changes in the
//! stored render, as one self-contained HTML page. The render is made as
//! `diff` makes it (nothing is written but the page), and every
//! application is explained as `explain` explains it.

use super::pipeline;
use super::printer::Printer;
use super::settings::{Location, ReportSettings};
use super::{ExitStatus, Stop};
use crate::migrate::verify::{self, DifferenceKind, Verdict};
use crate::report::html::verified::{Target, Verification, VerifiedCluster, VerifiedDifference};
use crate::report::{explain, html};
use anyhow::Context as _;
use std::path::{Path, PathBuf};

pub fn run(settings: &ReportSettings, printer: &Printer) -> Result<ExitStatus, Stop> {
    let compare = &settings.compare;
    let verified = match settings.works.is_empty() {
        true => None,
        false => Some(verification(
            &settings.works,
            &super::verify::verdict(&compare.repo, &settings.works, printer)?,
        )),
    };
    let outcome = pipeline::preview(compare, printer)?;
    let explanations = match explain::explain_all(&outcome.plan, &outcome.inputs) {
        Ok(explanations) => explanations,
        Err(diagnostics) => {
            printer.diagnostics(&diagnostics, &outcome.inputs.sources);
            return Ok(ExitStatus::Error);
        }
    };
    let report = html::report(&html::Sources {
        plan: &outcome.plan,
        previous: &outcome.previous,
        new: &outcome.tree,
        kept: &outcome.kept,
        shadow: &outcome.shadow,
        format: outcome.format,
        explanations: &explanations,
        against: match &compare.stored {
            Location::Dir(dir) => dir.display().to_string(),
            Location::Branch(branch) => format!("branch {branch}"),
        },
        verified: verified.as_ref(),
    });
    let page = html::page(&report);
    write(&settings.html, page.as_bytes())?;
    if printer.json() {
        let value = serde_json::json!({
            "html": settings.html.display().to_string(),
            "bytes": page.len(),
            "clusters": report.clusters.len(),
            "rows": report.rows.len(),
            "totals": report.totals,
            "agrees": report.verify.as_ref().map(|v| v.agrees),
        });
        printer.out_json(&value)?;
    } else {
        let t = &report.totals;
        printer.out(format!(
            "wrote {}: {} clusters, {} applications; {} added, {} changed, {} removed, {} held back\n",
            settings.html.display(),
            report.clusters.len(),
            t.applications,
            t.added,
            t.changed,
            t.removed,
            t.held_back
        ));
        if let Some(verify) = &report.verify {
            printer.out(verification_line(verify));
        }
    }
    Ok(ExitStatus::Success)
}

/// The verdict of `verify` as the page draws it.
fn verification(works: &[PathBuf], verdict: &Verdict) -> Verification {
    let clusters = verdict
        .clusters
        .iter()
        .map(|cluster| VerifiedCluster {
            name: cluster.name.clone(),
            matching: cluster.matching.len(),
            differences: cluster
                .differences
                .iter()
                .map(|d| VerifiedDifference {
                    object: d.object.clone(),
                    kind: match d.kind {
                        DifferenceKind::Differs => "differs",
                        DifferenceKind::OnlyKarmada => "only-karmada",
                        DifferenceKind::OnlyGarrison => "only-garrison",
                    },
                    diff: d.diff.clone(),
                    reason: d.reason.clone(),
                    explained: d.explained,
                    row: None,
                    target: verify::key_parts(&d.object).map(|(group, kind, namespace, name)| {
                        Target {
                            group: group.to_string(),
                            kind: kind.to_string(),
                            namespace: namespace.map(str::to_string),
                            name: name.to_string(),
                        }
                    }),
                })
                .collect(),
        })
        .collect();
    Verification {
        works: works.iter().map(|w| w.display().to_string()).collect(),
        agrees: verdict.agrees(),
        clusters,
    }
}

/// The report's line on the Works it compared with.
fn verification_line(verify: &Verification) -> String {
    let differences = verify.clusters.iter().flat_map(|c| &c.differences);
    let unexplained = differences.clone().filter(|d| !d.explained).count();
    match verify.agrees {
        true => format!(
            "compared with {}: every cluster gets what Karmada delivers ({} explained difference(s))\n",
            verify.works.join(", "),
            differences.count()
        ),
        false => format!(
            "compared with {}: {unexplained} of {} difference(s) not explained\n",
            verify.works.join(", "),
            differences.count()
        ),
    }
}

/// Write `bytes` to `path` whole: into a file beside it, then renamed over
/// it, so a reader never sees half a page.
fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let name = path
        .file_name()
        .with_context(|| format!("`{}` names no file", path.display()))?;
    let mut partial = name.to_os_string();
    partial.push(format!(".{}.partial", std::process::id()));
    let partial = path.with_file_name(partial);
    let written = std::fs::write(&partial, bytes).and_then(|()| std::fs::rename(&partial, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written.with_context(|| format!("cannot write the report to `{}`", path.display()))
}

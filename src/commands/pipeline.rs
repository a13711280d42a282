//! The steps every command shares: read the previous render, load the
//! source, plan, build the tree. One place, so `render`, `diff`, `check` and
//! `explain` can never disagree about what a render would produce.

use super::{ExitStatus, Printer};
use crate::emit::{self, Format, Tree};
use crate::load::{self, previous, LoadOptions};
use crate::model::previous::PreviousRender;
use crate::plan::Plan;
use std::path::{Path, PathBuf};

/// Everything a render decided, before anything is written.
pub struct Outcome {
    pub plan: Plan,
    pub previous: PreviousRender,
    pub tree: Tree,
    pub shadow: Tree,
    pub format: Format,
}

/// The output format recorded in a previous render's marker, if any.
pub fn recorded_format(tree: &Tree) -> Option<Format> {
    let marker = tree.get(emit::MARKER_FILE)?;
    let text = String::from_utf8_lossy(marker);
    if text.contains("\"format\":\"work\"") {
        Some(Format::Work)
    } else {
        Some(Format::Manifests)
    }
}

/// Load `repo`, plan against `previous_tree`, build the new tree. Input
/// faults are printed and become `Err(ExitStatus::Error)`.
pub fn run(
    repo: &Path,
    skip: Vec<PathBuf>,
    previous_tree: Tree,
    format: Option<Format>,
    scope: &crate::plan::Scope,
    printer: &Printer,
) -> Result<Outcome, ExitStatus> {
    let spinner = printer.spinner();
    spinner.set_message("loading the repository");
    let (inputs, mut diagnostics) = load::load_repository(repo, &LoadOptions { skip });
    spinner.set_message(format!(
        "planning {} templates on {} clusters",
        inputs.templates.len(),
        inputs.clusters.len()
    ));
    if diagnostics.has_errors() {
        printer.diagnostics(&diagnostics, &inputs.sources);
        return Err(ExitStatus::Error);
    }
    let format = format
        .or_else(|| recorded_format(&previous_tree))
        .unwrap_or_default();
    let previous = previous::from_tree(previous_tree);
    let mut plan = match crate::plan::plan_scoped(&inputs, &previous, scope) {
        Ok(plan) => plan,
        Err(errors) => {
            diagnostics.extend(errors);
            printer.diagnostics(&diagnostics, &inputs.sources);
            return Err(ExitStatus::Error);
        }
    };
    diagnostics.extend(plan.warnings.clone());
    // Every warning of the run, loading included, is counted in the summary.
    plan.warnings = diagnostics.clone();
    spinner.set_message("building the output tree");
    let tree = match emit::build_tree(&plan, &previous, format) {
        Ok(tree) => tree,
        Err(errors) => {
            diagnostics.extend(errors);
            printer.diagnostics(&diagnostics, &inputs.sources);
            return Err(ExitStatus::Error);
        }
    };
    spinner.finish_and_clear();
    printer.diagnostics(&diagnostics, &inputs.sources);
    let shadow = emit::shadow_tree(&plan, format);
    Ok(Outcome {
        plan,
        previous,
        tree,
        shadow,
        format,
    })
}

impl Outcome {
    /// The per-cluster summary of this render against the stored one.
    pub fn summary(&self) -> crate::report::Summary {
        crate::report::Summary::new(
            &self.plan,
            &self.previous.files,
            &self.tree,
            &self.shadow,
            self.format,
        )
    }
}

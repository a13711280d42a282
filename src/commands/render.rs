//! `garrison render --out DIR`: load, plan against the previous render in
//! DIR, build the tree, swap it in, print the summary.

use super::{ExitStatus, Printer};
use crate::cli::{OutputFormat, RenderArgs};
use crate::emit::{self, write, Format};
use crate::load::{self, previous, LoadOptions};
use crate::report;
use anyhow::Context;

pub fn run(args: &RenderArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let options = LoadOptions {
        skip: vec![args.out.clone()],
    };
    let (inputs, mut diagnostics) = load::load_repository(&args.repo.repo, &options);
    if diagnostics.has_errors() {
        printer.diagnostics(&diagnostics, &inputs.sources);
        return Ok(ExitStatus::Error);
    }
    let old_tree = write::read_tree(&args.out).context("cannot read the previous render")?;
    let previous = previous::from_tree(old_tree);
    let plan = match crate::plan::plan(&inputs, &previous) {
        Ok(plan) => plan,
        Err(errors) => {
            diagnostics.extend(errors);
            printer.diagnostics(&diagnostics, &inputs.sources);
            return Ok(ExitStatus::Error);
        }
    };
    diagnostics.extend(plan.warnings.clone());
    let format = match args.format {
        OutputFormat::Manifests => Format::Manifests,
        OutputFormat::Work => Format::Work,
    };
    let tree = match emit::build_tree(&plan, &previous, format) {
        Ok(tree) => tree,
        Err(errors) => {
            diagnostics.extend(errors);
            printer.diagnostics(&diagnostics, &inputs.sources);
            return Ok(ExitStatus::Error);
        }
    };
    printer.diagnostics(&diagnostics, &inputs.sources);
    let shadow = emit::shadow_tree(&plan, format);
    let summary = report::Summary::new(&plan, &previous.files, &tree, &shadow, format);
    if summary.changed() || !args.out.exists() {
        write::write_tree(&args.out, &tree, &previous.files)
            .with_context(|| format!("cannot write the render to `{}`", args.out.display()))?;
    }
    if !args.quiet {
        print!("{}", summary.to_text());
    }
    Ok(ExitStatus::Success)
}

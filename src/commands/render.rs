//! `garrison render`, in the [`Mode`] its settings resolved to: into a
//! directory, onto a branch, one shard of the fleet ([`super::shard`]), or
//! merged shards. The render is planned by [`pipeline`], stored by
//! [`crate::store`], then reported: the summary on stdout, and for CI the
//! Markdown step summary and the `key=value` outputs.

use super::pipeline::{self, Purpose, Request};
use super::printer::Printer;
use super::settings::{Guards, Location, Mode, Prune, RenderSettings, Verbosity};
use super::{shard, ExitStatus, Stop};
use crate::diag::{Diagnostics, Severity, Sources};
use crate::model::layout::{Tree, MARKER_FILE};
use crate::plan::Scope;
use crate::report::Summary;
use crate::store::branch::{self, Branch, Saved, SourceCommit};
use crate::store::{self, previous::Previous};
use anyhow::Context;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// How many changed files, and how many untracked input files, a refusal
/// names.
const FILES_LISTED: usize = 10;

pub fn run(settings: &RenderSettings, printer: &Printer) -> Result<ExitStatus, Stop> {
    match &settings.mode {
        Mode::Directory(out) => to_directory(settings, out, printer),
        Mode::Branch(branch) => to_branch(settings, branch, printer),
        Mode::Shard {
            index,
            count,
            dir,
            base,
        } => shard::render(settings, (*index, *count), dir, base, printer),
        Mode::Merge { shards, into } => merge(settings, shards, into, printer),
    }
}

/// The pipeline run of a whole render (every cluster) against `previous`.
fn render_request<'a>(
    settings: &'a RenderSettings,
    skip: Vec<PathBuf>,
    previous: Previous<'a>,
) -> Request<'a> {
    Request {
        repo: &settings.repo,
        skip,
        previous,
        format: Some(settings.format),
        scope: Scope::All,
        purpose: Purpose::Render {
            reuse: settings.reuse,
            guards: settings.guards,
        },
    }
}

fn to_directory(
    settings: &RenderSettings,
    out: &Path,
    printer: &Printer,
) -> Result<ExitStatus, Stop> {
    let summary = store::render_into_directory(out, !settings.reuse, |previous| {
        pipeline::run(
            render_request(settings, vec![out.to_path_buf()], previous),
            printer,
        )
        .map(pipeline::Outcome::into_rendered)
    })?;
    report(settings, printer, &summary, None)?;
    Ok(ExitStatus::Success)
}

fn to_branch(settings: &RenderSettings, name: &str, printer: &Printer) -> Result<ExitStatus, Stop> {
    let repo = &settings.repo.root;
    let source = source(repo, settings.allow_dirty, printer)?;
    let branch = Branch {
        repo,
        name,
        source: source.as_ref(),
        allow_dirty: settings.allow_dirty,
    };
    let notice = |text: std::fmt::Arguments<'_>| printer.notice(text);
    let rendered = branch::render_onto_branch(&branch, !settings.reuse, &notice, |previous| {
        pipeline::run(render_request(settings, Vec::new(), previous), printer)
            .map(pipeline::Outcome::into_rendered)
    })?;
    let Some((summary, saved)) = rendered else {
        return Ok(ExitStatus::Success);
    };
    report(settings, printer, &summary, Some((&branch, saved)))?;
    Ok(ExitStatus::Success)
}

/// Combine the shards' directories and store the result at `into`, like
/// any render. The plan is made once more, without rendering objects, for
/// the summary's view of pauses and forts.
fn merge(
    settings: &RenderSettings,
    shards: &[PathBuf],
    into: &Location,
    printer: &Printer,
) -> Result<ExitStatus, Stop> {
    let _lock = match into {
        Location::Dir(out) => Some(store::lock(out)?),
        Location::Branch(_) => None,
    };
    let base = store::read_base(into, &settings.repo.root)?;
    let shard::Combined {
        tree: mut merged,
        held_back,
    } = shard::combine(shards, base.tip.as_deref())?;
    let outcome = pipeline::run(
        Request {
            repo: &settings.repo,
            skip: into.skip(),
            previous: base.tree.into(),
            format: Some(settings.format),
            scope: Scope::ScheduleOnly,
            // What the shards remove is judged below, from the merged tree;
            // an application vanishing is judged from the plan, here.
            purpose: Purpose::Compare {
                guards: Guards {
                    mass_prune: Prune::Allow,
                    vanish: settings.guards.vanish,
                },
            },
        },
        printer,
    )?;
    if settings.guards.mass_prune == Prune::Refuse {
        let none = Default::default();
        if let Some(refusal) = pipeline::mass_prune(
            &outcome.plan,
            &outcome.previous,
            (&merged, &none),
            &outcome.mass_prune,
            Severity::Error,
        ) {
            printer.diagnostics(&Diagnostics(vec![refusal]), &Sources::default());
            return Ok(ExitStatus::Error);
        }
    }
    merged.insert(
        MARKER_FILE.to_string(),
        outcome.tree.get(MARKER_FILE).cloned().unwrap_or_default(),
    );
    let mut summary = Summary::new(
        &outcome.plan,
        &outcome.previous,
        &merged,
        &outcome.kept,
        &Tree::new(),
        outcome.format,
    );
    // Scheduled without rendering a cluster, the plan lists none: the
    // fleet and its pauses come from the inputs, what the holds keep back
    // from the shards that rendered those clusters.
    let fleet = outcome.inputs.clusters.iter();
    summary.include_fleet(fleet.map(|c| (c.name.as_str(), c.paused)), held_back);
    match into {
        Location::Dir(out) => {
            if summary.changed() || !out.exists() {
                store::write_directory(out, &merged, &outcome.previous.files)?;
            }
            report(settings, printer, &summary, None)?;
        }
        Location::Branch(name) => {
            let repo = &settings.repo.root;
            let source = source(repo, settings.allow_dirty, printer)?;
            let branch = Branch {
                repo,
                name,
                source: source.as_ref(),
                allow_dirty: settings.allow_dirty,
            };
            let notice = |text: std::fmt::Arguments<'_>| printer.notice(text);
            let saved = branch::commit_on(
                &branch,
                (base.tip, &outcome.previous.files),
                merged,
                &summary,
                outcome.format,
                &notice,
            )?;
            report(settings, printer, &summary, Some((&branch, saved)))?;
        }
    }
    Ok(ExitStatus::Success)
}

/// Report a stored render: the summary (and with `--verbose` where every
/// application goes) on stdout, what happened on the branch if it went to
/// one, and for CI the Markdown step summary and the `key=value` outputs,
/// appended as GitHub expects.
fn report(
    settings: &RenderSettings,
    printer: &Printer,
    summary: &Summary,
    branch: Option<(&Branch<'_>, Saved)>,
) -> anyhow::Result<()> {
    printer.summary(summary, settings.verbosity == Verbosity::Quiet)?;
    if settings.verbosity == Verbosity::Verbose && !printer.json() {
        printer.out(&summary.placements);
    }
    let source = branch
        .as_ref()
        .and_then(|(branch, _)| branch.source)
        .map(|source| source.commit.as_str());
    let commit = match &branch {
        Some((_, Saved::Committed(commit))) => Some(commit.as_str()),
        _ => None,
    };
    let name = branch.as_ref().map(|(branch, _)| branch.name);
    let append = |path: &Path, text: &str| -> anyhow::Result<()> {
        use std::io::Write as _;
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("cannot open `{}`", path.display()))?;
        file.write_all(text.as_bytes())
            .with_context(|| format!("cannot write `{}`", path.display()))
    };
    if let Some(path) = &settings.step_summary {
        append(path, &summary.to_markdown(source, commit, name))?;
    }
    if let Some(path) = &settings.github_output {
        append(path, &summary.outputs(commit))?;
    }
    if settings.verbosity != Verbosity::Quiet && !printer.json() {
        match &branch {
            Some((branch, Saved::Committed(commit))) => {
                printer.out(format_args!("committed {commit} to `{}`\n", branch.name));
            }
            Some((branch, Saved::Current)) => {
                printer.out(format_args!(
                    "branch `{}` is current; no commit\n",
                    branch.name
                ));
            }
            Some((_, Saved::Unchanged)) | None => {}
        }
    }
    Ok(())
}

/// The source commit, refusing a dirty working tree unless `allow_dirty`.
/// The working tree is what is rendered, so an untracked file garrison
/// reads as input is an uncommitted change like a modified tracked file;
/// other untracked files (notes, a render directory, the parse cache) are
/// not.
pub fn source(
    repo: &Path,
    allow_dirty: bool,
    printer: &Printer,
) -> Result<Option<SourceCommit>, Stop> {
    let Some(mut source) =
        branch::source_info(repo).context("cannot read the source repository")?
    else {
        return Ok(None);
    };
    let untracked: Vec<String> = if source.untracked.is_empty() {
        Vec::new()
    } else {
        let inputs: BTreeSet<String> = crate::load::input_paths(repo).into_iter().collect();
        source
            .untracked
            .iter()
            .filter(|path| inputs.contains(*path))
            .cloned()
            .collect()
    };
    if (source.dirty || !untracked.is_empty()) && !allow_dirty {
        let repo = repo.display();
        let (changed, new) = (listed(&source.changed), listed(&untracked));
        let what = match (source.dirty, untracked.is_empty()) {
            (true, true) => {
                format!("tracked files in `{repo}` have uncommitted changes: {changed}; commit them")
            }
            (true, false) => format!(
                "tracked files in `{repo}` have uncommitted changes: {changed}, and input files are untracked: {new}; commit them"
            ),
            (false, _) => format!(
                "input files in `{repo}` are untracked: {new}; commit them or list them in .gitignore"
            ),
        };
        printer.error(format_args!(
            "{what}, or pass --allow-dirty to render the working tree anyway"
        ));
        return Err(Stop::Exit(ExitStatus::Error));
    }
    // Recorded in the marker and the commit message as any uncommitted change.
    source.dirty |= !untracked.is_empty();
    Ok(Some(source))
}

/// The first [`FILES_LISTED`] of `paths`, quoted, and how many more.
fn listed(paths: &[String]) -> String {
    let mut listed: Vec<String> = paths
        .iter()
        .take(FILES_LISTED)
        .map(|path| format!("`{path}`"))
        .collect();
    if paths.len() > FILES_LISTED {
        listed.push(format!("and {} more", paths.len() - FILES_LISTED));
    }
    listed.join(", ")
}

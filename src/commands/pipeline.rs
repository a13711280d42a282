//! The steps every command shares: read the previous render, load the
//! source, plan, build the tree. One place, so `render`, `diff`, `check` and
//! `explain` can never disagree about what a render would produce. A
//! command describes the run it wants as a [`Request`]; the calls into
//! `plan` and into `emit`'s tree building are all in [`plan_and_build`].

use super::printer::{Printer, Spinner};
use super::settings::{CompareSettings, Guards, Prune, RepoSettings};
use super::{ExitStatus, Stop};
use crate::diag::{Diagnostic, Diagnostics, Severity};
use crate::emit;
use crate::load::{self, cache::Cache, previous, LoadOptions};
use crate::model::config::MassPruneConfig;
use crate::model::inputs::Inputs;
use crate::model::layout::{self, Format, Layout, Tree};
use crate::model::previous::PreviousRender;
use crate::plan::{Plan, Scope};
use crate::store::previous::{unchanged, Fetch, Previous};
use crate::store::{self, Rendered};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// One run of the pipeline, as a command asks for it: plain data resolved
/// from the command line (and the stored render the command read).
pub struct Request<'a> {
    /// The source repository, its parse cache, and whether warnings refuse
    /// the run (`--strict`).
    pub repo: &'a RepoSettings,
    /// Directories the source walk skips: a render directory inside the
    /// repository.
    pub skip: Vec<PathBuf>,
    /// The stored render planned against.
    pub previous: Previous<'a>,
    /// The output format; `None` takes the one the previous render records.
    pub format: Option<Format>,
    /// Which clusters get objects rendered.
    pub scope: Scope,
    pub purpose: Purpose,
}

/// Everything a render decided, before anything is written.
pub struct Outcome {
    /// What was read, which `explain` makes its one application's objects from.
    pub inputs: Inputs,
    pub plan: Plan,
    pub previous: PreviousRender,
    pub tree: Tree,
    /// Files kept from the previous render without being read.
    pub kept: BTreeSet<String>,
    pub shadow: Tree,
    /// Per cluster, the files of its frozen objects, from the cluster's
    /// directory.
    pub frozen: BTreeMap<String, Vec<String>>,
    pub format: Format,
    /// The `massPrune` settings of garrison.yaml, for a render built
    /// outside [`run`] (merged shards).
    pub mass_prune: MassPruneConfig,
    /// How many inputs of each kind were read, for `validate`.
    pub read: InputCounts,
}

/// How many inputs of each kind a run read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InputCounts {
    pub templates: usize,
    pub propagation_policies: usize,
    pub override_policies: usize,
    pub clusters: usize,
    pub subscriptions: usize,
    pub localizations: usize,
    pub globalizations: usize,
}

/// What a [`run`] is for, which decides how much work it does and keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// A render to store, or to show (`diff`); with `reuse`, unchanged
    /// applications keep their previous files ([`crate::reuse`]).
    Render { reuse: bool, guards: Guards },
    /// A comparison (`check`, `validate`): every object rendered again.
    Compare { guards: Guards },
    /// `explain`: the plan alone; explaining makes the objects of the one
    /// application it explains.
    Explain,
}

impl Purpose {
    fn guards(self) -> Guards {
        match self {
            Purpose::Render { guards, .. } | Purpose::Compare { guards } => guards,
            Purpose::Explain => Guards::ALLOW,
        }
    }
}

/// `diagnostics` as `--strict` takes them: every warning an error.
fn judged(strict: bool, diagnostics: Diagnostics) -> Diagnostics {
    if strict {
        diagnostics.strict()
    } else {
        diagnostics
    }
}

/// What a render against the stored render `compare` names would make,
/// written nowhere: the run `diff` and `report` read (a mass prune warns).
pub fn preview(compare: &CompareSettings, printer: &Printer) -> Result<Outcome, Stop> {
    let old = store::read(&compare.stored, &compare.repo.root)?;
    run(
        Request {
            repo: &compare.repo,
            skip: compare.stored.skip(),
            previous: old.into(),
            format: compare.format,
            scope: Scope::All,
            purpose: Purpose::Render {
                reuse: true,
                guards: Guards::WARN,
            },
        },
        printer,
    )
}

/// Load the repository, plan against the previous render, build the new
/// tree. Input faults are printed and stop the run with
/// [`ExitStatus::Error`]; so do warnings with `--strict`, and a mass prune
/// when the purpose refuses one. With `reuse`, files of unchanged
/// applications are kept from the previous render instead of rendered
/// again ([`crate::reuse`]). Files parsed by an earlier run come from the
/// parse cache ([`crate::load::cache`]).
pub fn run(request: Request<'_>, printer: &Printer) -> Result<Outcome, Stop> {
    let Request {
        repo,
        skip,
        previous: stored,
        format,
        scope,
        purpose,
    } = request;
    let spinner = printer.spinner();
    let cache = Cache::open_in(repo.cache.as_deref());
    let cache = if repo.writes_cache {
        cache
    } else {
        cache.read_only()
    };
    let (inputs, mut diagnostics) = load_inputs(repo, skip, &cache, &spinner);
    if diagnostics.has_errors() {
        let _ = cache.save();
        printer.diagnostics(&diagnostics, &inputs.sources);
        return Err(Stop::Exit(ExitStatus::Error));
    }
    let mut previous = previous::from_partial(stored.files, stored.unread, &cache);
    let format = format.or(previous.format).unwrap_or_default();
    // Only speed is lost when the cache cannot be written: not worth a warning.
    let _ = cache.save();
    let planning = Planning {
        scope,
        format,
        purpose,
        strict: repo.strict,
        fetch: stored.fetch,
    };
    let built = plan_and_build(&inputs, &mut previous, planning, &mut diagnostics, &spinner);
    let mut built = match built {
        Ok(built) => built,
        Err(Halt::Refused) => {
            printer.diagnostics(&diagnostics, &inputs.sources);
            return Err(Stop::Exit(ExitStatus::Error));
        }
        Err(Halt::Failed(error)) => return Err(Stop::Failed(error)),
    };
    drop(spinner);
    guard_removals(
        &inputs,
        &previous,
        &mut built,
        purpose,
        repo.strict,
        &mut diagnostics,
    );
    printer.diagnostics(&diagnostics, &inputs.sources);
    if diagnostics.has_errors() {
        return Err(Stop::Exit(ExitStatus::Error));
    }
    Ok(Outcome::new(inputs, previous, built, format))
}

/// Load the repository (files parsed by an earlier run come from `cache`),
/// with `--strict` applied: whatever a command does, it has loaded and
/// planned here first.
fn load_inputs(
    repo: &RepoSettings,
    skip: Vec<PathBuf>,
    cache: &Cache,
    spinner: &Spinner,
) -> (Inputs, Diagnostics) {
    spinner.set_message("loading the repository");
    let (inputs, diagnostics) = load::load_repository(&repo.root, &LoadOptions { skip }, cache);
    spinner.set_message(format!(
        "planning {} templates on {} clusters",
        inputs.templates.len(),
        inputs.clusters.len()
    ));
    (inputs, judged(repo.strict, diagnostics))
}

/// SPEC §10's removal guards, each as the purpose says (an error, a
/// warning, or not checked): G0603 when the render removes too much of the
/// previous one, G0604 for each application the previous render delivered
/// that this one delivers to no cluster, its template and policy still in
/// the repository ([`crate::vanish`]).
fn guard_removals(
    inputs: &Inputs,
    previous: &PreviousRender,
    built: &mut Planned,
    purpose: Purpose,
    strict: bool,
    diagnostics: &mut Diagnostics,
) {
    let guards = purpose.guards();
    let mut found = Vec::new();
    if let Some(severity) = severity(guards.mass_prune) {
        let config = &inputs.config.mass_prune;
        let tree = (&built.tree, &built.kept);
        found.extend(mass_prune(&built.plan, previous, tree, config, severity));
    }
    if let Some(severity) = severity(guards.vanish) {
        let vanishing = crate::vanish::vanishing(inputs, &built.plan, previous);
        found.extend(
            vanishing
                .iter()
                .map(|v| v.diagnostic(&built.plan, severity)),
        );
    }
    let found = judged(strict, Diagnostics(found));
    built.plan.warnings.extend(found.clone());
    diagnostics.extend(found);
}

/// The severity a guard's finding has under `prune`; `None`: not looked for.
fn severity(prune: Prune) -> Option<Severity> {
    match prune {
        Prune::Refuse => Some(Severity::Error),
        Prune::Warn => Some(Severity::Warning),
        Prune::Allow => None,
    }
}

impl Outcome {
    fn new(inputs: Inputs, previous: PreviousRender, built: Planned, format: Format) -> Outcome {
        let read = InputCounts {
            templates: inputs.templates.len(),
            propagation_policies: inputs.propagation_policies.len(),
            override_policies: inputs.override_policies.len(),
            clusters: inputs.clusters.len(),
            subscriptions: inputs.subscriptions.len(),
            localizations: inputs.localizations.len(),
            globalizations: inputs.globalizations.len(),
        };
        Outcome {
            mass_prune: inputs.config.mass_prune.clone(),
            inputs,
            plan: built.plan,
            previous,
            tree: built.tree,
            kept: built.kept,
            shadow: built.shadow,
            frozen: built.frozen,
            format,
            read,
        }
    }
}

/// What [`plan_and_build`] needs of a [`Request`], resolved.
struct Planning<'a> {
    scope: Scope,
    format: Format,
    purpose: Purpose,
    strict: bool,
    fetch: Option<&'a Fetch<'a>>,
}

/// The plan and the trees built from it.
struct Planned {
    plan: Plan,
    tree: Tree,
    kept: BTreeSet<String>,
    shadow: Tree,
    frozen: BTreeMap<String, Vec<String>>,
}

/// Why [`plan_and_build`] stopped.
enum Halt {
    /// The inputs were refused; `diagnostics` says why.
    Refused,
    /// The previous render could not be read.
    Failed(anyhow::Error),
}

/// Plan `inputs` against `previous`, read the previous files the render
/// compares or copies, build the tree. The one function of `commands` that
/// calls into `plan` and into `emit`'s tree building and file naming, so
/// that a change of their interface is met here alone. Faults are added to
/// `diagnostics`.
fn plan_and_build(
    inputs: &Inputs,
    previous: &mut PreviousRender,
    planning: Planning<'_>,
    diagnostics: &mut Diagnostics,
    spinner: &Spinner,
) -> Result<Planned, Halt> {
    let Planning {
        scope,
        format,
        purpose,
        strict,
        fetch,
    } = planning;
    let options = crate::plan::Options { scope, format };
    let plan = decide(inputs, previous, &options, strict, diagnostics)?;
    if purpose == Purpose::Explain {
        return Ok(Planned {
            plan,
            tree: Tree::new(),
            kept: BTreeSet::new(),
            shadow: Tree::new(),
            frozen: BTreeMap::new(),
        });
    }
    spinner.set_message("making every cluster's objects");
    let options = emit::render::Options {
        format,
        reuse: matches!(purpose, Purpose::Render { reuse: true, .. }),
    };
    let rendered = emit::render::render(inputs, &plan, previous, options).map_err(|errors| {
        diagnostics.extend(errors);
        Halt::Refused
    })?;
    let frozen = frozen_files(&plan, format);
    if let Some(fetch) = fetch {
        let wanted = compared_files(&plan, &rendered, previous, &frozen);
        read_previous(previous, fetch, &wanted)
            .map_err(|error| Halt::Failed(error.context("cannot read the previous render")))?;
    }
    spinner.set_message("building the output tree");
    let shadow = emit::shadow_tree(&plan, &rendered);
    let built =
        emit::build_tree(&plan, rendered, previous, format, &inputs.tools).map_err(|errors| {
            diagnostics.extend(errors);
            Halt::Refused
        })?;
    Ok(Planned {
        plan,
        tree: built.tree,
        kept: built.kept,
        shadow,
        frozen,
    })
}

/// The plan, with its warnings judged (`--strict`); every warning of the
/// run, loading included, is kept on it for the summary.
fn decide(
    inputs: &Inputs,
    previous: &PreviousRender,
    options: &crate::plan::Options,
    strict: bool,
    diagnostics: &mut Diagnostics,
) -> Result<Plan, Halt> {
    let mut plan = match crate::plan::plan_with(inputs, previous, options) {
        Ok(plan) => plan,
        Err(errors) => {
            diagnostics.extend(judged(strict, errors));
            return Err(Halt::Refused);
        }
    };
    diagnostics.extend(judged(strict, plan.warnings.clone()));
    if diagnostics.has_errors() {
        return Err(Halt::Refused);
    }
    plan.warnings = diagnostics.clone();
    Ok(plan)
}

/// Per cluster, the files of its frozen objects, from the cluster's directory.
fn frozen_files(plan: &Plan, format: Format) -> BTreeMap<String, Vec<String>> {
    let layout = Layout::new(format);
    plan.clusters
        .iter()
        .filter(|cluster| !cluster.frozen.is_empty())
        .map(|cluster| {
            let files = cluster.frozen.iter();
            let files = files.map(|key| layout.object(key, &cluster.name));
            (cluster.name.clone(), files.collect())
        })
        .collect()
}

/// Read the `wanted` files of a previous render read in part.
fn read_previous(
    previous: &mut PreviousRender,
    fetch: &Fetch<'_>,
    wanted: &[String],
) -> anyhow::Result<()> {
    for (path, bytes) in fetch(wanted)? {
        previous.unread.remove(&path);
        previous.files.insert(path, bytes);
    }
    Ok(())
}

/// G0603 of `severity` when the render `new` (plus the `kept` previous
/// files) removes too much of the previous render under `config`
/// ([`crate::prune`]); the paused clusters of `plan` are left out.
pub fn mass_prune(
    plan: &Plan,
    previous: &PreviousRender,
    (new, kept): (&Tree, &BTreeSet<String>),
    config: &MassPruneConfig,
    severity: Severity,
) -> Option<Diagnostic> {
    let paused: BTreeSet<&str> = plan
        .clusters
        .iter()
        .filter(|c| c.paused)
        .map(|c| c.name.as_str())
        .collect();
    let removal = crate::prune::removal(
        previous.files.keys().chain(&previous.unread),
        |path| new.contains_key(path) || kept.contains(path),
        &paused,
    );
    removal.diagnostic(config, severity, || {
        crate::prune::names(&previous.bindings, previous.format.unwrap_or_default())
    })
}

/// The unread previous files a render compares or copies: those of paused
/// clusters and held applications (`frozen`, per cluster), and every file
/// it writes anew.
fn compared_files(
    plan: &Plan,
    rendered: &emit::render::Rendered,
    previous: &PreviousRender,
    frozen: &BTreeMap<String, Vec<String>>,
) -> Vec<String> {
    let mut wanted = Vec::new();
    for (cluster, files) in plan.clusters.iter().zip(&rendered.clusters) {
        if cluster.paused {
            wanted.extend(previous.unread_in(&cluster.name).cloned());
            continue;
        }
        let written = files
            .objects
            .iter()
            .chain(&files.shadow)
            .filter(|o| o.bytes.is_some())
            .map(|o| o.path.clone());
        let frozen = frozen.get(&cluster.name).into_iter().flatten().cloned();
        let kustomization = std::iter::once(layout::KUSTOMIZATION.to_string());
        wanted.extend(
            written
                .chain(frozen)
                .chain(kustomization)
                .map(|p| layout::in_cluster(&cluster.name, &p))
                .filter(|p| previous.unread.contains(p)),
        );
    }
    wanted.sort();
    wanted.dedup();
    wanted
}

impl Outcome {
    /// Whether the new render equals the previous one, provenance files
    /// aside ([`unchanged`]).
    pub fn unchanged(&self) -> bool {
        unchanged(
            &self.previous.files,
            &self.previous.unread,
            &self.tree,
            &self.kept,
        )
    }

    /// The per-cluster summary of this render against the stored one.
    pub fn summary(&self) -> crate::report::Summary {
        crate::report::Summary::new(
            &self.plan,
            &self.previous,
            &self.tree,
            &self.kept,
            &self.shadow,
            self.format,
        )
    }

    /// What the store needs of this render to store it.
    pub fn into_rendered(self) -> Rendered {
        Rendered {
            summary: self.summary(),
            unchanged: self.unchanged(),
            tree: self.tree,
            kept: self.kept,
            format: self.format,
            previous: self.previous.files,
            unread: self.previous.unread,
        }
    }
}

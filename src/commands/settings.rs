//! The command line resolved into plain data, once, before any IO: what
//! each command is asked to do. `cli` holds what the user typed (clap's
//! structs); the commands read only these settings, never a raw flag, so
//! which flags combine into which behaviour is decided here alone (the
//! shape of ripgrep's `LowArgs` → `HiArgs` and uv's `Settings::resolve`).

use crate::cli::{self, Cli, Command};
use crate::model::layout::Format;
pub use crate::store::Location;
use std::path::PathBuf;

/// What the command line asks for.
pub enum Settings {
    Render(RenderSettings),
    Diff(DiffSettings),
    Check(CompareSettings),
    Explain(ExplainSettings),
    Report(ReportSettings),
    Manifests(ManifestsSettings),
    Validate(RepoSettings),
    Import(ImportSettings),
    Verify(VerifySettings),
    Completions(clap_complete::Shell),
    /// The page of this command, or garrison(1).
    Man(Option<String>),
}

impl Settings {
    /// The settings `cli` asks for. clap has checked what it can (required
    /// and conflicting flags); what is left is choosing, and naming the choice.
    pub fn resolve(cli: &Cli) -> Settings {
        let strict = cli.strict;
        match &cli.command {
            Command::Render(args) => Settings::Render(RenderSettings::resolve(args, strict)),
            Command::Diff(args) => Settings::Diff(DiffSettings {
                compare: CompareSettings::resolve(&args.stored, strict),
                exit_code: args.exit_code,
            }),
            Command::Check(args) => Settings::Check(CompareSettings::resolve(args, strict)),
            Command::Explain(args) => Settings::Explain(ExplainSettings {
                repo: RepoSettings::resolve(&args.repo, strict),
                stored: optional_location(&args.out, &args.branch),
                object: args.object.clone(),
                name: args.name.clone(),
                namespace: args.namespace.clone(),
            }),
            Command::Report(args) => Settings::Report(ReportSettings {
                compare: CompareSettings::resolve(&args.stored, strict),
                html: args.html.clone(),
                works: args.works.clone(),
            }),
            Command::Manifests(args) => Settings::Manifests(ManifestsSettings {
                repo: RepoSettings::resolve(&args.repo, strict),
                stored: optional_location(&args.out, &args.branch),
                format: args.format.map(Into::into),
                cluster: args.cluster.clone(),
            }),
            Command::Validate(args) => Settings::Validate(RepoSettings {
                writes_cache: false,
                ..RepoSettings::resolve(args, strict)
            }),
            Command::Import(args) => Settings::Import(ImportSettings {
                repo: args.repo.clone(),
                exports: args.exports.clone(),
            }),
            Command::Verify(args) => Settings::Verify(VerifySettings {
                repo: RepoSettings {
                    writes_cache: false,
                    ..RepoSettings::resolve(&args.repo, strict)
                },
                works: args.works.clone(),
            }),
            Command::Completions { shell } => Settings::Completions(*shell),
            Command::Man { command } => Settings::Man(command.clone()),
        }
    }

    /// The source repository the command reads, if it reads one.
    pub fn repo(&self) -> Option<&RepoSettings> {
        match self {
            Settings::Render(settings) => Some(&settings.repo),
            Settings::Diff(settings) => Some(&settings.compare.repo),
            Settings::Check(settings) => Some(&settings.repo),
            Settings::Explain(settings) => Some(&settings.repo),
            Settings::Report(settings) => Some(&settings.compare.repo),
            Settings::Manifests(settings) => Some(&settings.repo),
            Settings::Validate(repo) => Some(repo),
            Settings::Verify(settings) => Some(&settings.repo),
            // The repository `import` writes does not exist yet.
            Settings::Import(_) | Settings::Completions(_) | Settings::Man(_) => None,
        }
    }
}

/// `garrison import`: the export files, and the repository to write.
pub struct ImportSettings {
    pub repo: PathBuf,
    pub exports: Vec<PathBuf>,
}

/// `garrison verify`: the repository, and the exported Works it is compared with.
pub struct VerifySettings {
    pub repo: RepoSettings,
    pub works: Vec<PathBuf>,
}

/// The source repository: where it is, how it is read and how strictly
/// its warnings are taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepoSettings {
    /// The repository as given (`--repo`).
    pub root: PathBuf,
    /// The parse cache's directory, or `None` when caching is off.
    pub cache: Option<PathBuf>,
    /// `--strict`: warnings refuse the command like errors.
    pub strict: bool,
    /// Whether the run may write the parse cache back: every command but
    /// `validate`, which writes nothing.
    pub writes_cache: bool,
}

impl RepoSettings {
    fn resolve(args: &cli::RepoArgs, strict: bool) -> RepoSettings {
        RepoSettings {
            root: args.repo.clone(),
            cache: args.cache(),
            strict,
            writes_cache: true,
        }
    }
}

/// The stored render `--out` or `--branch` names (`out` when neither).
fn location(args: &cli::StoredRender) -> Location {
    match (&args.out, &args.branch) {
        (_, Some(branch)) => Location::Branch(branch.clone()),
        (Some(out), None) => Location::Dir(out.clone()),
        (None, None) => Location::Dir(PathBuf::from("out")),
    }
}

/// The stored render named by an optional `--out` or `--branch`.
fn optional_location(out: &Option<PathBuf>, branch: &Option<String>) -> Option<Location> {
    match (out, branch) {
        (_, Some(branch)) => Some(Location::Branch(branch.clone())),
        (Some(out), None) => Some(Location::Dir(out.clone())),
        (None, None) => None,
    }
}

/// `garrison render`.
#[derive(Debug, PartialEq, Eq)]
pub struct RenderSettings {
    pub repo: RepoSettings,
    pub mode: Mode,
    pub format: Format,
    /// Keep the previous files of applications whose inputs did not
    /// change (off with `--rebuild`).
    pub reuse: bool,
    /// What to do about a render that removes most of the previous one,
    /// or an application that vanishes.
    pub guards: Guards,
    /// `--allow-dirty`: a branch render may render a working tree with
    /// uncommitted changes, and records it.
    pub allow_dirty: bool,
    pub verbosity: Verbosity,
    /// Where to append the Markdown summary (`--step-summary`).
    pub step_summary: Option<PathBuf>,
    /// Where to append the `key=value` outputs (`--github-output`).
    pub github_output: Option<PathBuf>,
}

impl RenderSettings {
    fn resolve(args: &cli::RenderArgs, strict: bool) -> RenderSettings {
        let stored = location(&args.target);
        let mode = if let (Some((index, count)), Some(dir)) = (args.shard, &args.shard_dir) {
            Mode::Shard {
                index,
                count,
                dir: dir.clone(),
                base: stored,
            }
        } else if !args.merge_shards.is_empty() {
            Mode::Merge {
                shards: args.merge_shards.clone(),
                into: stored,
            }
        } else {
            match stored {
                Location::Dir(out) => Mode::Directory(out),
                Location::Branch(branch) => Mode::Branch(branch),
            }
        };
        RenderSettings {
            repo: RepoSettings::resolve(&args.repo, strict),
            mode,
            format: args.format.into(),
            reuse: !args.rebuild,
            guards: Guards {
                mass_prune: if args.allow_mass_prune {
                    Prune::Allow
                } else {
                    Prune::Refuse
                },
                vanish: if args.allow_vanish {
                    Prune::Allow
                } else {
                    Prune::Refuse
                },
            },
            allow_dirty: args.allow_dirty,
            verbosity: match (args.quiet, args.verbose) {
                (true, _) => Verbosity::Quiet,
                (false, true) => Verbosity::Verbose,
                (false, false) => Verbosity::Normal,
            },
            step_summary: args.step_summary.clone(),
            github_output: args.github_output.clone(),
        }
    }
}

/// What `render` does with the new render.
#[derive(Debug, PartialEq, Eq)]
pub enum Mode {
    /// Swap it into this directory (`--out`).
    Directory(PathBuf),
    /// Commit it to this branch of the source repository (`--branch`).
    Branch(String),
    /// Render only shard `index` of `count` into `dir`, against the render
    /// stored at `base` (`--shard`, `--shard-dir`).
    Shard {
        index: usize,
        count: usize,
        dir: PathBuf,
        base: Location,
    },
    /// Combine the directories `shards` written by shard renders, and
    /// store the result at `into` (`--merge-shards`).
    Merge {
        shards: Vec<PathBuf>,
        into: Location,
    },
}

/// How much a render prints on stdout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verbosity {
    /// Nothing but errors (`--quiet`).
    Quiet,
    /// The summary.
    Normal,
    /// The summary, then where every application goes (`--verbose`).
    Verbose,
}

/// What a command does about a removal one of SPEC §10's guards catches:
/// a render that would remove most of the previous one ([`crate::prune`]),
/// an application that would vanish ([`crate::vanish`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prune {
    /// Refuse it (error G0603, G0604): a render about to be stored.
    Refuse,
    /// Say so (a warning): a command that shows what a render would do.
    Warn,
    /// Do not look: `--allow-mass-prune`, `--allow-vanish`, or nothing is
    /// stored from this run.
    Allow,
}

/// What a command does about each of SPEC §10's removal guards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guards {
    /// A render removing most of the previous one (G0603).
    pub mass_prune: Prune,
    /// An application the previous render delivered reaching no cluster (G0604).
    pub vanish: Prune,
}

impl Guards {
    /// Both said, neither refused: a command that shows what a render would do.
    pub const WARN: Guards = Guards {
        mass_prune: Prune::Warn,
        vanish: Prune::Warn,
    };
    /// Neither looked at: nothing is stored from this run, or another run judges it.
    pub const ALLOW: Guards = Guards {
        mass_prune: Prune::Allow,
        vanish: Prune::Allow,
    };
}

/// `garrison check`, and what `diff` compares.
pub struct CompareSettings {
    pub repo: RepoSettings,
    /// The render compared with; it must exist.
    pub stored: Location,
    /// The output format; `None` takes the stored render's.
    pub format: Option<Format>,
}

impl CompareSettings {
    fn resolve(args: &cli::StoredArgs, strict: bool) -> CompareSettings {
        CompareSettings {
            repo: RepoSettings::resolve(&args.repo, strict),
            stored: location(&args.stored),
            format: args.format.map(Into::into),
        }
    }
}

/// `garrison diff`.
pub struct DiffSettings {
    pub compare: CompareSettings,
    /// `--exit-code`: changes make the exit status 1.
    pub exit_code: bool,
}

/// `garrison report`.
pub struct ReportSettings {
    /// What the plan is compared with, as for `diff`.
    pub compare: CompareSettings,
    /// Where the page is written (`--html`).
    pub html: PathBuf,
    /// A Karmada control plane's Works to compare the render with (`--works`).
    pub works: Vec<PathBuf>,
}

/// `garrison explain`.
pub struct ExplainSettings {
    pub repo: RepoSettings,
    /// The stored render, if one is named (stickiness, pauses and the
    /// scheduler's memory depend on it).
    pub stored: Option<Location>,
    /// The application, as typed: KIND/NAMESPACE/NAME, KIND/NAME or KIND.
    pub object: String,
    /// Its name, when `object` is the kind alone.
    pub name: Option<String>,
    /// `--namespace`.
    pub namespace: Option<String>,
}

/// `garrison manifests`.
pub struct ManifestsSettings {
    pub repo: RepoSettings,
    /// The stored render, if one is named, as for `explain`.
    pub stored: Option<Location>,
    /// The output format; `None` takes the stored render's.
    pub format: Option<Format>,
    /// The cluster whose manifests are printed, as typed.
    pub cluster: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    fn render(args: &[&str]) -> RenderSettings {
        let cli = match Cli::try_parse_from([&["garrison", "render"], args].concat()) {
            Ok(cli) => cli,
            Err(e) => panic!("{args:?}: {e}"),
        };
        match Settings::resolve(&cli) {
            Settings::Render(settings) => settings,
            _ => panic!("`render` resolves to render settings"),
        }
    }

    #[test]
    fn render_flags_resolve_to_one_mode() {
        assert_eq!(render(&["--out", "o"]).mode, Mode::Directory("o".into()));
        assert_eq!(render(&["--branch", "b"]).mode, Mode::Branch("b".into()));
        assert_eq!(
            render(&["--branch", "b", "--shard", "2/3", "--shard-dir", "s"]).mode,
            Mode::Shard {
                index: 2,
                count: 3,
                dir: "s".into(),
                base: Location::Branch("b".into()),
            }
        );
        assert_eq!(
            render(&["--out", "o", "--merge-shards", "s1", "s2"]).mode,
            Mode::Merge {
                shards: vec!["s1".into(), "s2".into()],
                into: Location::Dir("o".into()),
            }
        );
    }

    #[test]
    fn render_flags_resolve_to_plain_settings() {
        let plain = render(&["--out", "o"]);
        assert_eq!(
            (
                plain.reuse,
                plain.guards,
                plain.verbosity,
                plain.allow_dirty
            ),
            (
                true,
                Guards {
                    mass_prune: Prune::Refuse,
                    vanish: Prune::Refuse
                },
                Verbosity::Normal,
                false
            )
        );
        let flagged = render(&[
            "--branch",
            "b",
            "--rebuild",
            "--allow-mass-prune",
            "--allow-vanish",
            "--allow-dirty",
            "-v",
            "--format",
            "work",
        ]);
        assert_eq!(
            (
                flagged.reuse,
                flagged.guards,
                flagged.verbosity,
                flagged.allow_dirty,
                flagged.format
            ),
            (false, Guards::ALLOW, Verbosity::Verbose, true, Format::Work)
        );
        assert_eq!(render(&["--out", "o", "-q"]).verbosity, Verbosity::Quiet);
    }

    #[test]
    fn no_cache_wins_over_a_cache_directory() {
        let cached = render(&["--out", "o", "--repo", "r", "--cache-dir", "c"]);
        assert_eq!(cached.repo.cache, Some(PathBuf::from("c")));
        let off = render(&["--out", "o", "--cache-dir", "c", "--no-cache"]);
        assert_eq!(off.repo.cache, None);
    }
}

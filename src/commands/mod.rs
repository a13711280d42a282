//! One module per subcommand; the only code that sequences IO.
//!
//! The command line is resolved once into [`settings`] (plain data, no
//! IO); each command reads only those. Every command that renders runs
//! [`pipeline`] with a [`pipeline::Request`]; `render` stores the result
//! through [`crate::store`], which also reads the stored render for every
//! other command. Everything printed goes through the one
//! [`printer::Printer`]. The modules depend on each other in one
//! direction: `render` → `shard` → `pipeline` → `settings`, `printer`.

mod check;
mod diff;
mod explain;
mod import;
mod man;
mod manifests;
mod pipeline;
mod printer;
mod render;
mod report;
mod settings;
mod shard;
mod validate;
mod verify;

use crate::cli::Cli;
use crate::diag::{Diagnostics, Sources};
use printer::Printer;
use settings::Settings;

/// How a command ended, mapped to the process exit code in one place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// Done, nothing to report.
    Success,
    /// Done, and the answer is "changes" or "stale".
    Changes,
    /// Input errors or a failure: nothing was written.
    Error,
}

impl ExitStatus {
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Changes => 1,
            ExitStatus::Error => 2,
        }
    }
}

/// Why a command ended before its last step.
#[derive(Debug)]
enum Stop {
    /// With this status, everything the user needs to know printed already:
    /// refused input, a dirty working tree, nothing to do.
    Exit(ExitStatus),
    /// A failure (IO, git), printed by [`run`] as `garrison: error: …`.
    Failed(anyhow::Error),
}

// `?` on any error a command meets: it becomes a failure. (`Stop` is no
// `std::error::Error` itself, so this does not overlap `From<T> for T`.)
impl<E: Into<anyhow::Error>> From<E> for Stop {
    fn from(error: E) -> Stop {
        Stop::Failed(error.into())
    }
}

/// Run the parsed command line; what went wrong is printed.
pub fn run(cli: &Cli) -> ExitStatus {
    let settings = Settings::resolve(cli);
    let mut printer = Printer::new(cli);
    if let (true, Some(repo)) = (printer.annotates(), settings.repo()) {
        printer = printer.annotating_under(annotation_prefix(&repo.root));
    }
    let status = match execute(&settings, &printer) {
        Ok(status) | Err(Stop::Exit(status)) => status,
        Err(Stop::Failed(error)) => {
            printer.error(format_args!("{error:#}"));
            ExitStatus::Error
        }
    };
    // With `--json`, a command that failed says so in JSON too: what it
    // printed on stderr, in the shape `validate --json` prints.
    if printer.json() && status == ExitStatus::Error && !printer.printed() {
        let _ = printer.out_json(&printer.report(false));
    }
    status
}

/// The path of `repo` that GitHub annotations put before a file's path in
/// the repository: from the root of the git work tree holding it, where a
/// workflow checks it out, or else from the current directory (`""` when
/// it is neither below, nor given as a relative path).
fn annotation_prefix(repo: &std::path::Path) -> String {
    if let Some(path) = crate::store::branch::path_in_work_tree(repo) {
        return path;
    }
    let from_cwd = std::env::current_dir()
        .ok()
        .and_then(|cwd| cwd.canonicalize().ok())
        .and_then(|cwd| {
            let repo = repo.canonicalize().ok()?;
            Some(repo.strip_prefix(cwd).ok()?.to_path_buf())
        });
    match from_cwd {
        Some(path) => path.to_string_lossy().replace('\\', "/"),
        None if repo.is_relative() => repo.to_string_lossy().replace('\\', "/"),
        None => String::new(),
    }
}

fn execute(settings: &Settings, printer: &Printer) -> Result<ExitStatus, Stop> {
    if let Some(Err(diagnostic)) = settings
        .repo()
        .map(|repo| crate::load::repository_root(&repo.root))
    {
        printer.diagnostics(&Diagnostics(vec![diagnostic]), &Sources::default());
        return Ok(ExitStatus::Error);
    }
    match settings {
        Settings::Render(settings) => render::run(settings, printer),
        Settings::Diff(settings) => diff::run(settings, printer),
        Settings::Check(settings) => check::run(settings, printer),
        Settings::Explain(settings) => explain::run(settings, printer),
        Settings::Report(settings) => report::run(settings, printer),
        Settings::Manifests(settings) => manifests::run(settings, printer),
        Settings::Validate(repo) => validate::run(repo, printer),
        Settings::Import(settings) => import::run(settings, printer),
        Settings::Verify(settings) => verify::run(settings, printer),
        Settings::Completions(shell) => {
            let mut command = crate::cli::command();
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut command, "garrison", &mut script);
            printer.out(String::from_utf8_lossy(&script));
            Ok(ExitStatus::Success)
        }
        Settings::Man(command) => {
            printer.out(man::page(command.as_deref())?);
            Ok(ExitStatus::Success)
        }
    }
}

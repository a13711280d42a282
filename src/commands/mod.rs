//! One module per subcommand; the only code that sequences IO.

mod check;
mod diff;
mod explain;
mod pipeline;
mod provenance;
mod render;
mod shard;
mod stored;
mod validate;

use crate::cli::{Cli, ColorChoice, Command, DiagnosticFormat};
use crate::diag::{self, Diagnostics, Sources, Style};
use std::io::IsTerminal;

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

/// Run the parsed command line.
pub fn run(cli: &Cli) -> anyhow::Result<ExitStatus> {
    let printer = Printer::new(cli);
    let repo = match &cli.command {
        Command::Render(args) => Some(&args.repo),
        Command::Diff(args) => Some(&args.stored.repo),
        Command::Check(args) => Some(&args.repo),
        Command::Explain(args) => Some(&args.repo),
        Command::Validate(args) => Some(args),
        Command::Completions { .. } | Command::Man => None,
    };
    if let Some(Err(diagnostic)) = repo.map(|r| crate::load::repository_root(&r.repo)) {
        printer.diagnostics(&Diagnostics(vec![diagnostic]), &Sources::default());
        return Ok(ExitStatus::Error);
    }
    match &cli.command {
        Command::Render(args) => render::run(args, &printer),
        Command::Diff(args) => diff::run(args, &printer),
        Command::Check(args) => check::run(args, &printer),
        Command::Explain(args) => explain::run(args, &printer),
        Command::Validate(args) => validate::run(args, &printer),
        Command::Completions { shell } => {
            let mut command = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(*shell, &mut command, "garrison", &mut std::io::stdout());
            Ok(ExitStatus::Success)
        }
        Command::Man => {
            let command = <Cli as clap::CommandFactory>::command();
            clap_mangen::Man::new(command).render(&mut std::io::stdout())?;
            Ok(ExitStatus::Success)
        }
    }
}

/// Where human output goes, how it looks, and how strictly warnings are taken.
pub struct Printer {
    style: Style,
    /// ANSI colour on stdout.
    pub color: bool,
    /// JSON on stdout instead of text.
    pub json: bool,
    /// A spinner on stderr while a render works.
    progress: bool,
    /// `--strict`: warnings refuse the command like errors.
    pub strict: bool,
}

impl Printer {
    fn new(cli: &Cli) -> Printer {
        let auto = |terminal: bool| terminal && std::env::var_os("NO_COLOR").is_none();
        let (color, stdout_color) = match cli.color {
            ColorChoice::Always => (true, true),
            ColorChoice::Never => (false, false),
            ColorChoice::Auto => (
                auto(std::io::stderr().is_terminal()),
                auto(std::io::stdout().is_terminal()),
            ),
        };
        let style = match cli.diagnostics {
            DiagnosticFormat::Full if color => Style::Color,
            DiagnosticFormat::Full => Style::Plain,
            DiagnosticFormat::Concise => Style::Concise,
            DiagnosticFormat::Github => Style::Github,
        };
        let interactive = std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
        Printer {
            style,
            color: stdout_color && !cli.json,
            json: cli.json,
            progress: cli.progress || interactive,
            strict: cli.strict,
        }
    }

    /// A spinner naming the current stage; hidden unless progress is wanted.
    pub fn spinner(&self) -> indicatif::ProgressBar {
        if !self.progress {
            return indicatif::ProgressBar::hidden();
        }
        let bar =
            indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        bar
    }

    /// Print a render summary as text or JSON (`quiet` prints nothing).
    pub fn summary(&self, summary: &crate::report::Summary, quiet: bool) {
        if quiet {
            return;
        }
        if self.json {
            println!(
                "{}",
                serde_json::to_string_pretty(summary).unwrap_or_default()
            );
        } else {
            print!("{}", summary.to_text());
        }
    }

    /// Print diagnostics to stderr, then a count line when there are errors.
    pub fn diagnostics(&self, diagnostics: &Diagnostics, sources: &Sources) {
        if diagnostics.0.is_empty() {
            return;
        }
        let sorted = diagnostics.clone().sorted();
        eprint!("{}", diag::render(&sorted, sources, self.style));
        if sorted.has_errors() {
            eprintln!(
                "garrison: {} error(s), {} warning(s); nothing was written",
                sorted.errors(),
                sorted.warnings()
            );
        }
    }
}

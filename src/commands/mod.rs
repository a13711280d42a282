//! One module per subcommand; the only code that sequences IO.

mod render;
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
    match &cli.command {
        Command::Render(args) => render::run(args, &printer),
        Command::Validate(args) => validate::run(args, &printer),
    }
}

/// Where human output goes, and how it looks.
pub struct Printer {
    style: Style,
}

impl Printer {
    fn new(cli: &Cli) -> Printer {
        let color = match cli.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
            }
        };
        let style = match cli.diagnostics {
            DiagnosticFormat::Full if color => Style::Color,
            DiagnosticFormat::Full => Style::Plain,
            DiagnosticFormat::Concise => Style::Concise,
            DiagnosticFormat::Github => Style::Github,
        };
        Printer { style }
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

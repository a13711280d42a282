//! The one way output leaves garrison: every line a command prints, on
//! stdout (summaries, diffs, explanations, JSON) or stderr (diagnostics,
//! errors, notices, the spinner), goes through a [`Printer`]. It knows
//! how output should look (colour, JSON, diagnostic style, progress), so
//! the commands do not. `print_stdout` and `print_stderr` are denied
//! crate-wide (`Cargo.toml`); only its private `stdout` and `stderr`
//! methods may use the print macros.

use crate::cli::{Cli, ColorChoice, DiagnosticFormat};
use crate::diag::{self, Diagnostics, Sources, Style};
use crate::report::{Summary, Tense};
use std::fmt::{self, Display};
use std::io::IsTerminal;

/// Where output goes and how it looks.
pub struct Printer {
    /// How diagnostics are drawn on stderr.
    style: Style,
    /// ANSI colour on stdout.
    color: bool,
    /// JSON on stdout instead of text.
    json: bool,
    /// A spinner on stderr while a render works.
    progress: bool,
    /// The path the files of GitHub annotations are under ([`Printer::annotating_under`]).
    annotation_prefix: String,
}

impl Printer {
    /// The printer the global flags ask for, given where stdout and stderr
    /// go (`--color auto` and the spinner only colour or draw on a
    /// terminal) and the environment (`NO_COLOR`, `CI`).
    pub fn new(cli: &Cli) -> Printer {
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
            annotation_prefix: String::new(),
        }
    }

    /// This printer with GitHub annotations naming files under `prefix`:
    /// the repository's path from the root of its checkout.
    pub fn annotating_under(mut self, prefix: String) -> Printer {
        self.annotation_prefix = prefix;
        self
    }

    /// Whether diagnostics are GitHub annotations.
    pub fn annotates(&self) -> bool {
        self.style == Style::Github
    }

    /// Whether stdout is JSON (`--json`) rather than text.
    pub fn json(&self) -> bool {
        self.json
    }

    /// Whether text on stdout may hold ANSI colour.
    pub fn color(&self) -> bool {
        self.color
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

    /// Text on stdout, as it is.
    pub fn out(&self, text: impl Display) {
        self.stdout(format_args!("{text}"));
    }

    /// `value` as pretty JSON on stdout, then a newline.
    pub fn out_json(&self, value: &impl serde::Serialize) -> anyhow::Result<()> {
        let text = serde_json::to_string_pretty(value)?;
        self.stdout(format_args!("{text}\n"));
        Ok(())
    }

    /// The summary of a render that was stored, as text or JSON; nothing
    /// when `quiet`.
    pub fn summary(&self, summary: &Summary, quiet: bool) -> anyhow::Result<()> {
        if quiet {
            return Ok(());
        }
        if self.json {
            self.out_json(summary)
        } else {
            self.out(summary.to_text(Tense::Done));
            Ok(())
        }
    }

    /// Diagnostics on stderr, then a count line when there are errors.
    pub fn diagnostics(&self, diagnostics: &Diagnostics, sources: &Sources) {
        if diagnostics.0.is_empty() {
            return;
        }
        let sorted = diagnostics.clone().sorted();
        self.stderr(format_args!(
            "{}",
            diag::render_under(&sorted, sources, self.style, &self.annotation_prefix)
        ));
        if sorted.has_errors() {
            self.stderr(format_args!(
                "garrison: {} error(s), {} warning(s); nothing was written\n",
                sorted.errors(),
                sorted.warnings()
            ));
        }
    }

    /// A failure that ends the command, on stderr: `garrison: error: …`.
    pub fn error(&self, error: impl Display) {
        self.stderr(format_args!("garrison: error: {error}\n"));
    }

    /// What the user should know beside the output, on stderr:
    /// `garrison: …` (a retry, why nothing was done, why nothing was found).
    pub fn notice(&self, text: impl Display) {
        self.stderr(format_args!("garrison: {text}\n"));
    }

    // Every byte garrison prints on stdout passes here.
    #[allow(clippy::print_stdout)]
    fn stdout(&self, text: fmt::Arguments<'_>) {
        print!("{text}");
    }

    // Every byte garrison prints on stderr passes here, the spinner's aside
    // (indicatif draws it).
    #[allow(clippy::print_stderr)]
    fn stderr(&self, text: fmt::Arguments<'_>) {
        eprint!("{text}");
    }
}

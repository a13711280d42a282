//! The one way output leaves garrison: every line a command prints, on
//! stdout (summaries, diffs, explanations, JSON) or stderr (diagnostics,
//! errors, notices, the spinner), goes through a [`Printer`]. It knows
//! how output should look (colour, JSON, diagnostic style, progress), so
//! the commands do not. `print_stdout` and `print_stderr` are denied
//! crate-wide (`Cargo.toml`); only its private `stdout` and `stderr`
//! methods may use the print macros.

use crate::cli::{Cli, ColorChoice, DiagnosticFormat};
use crate::diag::{self, Code, Diagnostics, Sources, Style};
use crate::report::{Summary, Tense};
use std::collections::BTreeMap;
use std::fmt::{self, Display};
use std::io::IsTerminal;
use std::sync::Mutex;

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
    /// With `--json`, what the JSON report ([`Printer::report`]) gathers.
    reported: Mutex<Reported>,
    /// The spinner drawn now, if one is: erased before anything is printed.
    spinning: Mutex<Option<indicatif::WeakProgressBar>>,
}

/// A spinner on stderr naming the stage a command is in. It never stays on
/// screen: it is erased when the printer prints anything (a diagnostic, an
/// error, a summary, on either stream), and when it is dropped, however the
/// command ends; a last frame left above the errors would read as a stage
/// still running.
pub struct Spinner(indicatif::ProgressBar);

impl Spinner {
    /// Name the stage now running.
    pub fn set_message(&self, message: impl Into<std::borrow::Cow<'static, str>>) {
        self.0.set_message(message);
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

/// The diagnostics and failures printed on stderr, and whether anything
/// went to stdout, for the JSON report.
#[derive(Default)]
struct Reported {
    diagnostics: Vec<serde_json::Value>,
    errors: usize,
    warnings: usize,
    failure: Option<String>,
    stdout: bool,
    /// How many diagnostics of each code were reported, shown or not.
    codes: BTreeMap<Code, usize>,
}

/// How many diagnostics of one code are drawn as text; the rest are
/// counted. A directory of many fleets can have a thousand errors of a
/// few codes, and the first ones of each say what the others say.
const SHOWN_PER_CODE: usize = 10;

/// `diagnostics` with at most [`SHOWN_PER_CODE`] of each code, in order,
/// and how many of each code were left out.
fn capped(diagnostics: &Diagnostics) -> (Diagnostics, BTreeMap<Code, usize>) {
    let mut seen: BTreeMap<Code, usize> = BTreeMap::new();
    let mut left: BTreeMap<Code, usize> = BTreeMap::new();
    let mut shown = Vec::new();
    for diagnostic in &diagnostics.0 {
        let count = seen.entry(diagnostic.code).or_default();
        *count += 1;
        if *count > SHOWN_PER_CODE {
            *left.entry(diagnostic.code).or_default() += 1;
        } else {
            shown.push(diagnostic.clone());
        }
    }
    (Diagnostics(shown), left)
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
            reported: Mutex::default(),
            spinning: Mutex::default(),
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
    /// It is erased before the next thing this printer prints.
    pub fn spinner(&self) -> Spinner {
        if !self.progress {
            return Spinner(indicatif::ProgressBar::hidden());
        }
        let bar =
            indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr())
                .with_finish(indicatif::ProgressFinish::AndClear);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        self.clear_spinner();
        *self.spinning.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar.downgrade());
        Spinner(bar)
    }

    /// Erase the spinner drawn now, if one is, for good: what is printed
    /// next must not follow a frame of it on the same line, nor be drawn over.
    fn clear_spinner(&self) {
        let spinning = self
            .spinning
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(bar) = spinning.and_then(|weak| weak.upgrade()) {
            bar.finish_and_clear();
        }
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
        self.gather(|reported| {
            for diagnostic in &sorted.0 {
                *reported.codes.entry(diagnostic.code).or_default() += 1;
            }
        });
        if self.json {
            self.gather(|reported| {
                for diagnostic in &sorted.0 {
                    let value = diagnostic.to_json(sources);
                    if !reported.diagnostics.contains(&value) {
                        reported.diagnostics.push(value);
                        if diagnostic.is_error() {
                            reported.errors += 1;
                        } else {
                            reported.warnings += 1;
                        }
                    }
                }
            });
        }
        // Annotations are all kept: GitHub shows each on its own line of the file.
        let (shown, left) = if self.style == Style::Github {
            (sorted.clone(), BTreeMap::new())
        } else {
            capped(&sorted)
        };
        self.stderr(format_args!(
            "{}",
            diag::render_under(&shown, sources, self.style, &self.annotation_prefix)
        ));
        for (code, count) in &left {
            self.stderr(format_args!(
                "garrison: and {count} more {} ({}), not shown; --json or --diagnostics github lists every one\n",
                code.code(),
                code.name()
            ));
        }
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
        let text = error.to_string();
        if self.json {
            self.gather(|reported| {
                reported.failure.get_or_insert_with(|| text.clone());
            });
        }
        self.stderr(format_args!("garrison: error: {text}\n"));
    }

    /// The JSON report of a command (`--json`): whether it did what was
    /// asked (`ok`), the diagnostics printed (as [`crate::diag::Diagnostic::to_json`])
    /// with their counts, and the failure that ended it, if one did
    /// (`failure`, else `null`). `validate` prints it, with what it read;
    /// every command that fails without printing JSON prints it instead.
    pub fn report(&self, ok: bool) -> serde_json::Map<String, serde_json::Value> {
        let reported = self.reported.lock().unwrap_or_else(|e| e.into_inner());
        let mut report = serde_json::Map::new();
        report.insert("ok".into(), ok.into());
        report.insert("errors".into(), reported.errors.into());
        report.insert("warnings".into(), reported.warnings.into());
        report.insert("diagnostics".into(), reported.diagnostics.clone().into());
        report.insert("failure".into(), reported.failure.clone().into());
        report
    }

    /// How many diagnostics of `code` were reported so far, shown or not.
    pub fn reported(&self, code: Code) -> usize {
        self.reported
            .lock()
            .map(|r| r.codes.get(&code).copied().unwrap_or(0))
            .unwrap_or(0)
    }

    /// Whether anything was printed on stdout.
    pub fn printed(&self) -> bool {
        self.reported.lock().map(|r| r.stdout).unwrap_or(true)
    }

    fn gather(&self, add: impl FnOnce(&mut Reported)) {
        let mut reported = self.reported.lock().unwrap_or_else(|e| e.into_inner());
        add(&mut reported);
    }

    /// What the user should know beside the output, on stderr:
    /// `garrison: …` (a retry, why nothing was done, why nothing was found).
    pub fn notice(&self, text: impl Display) {
        self.stderr(format_args!("garrison: {text}\n"));
    }

    // Every byte garrison prints on stdout passes here.
    #[allow(clippy::print_stdout)]
    fn stdout(&self, text: fmt::Arguments<'_>) {
        self.clear_spinner();
        self.gather(|reported| reported.stdout = true);
        print!("{text}");
    }

    // Every byte garrison prints on stderr passes here, the spinner's aside
    // (indicatif draws it, and it is erased first).
    #[allow(clippy::print_stderr)]
    fn stderr(&self, text: fmt::Arguments<'_>) {
        self.clear_spinner();
        eprint!("{text}");
    }
}

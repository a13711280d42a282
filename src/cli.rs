//! The command line, as the user types it (clap derive). No IO here.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "garrison",
    version,
    about = "Offline GitOps renderer for Kubernetes fleets, with Karmada's scheduling semantics"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// When to colour output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,
    /// How to print input errors and warnings.
    #[arg(long, value_enum, default_value_t = DiagnosticFormat::Full, global = true)]
    pub diagnostics: DiagnosticFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DiagnosticFormat {
    /// The source line with a caret.
    Full,
    /// One line each.
    Concise,
    /// GitHub Actions annotations.
    Github,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// One plain manifest per object.
    #[default]
    Manifests,
    /// Karmada `Work` objects, one per object and cluster.
    Work,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Render every cluster's manifests into an output directory.
    ///
    /// Example: garrison render --repo testdata/fleet/repo --out out
    Render(RenderArgs),
    /// Parse and check every input; render nothing.
    ///
    /// Example: garrison validate --repo testdata/fleet/repo
    Validate(RepoArgs),
}

#[derive(Debug, Args)]
pub struct RepoArgs {
    /// The source repository.
    #[arg(long, default_value = ".")]
    pub repo: PathBuf,
}

#[derive(Debug, Args)]
pub struct RenderArgs {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The output directory; what it holds is the previous render.
    #[arg(long)]
    pub out: PathBuf,
    /// What to write for each object.
    #[arg(long, value_enum, default_value_t = OutputFormat::Manifests)]
    pub format: OutputFormat,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

//! The command line, as the user types it (clap derive). No IO here.

use crate::model::layout::Format;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "garrison",
    // The package version, and the commit it was built from (`src/build.rs`).
    version = env!("GARRISON_VERSION"),
    about = "Offline GitOps renderer for Kubernetes fleets, with Karmada's scheduling semantics",
    after_help = "Start with: garrison validate --repo FLEET, then garrison render --repo FLEET --out out\n(FLEET: a folder of Kubernetes objects, Karmada or Clusternet policies and clusters)"
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
    /// Print machine-readable JSON on stdout instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// Show progress on stderr even when it is not a terminal or `CI` is set.
    #[arg(long, global = true)]
    pub progress: bool,
    /// Refuse on any warning, as on an error (warnings a `relax` rule of
    /// garrison.yaml made on purpose excepted).
    // The variable is off when empty, `0`, `false`, `no`, `off`; else on.
    #[arg(long, global = true, env = "GARRISON_STRICT", value_parser = clap::builder::FalseyValueParser::new())]
    pub strict: bool,
}

/// The global flags, which every command takes: `completions` and `man`
/// print a fixed text, so there none of them does anything.
const GLOBAL_FLAGS: [&str; 5] = ["color", "diagnostics", "json", "progress", "strict"];

/// The commands whose help, man page and completions leave the global flags out.
const FIXED_TEXT_COMMANDS: [&str; 2] = ["completions", "man"];

/// The command line as parsed, helped and completed: [`Cli`]'s.
pub fn command() -> clap::Command {
    with_flags_that_act(<Cli as clap::CommandFactory>::command())
}

/// `command` with the global flags hidden where they do nothing
/// ([`FIXED_TEXT_COMMANDS`]). They are still accepted there, so a script
/// passing `--color never` to every command keeps working. Each of those
/// commands gets a hidden copy of each flag, which clap then does not
/// propagate over.
pub fn with_flags_that_act(command: clap::Command) -> clap::Command {
    let hidden: Vec<clap::Arg> = command
        .get_arguments()
        .filter(|arg| GLOBAL_FLAGS.contains(&arg.get_id().as_str()))
        .map(|arg| arg.clone().hide(true))
        .collect();
    FIXED_TEXT_COMMANDS.iter().fold(command, |command, name| {
        command.mut_subcommand(name, |sub| sub.args(hidden.iter().cloned()))
    })
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

impl From<OutputFormat> for Format {
    fn from(format: OutputFormat) -> Format {
        match format {
            OutputFormat::Manifests => Format::Manifests,
            OutputFormat::Work => Format::Work,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Render every cluster's manifests into a directory (--out) or commit them to a branch (--branch).
    ///
    ///
    /// Example: garrison render --repo fleet --out out
    ///
    /// Example: garrison render --branch rendered
    Render(RenderArgs),
    /// Show what a render would change: a per-cluster summary, then a unified diff.
    ///
    /// Example: garrison diff --repo fleet --out out
    Diff(DiffArgs),
    /// Exit 0 when the stored render is current, 1 when it is stale.
    ///
    /// Example: garrison check --repo fleet --out out
    Check(StoredArgs),
    /// Trace one application: policy, clusters, replicas, fort, pauses, overrides.
    ///
    /// Example: garrison explain --repo fleet --out out Deployment/shop/storefront
    Explain(ExplainArgs),
    /// Draw the plan as one HTML page: what runs where, what changed, and why.
    ///
    /// A matrix of clusters × applications (replicas, forts, paused clusters, held-back changes,
    /// changes since the stored render, compared as `diff` compares them), filters by namespace,
    /// kind and cluster, and every application's explanation. The page is self-contained (no
    /// network), so it opens from a CI artifact. Nothing else is written.
    ///
    /// Example: garrison report --repo fleet --out out --html report.html
    Report(ReportArgs),
    /// Print one cluster's rendered manifests on stdout, as one YAML stream.
    ///
    /// The objects of `clusters/CLUSTER/` as `render` would write them, for a tool that reads
    /// manifests from a command's output (an Argo CD config management plugin).
    ///
    /// Example: garrison manifests --repo fleet eu-central-1
    Manifests(ManifestsArgs),
    /// Turn a Karmada control plane export into a garrison repository.
    ///
    /// Reads what `kubectl get -o yaml` (or `-o json`) prints on karmada-apiserver: Clusters,
    /// policies, interpreter customizations, taint policies, bindings and resource templates.
    /// Writes one file per object into --repo, which must be new or empty, without what the API
    /// server and Karmada's controllers set, and a garrison.yaml with what the export tells.
    /// Nothing is written when any object cannot be imported faithfully.
    ///
    /// Example: garrison import --repo fleet export.yaml
    Import(ImportArgs),
    /// Compare what the repository renders with the Works a Karmada control plane wrote.
    ///
    /// Per member cluster and object: what matches, what differs (a unified diff from Karmada's
    /// manifest to garrison's), what only one side delivers, with the reason where garrison
    /// knows it. Exits 0 only when every difference is explained. Writes nothing.
    ///
    /// Example: garrison verify --repo fleet --works works.yaml
    Verify(VerifyArgs),
    /// Parse and check every input; render nothing.
    ///
    /// Example: garrison validate --repo fleet
    Validate(RepoArgs),
    /// Print a shell completion script.
    ///
    /// Example: garrison completions bash > /etc/bash_completion.d/garrison
    Completions {
        /// The shell to complete for.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff): garrison(1), or with COMMAND that command's page.
    ///
    /// Example: garrison man | man -l -
    Man {
        /// The command whose page to print (garrison-COMMAND(1), which garrison(1) lists).
        command: Option<String>,
    },
}

#[derive(Debug, Args)]
pub struct RepoArgs {
    /// The source repository.
    #[arg(long, default_value = ".")]
    pub repo: PathBuf,
    /// Where parsed files are remembered between runs [default: `.garrison-cache` in the repository].
    #[arg(long, env = "GARRISON_CACHE_DIR", value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Parse every file again, reading and writing no cache (wins over `--cache-dir` and `GARRISON_CACHE_DIR`).
    #[arg(long)]
    pub no_cache: bool,
}

impl RepoArgs {
    /// The parse cache's directory, or `None` when caching is off.
    pub fn cache(&self) -> Option<PathBuf> {
        if self.no_cache {
            return None;
        }
        Some(match &self.cache_dir {
            Some(dir) => dir.clone(),
            None => self.repo.join(crate::load::cache::DEFAULT_DIR),
        })
    }
}

#[derive(Debug, Args)]
pub struct RenderArgs {
    #[command(flatten)]
    pub repo: RepoArgs,
    #[command(flatten)]
    pub target: StoredRender,
    /// Render a working tree whose tracked files have uncommitted changes, or
    /// whose input files are untracked (branch mode); the commit records it.
    #[arg(long, requires = "branch")]
    pub allow_dirty: bool,
    /// Let a render remove every object of the previous render, or more than
    /// the share `massPrune` in garrison.yaml allows (refused otherwise).
    #[arg(long)]
    pub allow_mass_prune: bool,
    /// Let a render stop delivering applications whose templates are still in the repository
    /// and whose policies still exist (refused otherwise: removing one takes deleting it or its
    /// policy, or listing it under `allowVanish` in garrison.yaml).
    #[arg(long)]
    pub allow_vanish: bool,
    /// Render every object again instead of keeping the previous files of
    /// applications whose inputs did not change; repairs hand-edited output.
    #[arg(long)]
    pub rebuild: bool,
    /// What to write for each object.
    #[arg(long, value_enum, default_value_t = OutputFormat::Manifests)]
    pub format: OutputFormat,
    /// Print nothing but errors.
    #[arg(long, short, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Also print where every application goes (clusters, replicas, fort, holds) and why it
    /// was rescheduled, if it was.
    #[arg(long, short)]
    pub verbose: bool,
    /// Render only shard K of N (1-based) of the fleet's clusters into --shard-dir, for a CI
    /// matrix; combine the shards with --merge-shards.
    #[arg(long, value_name = "K/N", value_parser = parse_shard, requires = "shard_dir")]
    pub shard: Option<(usize, usize)>,
    /// Where --shard writes its share of the render.
    #[arg(long, value_name = "DIR", requires = "shard")]
    pub shard_dir: Option<PathBuf>,
    /// Combine the directories written by --shard into one render, written to --out or
    /// committed to --branch.
    #[arg(long, value_name = "DIR", num_args = 1.., conflicts_with = "shard")]
    pub merge_shards: Vec<PathBuf>,
    /// Append a Markdown summary to this file (for `$GITHUB_STEP_SUMMARY`).
    #[arg(long, value_name = "PATH")]
    pub step_summary: Option<PathBuf>,
    /// Append `key=value` outputs to this file (for `$GITHUB_OUTPUT`): changed, commit,
    /// clusters-changed, objects-added, objects-changed, objects-removed, held-back, fort-moves.
    #[arg(long, value_name = "PATH")]
    pub github_output: Option<PathBuf>,
}

/// Where the stored (previous) render lives.
#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
pub struct StoredRender {
    /// A directory holding the render.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// A branch of `--repo` holding the render (committed without touching the working tree).
    #[arg(long)]
    pub branch: Option<String>,
}

#[derive(Debug, Args)]
pub struct StoredArgs {
    #[command(flatten)]
    pub repo: RepoArgs,
    #[command(flatten)]
    pub stored: StoredRender,
    /// Output format; by default the one the stored render was made with.
    #[arg(long, value_enum)]
    pub format: Option<OutputFormat>,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    #[command(flatten)]
    pub stored: StoredArgs,
    /// Exit 1 when there are changes.
    #[arg(long)]
    pub exit_code: bool,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub stored: StoredArgs,
    /// Where to write the page (replaced whole).
    #[arg(long, value_name = "FILE")]
    pub html: PathBuf,
    /// A Karmada control plane's Works (`kubectl get works -A -o yaml`): the
    /// page also shows, per cluster and object, what differs from what they
    /// deliver, as `verify` compares them.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub works: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The stored render (stickiness, pauses and the scheduler's memory depend on it).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// A branch of `--repo` holding the stored render.
    #[arg(long, conflicts_with = "out")]
    pub branch: Option<String>,
    /// The application: KIND/NAMESPACE/NAME, KIND/NAME (with --namespace,
    /// or cluster-scoped), or KIND NAME. KIND is a kind, its plural or its
    /// kubectl short name (deploy, svc, cm, sts, …), optionally with its
    /// group: Deployment.apps, deployments.v1.apps.
    pub object: String,
    /// The application's name, when KIND is given alone.
    pub name: Option<String>,
    /// The application's namespace [default: the one in OBJECT; without
    /// one, a cluster-scoped application, else `default`].
    #[arg(long, short)]
    pub namespace: Option<String>,
}

#[derive(Debug, Args)]
pub struct ManifestsArgs {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The stored render (stickiness, pauses and the scheduler's memory depend on it).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// A branch of `--repo` holding the stored render.
    #[arg(long, conflicts_with = "out")]
    pub branch: Option<String>,
    /// What to print for each object [default: the stored render's format, else manifests].
    #[arg(long, value_enum)]
    pub format: Option<OutputFormat>,
    /// The cluster whose manifests to print.
    pub cluster: String,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The repository to write (a new or empty directory).
    #[arg(long)]
    pub repo: PathBuf,
    /// The export files: what `kubectl get … -o yaml` or `-o json` printed on karmada-apiserver.
    #[arg(required = true, value_name = "EXPORT")]
    pub exports: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The Works of the control plane: what `kubectl get works -A -o yaml` printed.
    #[arg(long, value_name = "FILE", required = true, num_args = 1..)]
    pub works: Vec<PathBuf>,
}

/// `K/N` with 1 <= K <= N.
fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let (k, n) = text
        .split_once('/')
        .ok_or_else(|| format!("`{text}` is not K/N, for example 2/4"))?;
    let k: usize = k
        .trim()
        .parse()
        .map_err(|_| format!("`{k}` is not a shard number"))?;
    let n: usize = n
        .trim()
        .parse()
        .map_err(|_| format!("`{n}` is not a shard count"))?;
    if k == 0 || n == 0 || k > n {
        return Err(format!("shard `{text}` must satisfy 1 <= K <= N"));
    }
    Ok((k, n))
}

//! Loading: the source repository into typed, positioned [`Inputs`].
//!
//! Walks the repository in sorted order (honouring `.gitignore` and the
//! include/exclude globs of `garrison.yaml`), parses every YAML and JSON
//! document once with positions, expands `kind: List`, and classifies each
//! document by apiVersion/kind (SPEC §1). Parsing runs in parallel; the
//! result never depends on thread count or directory order. Every fault is a
//! [`Diagnostic`] with file, line and column; loading never schedules.

mod autoscale;
pub mod cache;
pub mod classify;
mod clusternet;
pub mod config;
mod domain;
pub mod dry;
mod karmada_kind;
mod kinds;
mod names;
pub mod previous;
pub mod templates;
pub mod typed;
pub use crate::yaml;

use crate::diag::{Code, Diagnostic, Diagnostics, FileId, Origin, Sources};
use crate::model::config::Config;
use crate::model::inputs::Inputs;
use crate::node::{Node, Pos};
use config::CONFIG_FILE;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use yaml::Limits;

/// What to read, beyond the repository itself.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Directories never read (the output directory when it lies inside the repository).
    pub skip: Vec<PathBuf>,
}

/// Read, parse and classify the repository at `root`; files parsed before
/// come from `cache`.
pub fn load_repository(
    root: &Path,
    options: &LoadOptions,
    cache: &cache::Cache,
) -> (Inputs, Diagnostics) {
    let mut diagnostics = Diagnostics::default();
    let mut sources = Sources::default();
    let config = read_config(root, &mut sources, &mut diagnostics);
    // Nothing to classify: the sources and settings read so far, and why.
    let nothing = |sources, config, diagnostics| {
        (
            Inputs {
                sources,
                config,
                ..Inputs::default()
            },
            diagnostics,
        )
    };
    let dry = dry::prepare(root, &config, &mut sources, &mut diagnostics);
    let files = match walk(root, &config, options, &dry) {
        Ok(walked) => {
            for chart in walked.unnamed_charts {
                diagnostics.push(unnamed_chart(root, &chart, &mut sources));
            }
            walked.files
        }
        Err(diagnostic) => {
            diagnostics.push(diagnostic);
            return nothing(sources, config, diagnostics);
        }
    };
    if files.is_empty() {
        // Rendering nothing would prune every object of every cluster: an
        // empty or mistyped `--repo` must never reach the output.
        diagnostics.push(
            Diagnostic::error(
                Code::EmptyRepository,
                format!(
                    "`{}` has no input files (`.yaml`, `.yml` or `.json`)",
                    root.display()
                ),
            )
            .help("check `--repo` and the `include`/`exclude` globs of garrison.yaml"),
        );
        return nothing(sources, config, diagnostics);
    }
    let mut documents = parse_files(&files, &config, cache, &mut sources, &mut diagnostics);
    let (rendered, tools) = dry::render(root, &config, &dry, cache, &mut diagnostics);
    let mut release_namespaces = std::collections::BTreeMap::new();
    for file in rendered {
        let namespace = file.namespace.clone();
        let (id, parsed) = parse_rendered(file, &config, cache, &mut sources, &mut diagnostics);
        if let Some(namespace) = namespace {
            release_namespaces.insert(id, namespace);
        }
        documents.extend(parsed);
    }
    let (mut inputs, template_documents) = classify::classify_documents(
        documents,
        &sources,
        config.default_namespace.as_deref(),
        &mut diagnostics,
    );
    // Without a fleet every cluster directory would be pruned. Only said when
    // nothing else is wrong: a cluster file that does not parse is the cause.
    if inputs.clusters.is_empty() && !diagnostics.has_errors() {
        diagnostics.push(no_clusters(root, files.len()));
    }
    inputs.sources = sources;
    inputs.config = config;
    inputs.release_namespaces = release_namespaces;
    inputs.tools = tools;
    templates::check(&mut inputs, template_documents, cache, &mut diagnostics);
    autoscale::apply(&mut inputs, &mut diagnostics);
    inputs.config.relax(
        &mut diagnostics,
        crate::model::config::WARNING_CHECKS,
        |file| inputs.sources.path(file),
    );
    (inputs, diagnostics)
}

/// The paths, relative to `root` with `/`, of the files a load of `root`
/// reads: `garrison.yaml`, every input file the walk finds and every file a
/// dry source reads. Empty when the walk fails; the load itself then says why.
pub fn input_paths(root: &Path) -> Vec<String> {
    let (mut paths, dry) = walked_paths(root);
    paths.extend(dry);
    if root.join(CONFIG_FILE).is_file() {
        paths.push(CONFIG_FILE.to_string());
    }
    paths
}

/// The files the walk reads as manifests, and apart from them the files
/// the dry sources read (relative to `root`, with `/`).
pub fn walked_paths(root: &Path) -> (Vec<String>, Vec<String>) {
    let mut sources = Sources::default();
    let config = read_config(root, &mut sources, &mut Diagnostics::default());
    let dry = dry::prepare(root, &config, &mut sources, &mut Diagnostics::default());
    let plain = walk(root, &config, &LoadOptions::default(), &dry)
        .map(|walked| walked.files.into_iter().map(|file| file.relative).collect())
        .unwrap_or_default();
    (plain, dry.files(root))
}

/// Every file parsed in parallel (from the cache where it can be), added
/// to `sources` in order: its documents, each with its file.
fn parse_files(
    files: &[SourceFile],
    config: &Config,
    cache: &cache::Cache,
    sources: &mut Sources,
    diagnostics: &mut Diagnostics,
) -> Vec<(FileId, Node)> {
    let first_id = sources.next_id().0;
    let limits = config.parse_limits();
    let max_bytes = config.max_file_bytes();
    let parsed: Vec<FileParse> = files
        .par_iter()
        .enumerate()
        .map(|(index, file)| {
            let id = FileId(first_id + u32::try_from(index).unwrap_or(u32::MAX - first_id));
            parse_file(file, id, &limits, max_bytes, cache)
        })
        .collect();
    let mut documents = Vec::new();
    for parse in parsed {
        let id = sources.add(parse.path, parse.text);
        debug_assert_eq!(id, parse.id);
        diagnostics.extend(parse.diagnostics);
        documents.extend(parse.documents.into_iter().map(|node| (id, node)));
    }
    documents
}

/// A text a dry source rendered, parsed like a file (from the cache where
/// it can be) and added to `sources`: its id and documents.
fn parse_rendered(
    file: dry::RenderedFile,
    config: &Config,
    cache: &cache::Cache,
    sources: &mut Sources,
    diagnostics: &mut Diagnostics,
) -> (FileId, Vec<(FileId, Node)>) {
    let limits = config.parse_limits();
    let parsed = cache.documents(&file.text, &limits, || {
        yaml::parse_stream(&file.text, &limits)
    });
    let id = sources.add(file.path, file.text);
    match parsed {
        Ok(nodes) => (id, nodes.into_iter().map(|node| (id, node)).collect()),
        Err(error) => {
            diagnostics.push(
                Diagnostic::error(Code::Syntax, error.message)
                    .at_opt(error.pos.map(|pos| Origin { file: id, pos }))
                    .help(error.help),
            );
            (id, Vec::new())
        }
    }
}

/// G0010: a chart no dry source names, pointed at its `Chart.yaml`.
fn unnamed_chart(root: &Path, chart: &str, sources: &mut Sources) -> Diagnostic {
    let chart_file = format!("{chart}/Chart.yaml");
    let text = std::fs::read_to_string(root.join(&chart_file)).unwrap_or_default();
    let file = sources.add(chart_file, text);
    Diagnostic::error(
        Code::UnnamedChart,
        format!("`{chart}` is a Helm chart that no `sources` entry of garrison.yaml names: its templates are not manifests to read as they are"),
    )
    .at(Origin {
        file,
        pos: Pos { line: 1, column: 1 },
    })
    .help(format!("render it: add `- helm: {{chart: {chart}, releaseName: <name>}}` to `sources` in garrison.yaml; or leave it out: `exclude: [\"{chart}/**\"]`"))
}

/// G0007: input files, but no fleet.
fn no_clusters(root: &Path, files: usize) -> Diagnostic {
    Diagnostic::error(
        Code::NoClusters,
        format!(
            "`{}` defines no cluster: none of its {files} input file(s) holds a Cluster or ManagedCluster",
            root.display()
        ),
    )
    .help("define the fleet with Cluster (cluster.karmada.io/v1alpha1) or ManagedCluster (clusters.clusternet.io/v1beta1) documents; check `--repo` and the `include`/`exclude` globs of garrison.yaml")
}

fn read_config(root: &Path, sources: &mut Sources, diagnostics: &mut Diagnostics) -> Config {
    let path = root.join(CONFIG_FILE);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Config::default();
    };
    let file = sources.add(CONFIG_FILE.to_string(), text.clone());
    config::read(&text, file, diagnostics)
}

/// One file to read: its path relative to the root (with `/`) and on disk.
#[derive(Clone, Debug)]
struct SourceFile {
    relative: String,
    absolute: PathBuf,
    /// A symbolic link that is not read: its target, and whether it is broken.
    refused_link: Option<(String, bool)>,
}

/// Where a symbolic link leads, when that is not inside the repository.
fn refused_link(path: &Path, canonical_root: &Path) -> Option<(String, bool)> {
    let target = std::fs::read_link(path)
        .map(|t| t.display().to_string())
        .unwrap_or_default();
    match path.canonicalize() {
        Ok(resolved) if resolved.starts_with(canonical_root) => None,
        Ok(_) => Some((target, false)),
        Err(_) => Some((target, true)),
    }
}

fn is_input_name(name: &str) -> bool {
    name.ends_with(".yaml") || name.ends_with(".yml") || name.ends_with(".json")
}

/// `root` resolved, when it is a directory that can be read: every command
/// checks `--repo` first, so a mistyped one fails the same way whether the
/// command starts with the source or with git.
pub fn repository_root(root: &Path) -> Result<PathBuf, Diagnostic> {
    let unreadable = |reason: String| {
        Diagnostic::error(
            Code::Io,
            format!("cannot read the repository `{}`: {reason}", root.display()),
        )
        .help("pass an existing directory with `--repo`")
    };
    let canonical = root.canonicalize().map_err(|e| unreadable(e.to_string()))?;
    if !canonical.is_dir() {
        return Err(unreadable("it is not a directory".to_string()));
    }
    Ok(canonical)
}

/// What a walk found: the input files, and the charts no dry source names
/// that hold files the walk would otherwise have read.
struct Walked {
    files: Vec<SourceFile>,
    unnamed_charts: std::collections::BTreeSet<String>,
}

fn walk(
    root: &Path,
    config: &Config,
    options: &LoadOptions,
    dry: &dry::Dry,
) -> Result<Walked, Diagnostic> {
    let include = build_globs(&config.include)?;
    let exclude = build_globs(&config.exclude)?;
    let canonical_root = repository_root(root)?;
    let skip: Vec<PathBuf> = options
        .skip
        .iter()
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    let mut files = Vec::new();
    let mut charts: Vec<String> = Vec::new();
    let mut unnamed_charts = std::collections::BTreeSet::new();
    for entry in walker(root, skip) {
        let entry = entry
            .map_err(|e| Diagnostic::error(Code::Io, format!("cannot walk the repository: {e}")))?;
        let Some(file_type) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        let Ok(relative) = path.strip_prefix(root) else {
            continue;
        };
        let relative = relative.to_string_lossy().replace('\\', "/");
        if file_type.is_dir() {
            if !dry.is_input(&relative) && path.join("Chart.yaml").is_file() {
                charts.push(relative);
            }
            continue;
        }
        // A link to a directory is not followed: inside the repository its
        // target is walked anyway; outside, it is refused, never skipped silently.
        if file_type.is_symlink() && path.is_dir() {
            if exclude.as_ref().is_some_and(|set| set.is_match(&relative)) {
                continue;
            }
            if let Some(link) = refused_link(path, &canonical_root) {
                files.push(SourceFile {
                    relative,
                    absolute: path.to_path_buf(),
                    refused_link: Some(link),
                });
            }
            continue;
        }
        if relative == CONFIG_FILE || !is_input_name(&relative) || dry.is_input(&relative) {
            continue;
        }
        if include.as_ref().is_some_and(|set| !set.is_match(&relative)) {
            continue;
        }
        if exclude.as_ref().is_some_and(|set| set.is_match(&relative)) {
            continue;
        }
        if let Some(chart) = charts
            .iter()
            .find(|chart| relative.starts_with(&format!("{chart}/")))
        {
            unnamed_charts.insert(chart.clone());
            continue;
        }
        let refused_link = if file_type.is_symlink() {
            refused_link(path, &canonical_root)
        } else {
            None
        };
        files.push(SourceFile {
            relative,
            absolute: path.to_path_buf(),
            refused_link,
        });
    }
    files.sort_by(|a, b| a.relative.cmp(&b.relative));
    Ok(Walked {
        files,
        unnamed_charts,
    })
}

/// The repository in name order, honouring `.gitignore`, without hidden
/// files, not following links, and skipping `skip` and any garrison render
/// inside the repository (it holds the marker file: output, never input).
fn walker(root: &Path, skip: Vec<PathBuf>) -> ignore::Walk {
    ignore::WalkBuilder::new(root)
        .hidden(true)
        .require_git(false)
        .follow_links(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(move |entry| {
            // Only directories are skipped, so only they are resolved (once each).
            if !entry.file_type().is_some_and(|t| t.is_dir()) {
                return true;
            }
            let path = entry.path();
            let is_render = path.join(crate::model::layout::MARKER_FILE).is_file();
            !is_render && !path.canonicalize().is_ok_and(|c| skip.contains(&c))
        })
        .build()
}

fn build_globs(patterns: &[String]) -> Result<Option<globset::GlobSet>, Diagnostic> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut builder = globset::GlobSetBuilder::new();
    for pattern in patterns {
        let glob = globset::GlobBuilder::new(pattern)
            .literal_separator(true)
            .build()
            .map_err(|e| {
                Diagnostic::error(
                    Code::InvalidConfig,
                    format!("`{pattern}` in `{CONFIG_FILE}` is not a valid glob: {e}"),
                )
            })?;
        builder.add(glob);
    }
    builder.build().map(Some).map_err(|e| {
        Diagnostic::error(
            Code::InvalidConfig,
            format!("invalid globs in `{CONFIG_FILE}`: {e}"),
        )
    })
}

struct FileParse {
    id: FileId,
    path: String,
    text: String,
    documents: Vec<Node>,
    diagnostics: Diagnostics,
}

fn parse_file(
    file: &SourceFile,
    id: FileId,
    limits: &Limits,
    max_bytes: u64,
    cache: &cache::Cache,
) -> FileParse {
    let mut result = FileParse {
        id,
        path: file.relative.clone(),
        text: String::new(),
        documents: Vec::new(),
        diagnostics: Diagnostics::default(),
    };
    let whole_file = Origin {
        file: id,
        pos: Pos { line: 1, column: 1 },
    };
    if let Some((target, broken)) = &file.refused_link {
        let diagnostic = refused_link_fault(&file.relative, target, *broken);
        result.diagnostics.push(diagnostic.at(whole_file));
        return result;
    }
    let text = match read_text(file, id, max_bytes) {
        Ok(text) => text,
        Err((diagnostic, shown)) => {
            result.diagnostics.push(diagnostic);
            result.text = shown;
            return result;
        }
    };
    match cache.documents(&text, limits, || yaml::parse_stream(&text, limits)) {
        Ok(documents) => result.documents = documents,
        Err(error) => result.diagnostics.push(
            Diagnostic::error(Code::Syntax, error.message)
                .at_opt(error.pos.map(|pos| Origin { file: id, pos }))
                .help(error.help),
        ),
    }
    result.text = text;
    result
}

/// Why a symbolic link is not followed: it is broken, or leads outside.
fn refused_link_fault(relative: &str, target: &str, broken: bool) -> Diagnostic {
    if broken {
        Diagnostic::error(
            Code::Io,
            format!("`{relative}` is a symbolic link to `{target}`, which does not exist"),
        )
        .help("fix or remove the link, or exclude it with `exclude` in garrison.yaml")
    } else {
        Diagnostic::error(
            Code::SymlinkOutside,
            format!("`{relative}` is a symbolic link to `{target}`, outside the repository"),
        )
        .help(
            "copy what it points to into the repository, or exclude the link with `exclude` in garrison.yaml",
        )
    }
}

/// A file's text, without a byte-order mark (accepted and ignored, as
/// kubectl does). A file too large, unreadable or not UTF-8 is the fault,
/// with what to show of the file in its snippet.
fn read_text(
    file: &SourceFile,
    id: FileId,
    max_bytes: u64,
) -> Result<String, (Diagnostic, String)> {
    let whole_file = Origin {
        file: id,
        pos: Pos { line: 1, column: 1 },
    };
    let size = std::fs::metadata(&file.absolute)
        .map(|m| m.len())
        .unwrap_or(0);
    if size > max_bytes {
        let diagnostic = Diagnostic::error(
            Code::FileTooLarge,
            format!(
                "`{}` is {size} bytes; the limit (`limits.maxFileBytes`) is {max_bytes}",
                file.relative
            ),
        )
        .at(whole_file)
        .help("split the file, or raise `limits.maxFileBytes` in garrison.yaml");
        return Err((diagnostic, first_line_of(&file.absolute)));
    }
    let bytes = std::fs::read(&file.absolute).map_err(|e| {
        let diagnostic =
            Diagnostic::error(Code::Io, format!("cannot read `{}`: {e}", file.relative))
                .at(whole_file);
        (diagnostic, String::new())
    })?;
    let text = String::from_utf8(bytes).map_err(|e| not_utf8(&file.relative, id, &e))?;
    Ok(text
        .strip_prefix('\u{feff}')
        .map(str::to_string)
        .unwrap_or(text))
}

/// A file that is not UTF-8, pointed at its first bad byte; its snippet
/// shows the whole line, the bad bytes replaced.
fn not_utf8(relative: &str, id: FileId, e: &std::string::FromUtf8Error) -> (Diagnostic, String) {
    let offset = e.utf8_error().valid_up_to();
    let bad = e.as_bytes()[offset];
    let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
    let valid = String::from_utf8_lossy(&e.as_bytes()[..offset]).into_owned();
    let line = u32::try_from(valid.matches('\n').count() + 1).unwrap_or(u32::MAX);
    let before = valid.rsplit('\n').next().unwrap_or("");
    let column = u32::try_from(before.chars().count() + 1).unwrap_or(u32::MAX);
    let diagnostic = Diagnostic::error(
        Code::NotUtf8,
        format!("`{relative}` is not valid UTF-8: byte `0x{bad:02x}` is not a character"),
    )
    .at(Origin {
        file: id,
        pos: Pos { line, column },
    })
    .help("save the file as UTF-8 (for Latin-1: `iconv -f latin1 -t utf-8`)");
    (diagnostic, lossy)
}

/// The first line of a file, for the snippet of a fault about the whole file.
fn first_line_of(path: &Path) -> String {
    use std::io::Read;
    let mut head = Vec::new();
    if let Ok(file) = std::fs::File::open(path) {
        let _ = file.take(512).read_to_end(&mut head);
    }
    let text = String::from_utf8_lossy(&head);
    text.lines().next().unwrap_or("").to_string()
}

//! Dry sources: kustomize bases and Helm charts of the repository, rendered
//! into templates before anything is classified or scheduled.
//!
//! `garrison.yaml`'s `sources` names them. Each is rendered by the real tool
//! (`kustomize build`, `helm template`), as Argo CD's Source Hydrator and
//! Kargo do, from the repository alone: a remote base or a chart dependency
//! that is not vendored is refused before the tool runs. What a source reads
//! (the directories its kustomizations reach, the chart, the values files) is
//! its input and is not read as plain templates. The tool's output becomes
//! one source text per chart file (Helm) or per build (kustomize), named so
//! that every diagnostic, `explain` and the report say which source and file
//! an object came from, and it is then read exactly like a plain file.
//!
//! Rendering is cached in the parse cache under a digest of every byte the
//! tool may read, its arguments and its version; the version itself is
//! cached by the program file's path, size and time. A re-render where no
//! source changed runs no tool at all. Each file is read and hashed once
//! per run, however many sources read it (200 releases of one chart read
//! the chart once). Sources render in parallel.

pub mod helm;
pub mod kustomize;
mod tool;

use super::cache::Cache;
use crate::diag::{Code, Diagnostic, Diagnostics, Origin, Sources};
use crate::model::config::{Config, DryTool, HelmSource};
use crate::node::Pos;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use tool::{Kind, Tool};

/// What stops a dry source before its tool runs.
#[derive(Clone, Debug)]
pub struct Problem {
    /// G0009 unless said otherwise (a kustomization that does not parse is G0101).
    pub code: Code,
    pub message: String,
    pub help: String,
    /// Where, when it is in a file of the source (a kustomization, a `Chart.yaml`).
    pub place: Option<Box<Place>>,
    /// Otherwise, the field of the `sources` entry it is about.
    field: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct Place {
    pub path: String,
    pub text: String,
    pub pos: Pos,
}

impl Problem {
    fn plain(message: String, help: &str) -> Problem {
        Problem::at_entry(&[], message, help)
    }
    fn at_entry(field: &[&str], message: String, help: &str) -> Problem {
        Problem {
            code: Code::DrySourceOutside,
            message,
            help: help.to_string(),
            place: None,
            field: field.iter().map(|s| s.to_string()).collect(),
        }
    }
    fn in_file(
        path: &str,
        text: String,
        pos: Pos,
        message: String,
        help: impl Into<String>,
    ) -> Problem {
        Problem {
            code: Code::DrySourceOutside,
            message,
            help: help.into(),
            place: Some(Box::new(Place {
                path: path.to_string(),
                text,
                pos,
            })),
            field: Vec::new(),
        }
    }
}

/// The dry sources of a repository, checked and ready to render.
#[derive(Debug, Default)]
pub struct Dry {
    ready: Vec<Ready>,
    /// Directories and files that are some source's input, never plain templates.
    inputs: Vec<String>,
}

#[derive(Debug)]
struct Ready {
    entry: Entry,
    /// Where the entry is written in `garrison.yaml`.
    origin: Option<Origin>,
    /// Directory trees (relative to the root) and single files it reads.
    trees: Vec<String>,
    files: Vec<String>,
}

/// A checked `sources` entry.
#[derive(Debug)]
enum Entry {
    /// The overlay's directory, normalized.
    Kustomize(String),
    Helm(HelmSource),
}

impl Ready {
    fn kind(&self) -> Kind {
        match self.entry {
            Entry::Kustomize(_) => Kind::Kustomize,
            Entry::Helm(_) => Kind::Helm,
        }
    }
}

impl Dry {
    /// Every file of the repository some dry source reads, relative to `root`.
    pub fn files(&self, root: &Path) -> Vec<String> {
        let mut files = Vec::new();
        for input in &self.inputs {
            if root.join(input).is_file() {
                files.push(input.clone());
            } else {
                collect(root, input, &mut files);
            }
        }
        files.sort();
        files.dedup();
        files
    }

    /// Whether the file at `relative` is a dry source's input.
    pub fn is_input(&self, relative: &str) -> bool {
        self.inputs.iter().any(|input| {
            input.is_empty()
                || relative == input
                || relative
                    .strip_prefix(input.as_str())
                    .is_some_and(|rest| rest.starts_with('/'))
        })
    }
}

/// Check every entry of `sources` and find what each reads. Faults are
/// G0009 diagnostics; what a faulty source reads is still kept from the
/// plain templates (a chart's templates are not YAML, and a base's files
/// are the base's, whether or not the overlay builds).
pub fn prepare(
    root: &Path,
    config: &Config,
    sources: &mut Sources,
    diagnostics: &mut Diagnostics,
) -> Dry {
    let mut dry = Dry::default();
    let settings_faulty = diagnostics.has_errors();
    for source in &config.sources {
        let Some(doc) = &source.doc else {
            continue;
        };
        let (entry, checked) = match source.tool() {
            Some(DryTool::Kustomize(dir)) => {
                let dir = kustomize::normalize(dir).unwrap_or_default();
                let reached = kustomize::reach(root, &dir);
                // Whether or not it builds, every directory it reaches is
                // its own: a base beside a remote one is no plain template.
                dry.inputs.extend(reached.dirs.iter().cloned());
                let checked = if reached.problems.is_empty() {
                    Ok((reached.dirs.into_iter().collect(), Vec::new()))
                } else {
                    Err(reached.problems)
                };
                (Entry::Kustomize(dir), checked)
            }
            Some(DryTool::Helm(chart)) => {
                let dir = kustomize::normalize(&chart.chart).unwrap_or_default();
                let files: Vec<String> = chart
                    .values
                    .iter()
                    .filter_map(|v| kustomize::normalize(v))
                    .collect();
                dry.inputs.push(dir.clone());
                dry.inputs.extend(files.iter().cloned());
                let checked = helm::check(root, chart)
                    .map(|()| (vec![dir], files))
                    .map_err(|problem| vec![problem]);
                (Entry::Helm(chart.clone()), checked)
            }
            // garrison.yaml's reading said so (G0005).
            None => continue,
        };
        if settings_faulty {
            continue;
        }
        match checked {
            Ok((trees, files)) => {
                dry.inputs.extend(trees.iter().cloned());
                dry.ready.push(Ready {
                    entry,
                    origin: Some(doc.origin()),
                    trees,
                    files,
                });
            }
            Err(problems) => {
                let mut added: BTreeMap<String, crate::diag::FileId> = BTreeMap::new();
                for problem in problems {
                    let origin = match &problem.place {
                        Some(place) => Origin {
                            file: *added.entry(place.path.clone()).or_insert_with(|| {
                                sources.add(place.path.clone(), place.text.clone())
                            }),
                            pos: place.pos,
                        },
                        None => {
                            let field: Vec<&str> =
                                problem.field.iter().map(String::as_str).collect();
                            doc.at(&field)
                        }
                    };
                    diagnostics.push(
                        Diagnostic::error(problem.code, problem.message)
                            .at(origin)
                            .help(problem.help),
                    );
                }
            }
        }
    }
    dry.inputs.sort();
    dry.inputs.dedup();
    dry
}

/// One text a dry source rendered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderedFile {
    /// `charts/web/templates/deployment.yaml (helm template web)`,
    /// `apps/prod (kustomize build)`.
    pub path: String,
    pub text: String,
    /// The Helm release's namespace: that of its namespaced objects written without one.
    pub namespace: Option<String>,
}

/// What the dry sources rendered, in `sources` order, and the version of
/// each tool used (for the provenance). A tool that is missing or fails
/// is a G0008 diagnostic at its entry.
pub fn render(
    root: &Path,
    config: &Config,
    dry: &Dry,
    cache: &Cache,
    diagnostics: &mut Diagnostics,
) -> (Vec<RenderedFile>, BTreeMap<String, String>) {
    let mut tools: BTreeMap<Kind, Result<Tool, String>> = BTreeMap::new();
    for ready in &dry.ready {
        tools.entry(ready.kind()).or_insert_with(|| {
            let configured = match ready.kind() {
                Kind::Kustomize => config.tools.kustomize.as_deref(),
                Kind::Helm => config.tools.helm.as_deref(),
            };
            Tool::find(ready.kind(), configured, root, cache)
        });
    }
    let read = read_inputs(root, &dry.ready);
    let results: Vec<Result<Vec<RenderedFile>, Diagnostic>> = dry
        .ready
        .par_iter()
        .zip(&read.files)
        .map(|(ready, files)| {
            let origin = ready.origin;
            let tool = match tools.get(&ready.kind()) {
                Some(Ok(tool)) => tool,
                Some(Err(why)) => return Err(missing_tool(ready.kind(), why).at_opt(origin)),
                None => return Ok(Vec::new()),
            };
            let inputs = Inputs {
                files,
                digests: &read.digests,
            };
            render_one(root, config, ready, &inputs, tool, cache).map_err(|why| {
                Diagnostic::error(
                    Code::DrySourceFailed,
                    format!("`{}` failed: {why}", shown_command(ready, tool)),
                )
                .at_opt(origin)
                .help(match ready.kind() {
                    Kind::Kustomize => "fix the kustomization",
                    Kind::Helm => "fix the chart or its values",
                })
            })
        })
        .collect();
    let mut files = Vec::new();
    for result in results {
        match result {
            Ok(rendered) => files.extend(rendered),
            Err(diagnostic) => diagnostics.push(diagnostic),
        }
    }
    let versions = tools
        .into_iter()
        .filter_map(|(kind, tool)| Some((kind.name().to_string(), tool.ok()?.version)))
        .collect();
    (files, versions)
}

fn missing_tool(kind: Kind, why: &str) -> Diagnostic {
    let help = match kind {
        Kind::Kustomize => "install kubectl (its `kubectl kustomize` is used) or kustomize, or set `tools.kustomize` in garrison.yaml to its path",
        Kind::Helm => "install Helm 3 (see docs/sources.md), or set `tools.helm` in garrison.yaml to its path",
    };
    Diagnostic::error(
        Code::DrySourceFailed,
        format!("the {} source cannot be rendered: {why}", kind.name()),
    )
    .help(help)
}

/// The command as a user would type it, for messages.
fn shown_command(ready: &Ready, tool: &Tool) -> String {
    match &ready.entry {
        Entry::Kustomize(dir) if tool.kubectl => format!("kubectl kustomize {dir}"),
        Entry::Kustomize(dir) => format!("kustomize build {dir}"),
        Entry::Helm(helm) => format!("helm template {} {}", helm.release_name, helm.chart),
    }
}

fn render_one(
    root: &Path,
    config: &Config,
    ready: &Ready,
    inputs: &Inputs<'_>,
    tool: &Tool,
    cache: &Cache,
) -> Result<Vec<RenderedFile>, String> {
    let home = helm::no_home();
    let (args, env) = match &ready.entry {
        Entry::Kustomize(dir) => {
            let dir = format!("./{dir}");
            let args = if tool.kubectl {
                vec!["kustomize".to_string(), dir]
            } else {
                vec!["build".to_string(), dir]
            };
            (args, Vec::new())
        }
        Entry::Helm(helm) => {
            let env = vec![
                ("HELM_CACHE_HOME", home.as_path()),
                ("HELM_CONFIG_HOME", home.as_path()),
                ("HELM_DATA_HOME", home.as_path()),
            ];
            (
                helm::arguments(
                    helm,
                    config
                        .kubernetes_version
                        .as_deref()
                        .unwrap_or(crate::schema::builtin::DEFAULT_VERSION),
                ),
                env,
            )
        }
    };
    let fingerprint = fingerprint(inputs, tool, &args)?;
    let output = cache.rendered(&fingerprint, || {
        // Run twice: a chart that draws random values (`randAlphaNum`,
        // `genCA`, `uuidv4`) would give every render new bytes, which the
        // clusters would then apply: a password rotated by a re-render.
        let first = tool.run(&args, root, &env)?;
        let second = tool.run(&args, root, &env)?;
        if first == second {
            Ok(first)
        } else {
            Err(format!(
                "it printed different output on two runs of the same inputs{}: a chart that draws random values or reads the time (`randAlphaNum`, `genCA`, `uuidv4`, `now`) does that, and every render would give the clusters new bytes; set the values that avoid them",
                first_difference(&first, &second)
            ))
        }
    })?;
    Ok(match &ready.entry {
        Entry::Kustomize(dir) => vec![RenderedFile {
            path: format!("{dir} (kustomize build)"),
            text: output,
            namespace: None,
        }],
        Entry::Helm(chart) => helm::split(&chart.chart, &output)
            .into_iter()
            .map(|(path, text)| RenderedFile {
                path: format!("{path} (helm template {})", chart.release_name),
                text,
                namespace: Some(chart.namespace().to_string()),
            })
            .collect(),
    })
}

/// Where two outputs first differ: ` (from line N of its output)`. The
/// lines themselves are not shown: they may be secrets.
fn first_difference(first: &str, second: &str) -> String {
    first
        .lines()
        .zip(second.lines())
        .position(|(a, b)| a != b)
        .map(|index| format!(" (from line {} of its output)", index + 1))
        .unwrap_or_default()
}

/// What every source reads, found once per run: the files of each source
/// (in `ready` order, sorted) and the SHA-256 of each file's bytes, so that
/// a chart many releases share is listed, read and hashed once.
struct ReadInputs {
    files: Vec<Vec<String>>,
    digests: HashMap<String, Result<[u8; 32], String>>,
}

/// One source's part of [`ReadInputs`].
struct Inputs<'a> {
    files: &'a [String],
    digests: &'a HashMap<String, Result<[u8; 32], String>>,
}

fn read_inputs(root: &Path, ready: &[Ready]) -> ReadInputs {
    let mut trees: HashMap<&str, Vec<String>> = HashMap::new();
    let files: Vec<Vec<String>> = ready
        .iter()
        .map(|ready| {
            let mut files = ready.files.clone();
            for tree in &ready.trees {
                let listed = trees.entry(tree).or_insert_with(|| {
                    let mut listed = Vec::new();
                    collect(root, tree, &mut listed);
                    listed
                });
                files.extend(listed.iter().cloned());
            }
            files.sort();
            files.dedup();
            files
        })
        .collect();
    let mut distinct: Vec<&String> = files.iter().flatten().collect();
    distinct.sort();
    distinct.dedup();
    let digests = distinct
        .into_par_iter()
        .map(|file| {
            let digest = std::fs::read(root.join(file))
                .map(|bytes| Sha256::digest(&bytes).into())
                .map_err(|e| format!("cannot read `{file}`: {e}"));
            (file.clone(), digest)
        })
        .collect();
    ReadInputs { files, digests }
}

/// SHA-256 of everything the tool's output depends on: its version, its
/// arguments, and the path and bytes (by their SHA-256) of every file it
/// may read.
fn fingerprint(inputs: &Inputs<'_>, tool: &Tool, args: &[String]) -> Result<Vec<u8>, String> {
    let mut hasher = Sha256::new();
    let mut field = |bytes: &[u8]| {
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    };
    field(b"garrison dry source 2");
    field(tool.version.as_bytes());
    field(&[u8::from(tool.kubectl)]);
    for arg in args {
        field(arg.as_bytes());
    }
    for file in inputs.files {
        let digest = match inputs.digests.get(file) {
            Some(Ok(digest)) => digest,
            Some(Err(why)) => return Err(why.clone()),
            None => return Err(format!("cannot read `{file}`")),
        };
        field(file.as_bytes());
        field(digest);
    }
    Ok(hasher.finalize().to_vec())
}

/// Every file under `dir` (relative to `root`), links not followed, `.git` skipped.
fn collect(root: &Path, dir: &str, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let relative = if dir.is_empty() {
            name.clone()
        } else {
            format!("{dir}/{name}")
        };
        match entry.file_type() {
            Ok(kind) if kind.is_dir() && name != ".git" => collect(root, &relative, out),
            Ok(kind) if kind.is_file() => out.push(relative),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn release(values: &str) -> Ready {
        Ready {
            entry: Entry::Helm(HelmSource::default()),
            origin: None,
            trees: vec!["charts/web".to_string()],
            files: vec![values.to_string()],
        }
    }

    fn fingerprints(root: &Path, ready: &[Ready]) -> Vec<Result<Vec<u8>, String>> {
        let tool = Tool {
            program: "helm".into(),
            version: "helm v3.22.0".to_string(),
            kubectl: false,
        };
        let read = read_inputs(root, ready);
        read.files
            .iter()
            .map(|files| {
                let inputs = Inputs {
                    files,
                    digests: &read.digests,
                };
                fingerprint(&inputs, &tool, &["template".to_string()])
            })
            .collect()
    }

    #[test]
    fn releases_of_one_chart_read_it_once_and_each_fingerprint_follows_what_its_release_reads() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        let write = |path: &str, text: &str| {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        };
        write("charts/web/Chart.yaml", "name: web\n");
        write("charts/web/templates/service.yaml", "kind: Service\n");
        write("values/a.yaml", "replicas: 1\n");
        write("values/b.yaml", "replicas: 2\n");
        let releases = [release("values/a.yaml"), release("values/b.yaml")];

        let read = read_inputs(root, &releases);
        assert_eq!(
            read.files[0],
            [
                "charts/web/Chart.yaml",
                "charts/web/templates/service.yaml",
                "values/a.yaml"
            ]
        );
        assert_eq!(read.digests.len(), 4, "each of the four files is read once");

        let before = fingerprints(root, &releases);
        assert_ne!(before[0], before[1], "the releases' values differ");
        write("values/b.yaml", "replicas: 3\n");
        let after = fingerprints(root, &releases);
        assert_eq!(after[0], before[0], "release a reads nothing that changed");
        assert_ne!(after[1], before[1], "release b's values changed");
        write(
            "charts/web/templates/service.yaml",
            "kind: Service\nspec: {}\n",
        );
        let chart_changed = fingerprints(root, &releases);
        assert!(
            chart_changed[0] != after[0] && chart_changed[1] != after[1],
            "both releases read the chart"
        );
        std::fs::remove_file(root.join("values/a.yaml")).expect("remove");
        let missing = fingerprints(root, &releases);
        assert!(
            matches!(&missing[0], Err(why) if why.starts_with("cannot read `values/a.yaml`")),
            "{:?}",
            missing[0]
        );
        assert_eq!(missing[1], chart_changed[1]);
    }
}

//! `garrison.yaml` at the repository root: which files are inputs, the parse
//! limits, and the safety settings of SPEC §10.
//!
//! ```yaml
//! include: ["fleet/**"]        # globs relative to the root; default: every file
//! exclude: ["**/kustomization.yaml"]
//! limits:
//!   maxFileBytes: 16777216
//!   maxDocuments: 10000
//!   maxDepth: 64
//!   maxNodes: 2000000
//!   maxAliases: 1000
//! defaultNamespace: shop       # for namespaced templates without one; default: none (an error)
//! kubernetesVersion: "1.36"    # the built-in API templates are checked against
//! massPrune:
//!   maxShare: 0.5              # refuse a render removing more than this share of the objects...
//!   minObjects: 20             # ...once the previous render has at least this many
//! allowVanish:                 # applications a render may stop delivering, templates kept
//!   - Deployment/shop/legacy
//! relax:                       # turn a check's errors into warnings for some files
//!   - check: unknown-field
//!     paths: ["legacy/**"]
//! sources:                     # dry sources, rendered into templates before scheduling
//!   - kustomize: apps/shop/overlays/prod
//!   - helm:
//!       chart: charts/web
//!       releaseName: web
//!       namespace: web
//!       values: [charts/web/values-prod.yaml]
//!       set: {image.tag: "1.4.2"}
//! tools:                       # which programs render them; default: `kubectl` and `helm` on the PATH
//!   kustomize: kubectl
//!   helm: /opt/helm/bin/helm
//! ```

use crate::diag::{Code, Diagnostics, FileId};
use serde::Deserialize;

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Config {
    #[serde(default)]
    pub include: Vec<String>,
    #[serde(default)]
    pub exclude: Vec<String>,
    #[serde(default)]
    pub limits: LimitsConfig,
    /// The namespace of namespaced templates written without one.
    #[serde(default)]
    pub default_namespace: Option<String>,
    /// The Kubernetes minor version (`"1.36"`) whose API templates are checked against.
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    #[serde(default)]
    pub mass_prune: MassPruneConfig,
    /// Applications (`Kind/namespace/name`, `Kind/name` when cluster-scoped)
    /// a render may stop delivering while their templates and policies are
    /// still in the repository (G0604).
    #[serde(default)]
    pub allow_vanish: Vec<String>,
    #[serde(default)]
    pub relax: Vec<Relax>,
    /// Kustomize bases and Helm charts rendered into templates.
    #[serde(default)]
    pub sources: Vec<DrySource>,
    #[serde(default)]
    pub tools: ToolsConfig,
}

/// One entry of `sources`: exactly one of `kustomize` and `helm`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DrySource {
    /// A directory holding a `kustomization.yaml`, built with `kustomize build`.
    pub kustomize: Option<String>,
    pub helm: Option<HelmSource>,
    /// Where the entry is written in `garrison.yaml`.
    #[serde(skip)]
    pub doc: Option<crate::model::document::Document>,
}

/// A Helm release rendered with `helm template`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HelmSource {
    /// The chart's directory (holding `Chart.yaml`).
    pub chart: String,
    pub release_name: String,
    /// The release namespace: `.Release.Namespace`, and the namespace of the
    /// namespaced objects the chart writes without one. Default: `default`.
    pub namespace: Option<String>,
    /// Values files, relative to the repository root, later ones winning.
    #[serde(default)]
    pub values: Vec<String>,
    /// Values by Helm's `--set` path (`image.tag`), applied after the files,
    /// with their YAML types (`--set-json`).
    #[serde(default)]
    pub set: serde_json::Map<String, serde_json::Value>,
    /// Whether the chart's `crds/` are rendered too (`--include-crds`). Default: true.
    #[serde(rename = "includeCRDs")]
    pub include_crds: Option<bool>,
}

/// The programs that render dry sources.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct ToolsConfig {
    /// `kubectl` (its embedded kustomize, `kubectl kustomize`) or a
    /// `kustomize` program (`kustomize build`), by name on the PATH or by
    /// path (absolute, or relative to the repository root). Default: `kubectl`.
    pub kustomize: Option<String>,
    /// The `helm` program, by name on the PATH or by path (absolute, or
    /// relative to the repository root). Default: `helm`.
    pub helm: Option<String>,
}

/// The tool a `sources` entry names, when it names exactly one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DryTool<'a> {
    Kustomize(&'a str),
    Helm(&'a HelmSource),
}

impl DrySource {
    /// The entry's one tool; `None` when it names both or neither (G0005).
    pub fn tool(&self) -> Option<DryTool<'_>> {
        match (&self.kustomize, &self.helm) {
            (Some(dir), None) => Some(DryTool::Kustomize(dir)),
            (None, Some(helm)) => Some(DryTool::Helm(helm)),
            _ => None,
        }
    }
}

impl HelmSource {
    pub fn namespace(&self) -> &str {
        self.namespace.as_deref().unwrap_or("default")
    }
    pub fn include_crds(&self) -> bool {
        self.include_crds.unwrap_or(true)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LimitsConfig {
    pub max_file_bytes: Option<u64>,
    pub max_documents: Option<usize>,
    pub max_depth: Option<usize>,
    pub max_nodes: Option<usize>,
    pub max_aliases: Option<usize>,
}

/// When a render removes so much of the previous one that it is probably a
/// mistake (an empty or mistyped `--repo`, a selector that stopped matching).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MassPruneConfig {
    /// The largest share (0 to 1) of the previous render's objects one render may remove.
    pub max_share: Option<f64>,
    /// The share applies once the previous render has at least this many objects.
    pub min_objects: Option<usize>,
}

/// Default of `massPrune.maxShare`: half of the objects.
pub const DEFAULT_MASS_PRUNE_SHARE: f64 = 0.5;
/// Default of `massPrune.minObjects`.
pub const DEFAULT_MASS_PRUNE_MIN_OBJECTS: usize = 20;

impl MassPruneConfig {
    pub fn max_share(&self) -> f64 {
        self.max_share.unwrap_or(DEFAULT_MASS_PRUNE_SHARE)
    }
    pub fn min_objects(&self) -> usize {
        self.min_objects.unwrap_or(DEFAULT_MASS_PRUNE_MIN_OBJECTS)
    }
}

/// One `relax` rule: the errors of check `check` (a diagnostic's name, such
/// as `unknown-field`, or its code) in files matching `paths` are reported
/// as warnings instead, which `--strict` leaves warnings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct Relax {
    pub check: String,
    pub paths: Vec<String>,
}

/// Files larger than this are refused unless `limits.maxFileBytes` raises it.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

impl Config {
    pub fn max_file_bytes(&self) -> u64 {
        self.limits.max_file_bytes.unwrap_or(DEFAULT_MAX_FILE_BYTES)
    }
}

/// The checks a `relax` rule may name for a template's faults against its
/// schema. The same codes in garrison's own inputs (policies, clusters) are
/// never relaxed: such an input would simply be dropped.
pub const TEMPLATE_CHECKS: &[Code] = &[
    Code::InvalidField,
    Code::UnknownField,
    Code::UnknownApiKind,
    Code::NoSchema,
];

/// The warnings a `relax` rule may name (so that `--strict` lets them pass).
pub const WARNING_CHECKS: &[Code] = &[
    Code::PolicyMatchesNothing,
    Code::Unschedulable,
    Code::BindingWithoutTemplate,
    Code::IgnoredField,
    Code::ReservedNamespace,
];

/// The relaxable check a rule names, by name (`unknown-field`) or code (`G0109`).
pub fn relaxable(check: &str) -> Option<Code> {
    TEMPLATE_CHECKS
        .iter()
        .chain(WARNING_CHECKS)
        .copied()
        .find(|c| c.name() == check || c.code() == check)
}

impl Config {
    /// Apply the `relax` rules: a diagnostic of `checks` in a file a rule
    /// names becomes a warning that `--strict` leaves a warning. With
    /// [`TEMPLATE_CHECKS`] errors are relaxed too (the template is rendered
    /// as written); with [`WARNING_CHECKS`] only warnings (the same codes'
    /// errors mean nothing could be rendered). `path` gives a file's path.
    pub fn relax<'a>(
        &self,
        diagnostics: &mut Diagnostics,
        checks: &[Code],
        path: impl Fn(FileId) -> &'a str,
    ) {
        if self.relax.is_empty() {
            return;
        }
        let rules: Vec<(Code, globset::GlobSet)> = self
            .relax
            .iter()
            .filter_map(|rule| {
                let code = relaxable(&rule.check)?;
                let mut set = globset::GlobSetBuilder::new();
                for pattern in &rule.paths {
                    set.add(globset::Glob::new(pattern).ok()?);
                }
                Some((code, set.build().ok()?))
            })
            .collect();
        for diagnostic in &mut diagnostics.0 {
            let Some(origin) = diagnostic.origin else {
                continue;
            };
            let file = path(origin.file);
            let named = rules
                .iter()
                .any(|(code, set)| *code == diagnostic.code && set.is_match(file));
            let errors_too = checks == TEMPLATE_CHECKS;
            if named && checks.contains(&diagnostic.code) && (errors_too || !diagnostic.is_error())
            {
                diagnostic.severity = crate::diag::Severity::Warning;
                diagnostic.relaxed = true;
            }
        }
    }
}

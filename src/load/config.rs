//! Reading `garrison.yaml` ([`Config`]) strictly, and applying its
//! `relax` rules to diagnostics.

use super::typed;
use super::yaml::{parse_stream, Limits};
use crate::diag::{Code, Diagnostic, Diagnostics, FileId, Origin};
use crate::model::config::{relaxable, Config, DryTool, Relax, TEMPLATE_CHECKS, WARNING_CHECKS};
use crate::node::{Node, Pos};

pub const CONFIG_FILE: &str = "garrison.yaml";

impl Config {
    pub fn parse_limits(&self) -> Limits {
        let default = Limits::default();
        Limits {
            max_documents: self.limits.max_documents.unwrap_or(default.max_documents),
            max_nodes: self.limits.max_nodes.unwrap_or(default.max_nodes),
            max_depth: self.limits.max_depth.unwrap_or(default.max_depth),
            max_aliases: self.limits.max_aliases.unwrap_or(default.max_aliases),
        }
    }
}

/// Read garrison.yaml strictly, its faults as G0005 at their line.
pub fn read(text: &str, file: FileId, diagnostics: &mut Diagnostics) -> Config {
    let faults = Faults { file };
    let Some(node) = faults.document(text, diagnostics) else {
        return Config::default();
    };
    let config = match typed::from_node::<Config>(&node, typed::Fields::Strict) {
        Ok((config, found)) if found.is_empty() => config,
        Ok((_, found)) | Err(found) => {
            for fault in found {
                diagnostics.push(faults.typed(fault));
            }
            return Config::default();
        }
    };
    let at = |path: &[&str]| Some(node.locate(path));
    if let Some(version) = &config.kubernetes_version {
        if crate::schema::builtin::load(version).is_none() {
            diagnostics.push(
                faults
                    .fault(
                        at(&["kubernetesVersion"]),
                        format!("`kubernetesVersion: {version}` is not a version garrison has the API of"),
                    )
                    .help(format!(
                        "use one of {} (a minor version, quoted)",
                        crate::schema::builtin::versions()
                            .map(|v| format!("`\"{v}\"`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
            );
        }
    }
    if let Some(namespace) = &config.default_namespace {
        if let Some(why) = crate::model::meta::dns_label_fault(namespace) {
            diagnostics.push(
                faults.fault(at(&["defaultNamespace"]), format!("`defaultNamespace` `{namespace}` {why}"))
                    .help("namespaces are DNS labels: lower-case letters, digits and `-`, at most 63 characters"),
            );
        }
    }
    if let Some(share) = config
        .mass_prune
        .max_share
        .filter(|s| !(0.0..=1.0).contains(s))
    {
        diagnostics.push(
            faults.fault(
                at(&["massPrune", "maxShare"]),
                format!("`massPrune.maxShare` is {share}; it must be a share from 0 to 1"),
            )
            .help("write the largest share of the previous render's objects one render may remove, such as `0.5` for half"),
        );
    }
    check_relax(&config.relax, &node, &faults, diagnostics);
    check_allow_vanish(&config.allow_vanish, &node, &faults, diagnostics);
    let mut config = config;
    for (i, source) in config.sources.iter_mut().enumerate() {
        let Some(entry) = node.get_path(&["sources", &i.to_string()]) else {
            continue;
        };
        source.doc = Some(crate::model::inputs::Document {
            file,
            node: entry.clone(),
        });
    }
    check_sources(&config, text, &faults, diagnostics);
    config
}

/// Each dry source names one tool, valid names and paths inside the repository.
fn check_sources(config: &Config, text: &str, faults: &Faults, diagnostics: &mut Diagnostics) {
    for source in &config.sources {
        let Some(doc) = &source.doc else {
            continue;
        };
        let at = |path: &[&str]| Some(doc.node.locate(path));
        let mut paths: Vec<(Vec<String>, &str)> = Vec::new();
        match source.tool() {
            Some(DryTool::Kustomize(dir)) => paths.push((vec!["kustomize".into()], dir)),
            Some(DryTool::Helm(helm)) => {
                paths.push((vec!["helm".into(), "chart".into()], &helm.chart));
                for (j, file) in helm.values.iter().enumerate() {
                    paths.push((vec!["helm".into(), "values".into(), j.to_string()], file));
                }
                let name = &helm.release_name;
                let fault = crate::model::meta::dns_subdomain_fault(name).or_else(|| {
                    (name.len() > 53).then(|| "is longer than 53 characters".to_string())
                });
                if let Some(why) = fault {
                    diagnostics.push(
                        faults
                            .fault(at(&["helm", "releaseName"]), format!("the release name `{name}` {why}"))
                            .help("Helm release names are lower-case letters, digits, `-` and `.`, at most 53 characters"),
                    );
                }
                for (key, value) in &helm.set {
                    let Some(node) = doc.node.get_path(&["helm", "set", key]) else {
                        continue;
                    };
                    if let Some(written) = number_read_otherwise(value, text, node.pos) {
                        diagnostics.push(
                            faults
                                .fault(
                                    Some(node.pos),
                                    format!("`set` `{key}: {written}` is read as the number {value}, and Helm would get {value}"),
                                )
                                .help(format!("quote it (`{key}: \"{written}\"`) when it is a string, such as an image tag or a version")),
                        );
                    }
                }
                if let Some(why) = crate::model::meta::dns_label_fault(helm.namespace()) {
                    diagnostics.push(
                        faults
                            .fault(at(&["helm", "namespace"]), format!("the namespace `{}` {why}", helm.namespace()))
                            .help("namespaces are DNS labels: lower-case letters, digits and `-`, at most 63 characters"),
                    );
                }
            }
            None => diagnostics.push(
                faults
                    .fault(
                        Some(doc.node.pos),
                        "a `sources` entry names exactly one of `kustomize` and `helm`".into(),
                    )
                    .help("write `- kustomize: <directory>` or `- helm: {chart: <directory>, releaseName: <name>}`, one entry each"),
            ),
        }
        for (path, value) in paths {
            if let Some(why) = repository_path_fault(value) {
                let path: Vec<&str> = path.iter().map(String::as_str).collect();
                diagnostics.push(
                    faults
                        .fault(at(&path), format!("`{value}` {why}"))
                        .help("dry sources are read from the repository only: write a path relative to the repository root, such as `charts/web`"),
                );
            }
        }
    }
}

/// A number written in `text` at `pos` whose value prints otherwise
/// (`1.10` is 1.1, `1e3` is 1000.0): what was written. An image tag or
/// version written unquoted would reach Helm changed.
fn number_read_otherwise(value: &serde_json::Value, text: &str, pos: Pos) -> Option<String> {
    let number = value.as_number()?;
    let line = text
        .lines()
        .nth(usize::try_from(pos.line).ok()?.checked_sub(1)?)?;
    let written: String = line
        .chars()
        .skip(usize::try_from(pos.column).ok()?.checked_sub(1)?)
        .take_while(|c| !c.is_whitespace() && !matches!(c, ',' | '}' | ']' | '#'))
        .collect();
    (written != number.to_string()).then_some(written)
}

/// Why `path` cannot name a file of the repository: empty, absolute, or
/// leading out of it.
pub fn repository_path_fault(path: &str) -> Option<&'static str> {
    let mut depth: i32 = 0;
    if path.trim().is_empty() {
        return Some("is empty");
    }
    if path.starts_with('/') || path.starts_with('\\') || path.contains(':') {
        return Some("is not a path relative to the repository root");
    }
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => depth -= 1,
            _ => depth += 1,
        }
        if depth < 0 {
            return Some("leads out of the repository");
        }
    }
    (depth == 0)
        .then_some("names the repository root: a dry source is a directory or file of its own")
}

/// Each `allowVanish` entry names an application as the vanish guard
/// does: `Kind/namespace/name`, or `Kind/name` when it is cluster-scoped.
fn check_allow_vanish(
    entries: &[String],
    node: &Node,
    faults: &Faults,
    diagnostics: &mut Diagnostics,
) {
    for (i, entry) in entries.iter().enumerate() {
        let parts: Vec<&str> = entry.split('/').collect();
        let named = matches!(parts.len(), 2 | 3)
            && parts.iter().all(|p| !p.is_empty())
            && parts[0].starts_with(|c: char| c.is_ascii_uppercase());
        if !named {
            diagnostics.push(
                faults
                    .fault(
                        Some(node.locate(&["allowVanish", &i.to_string()])),
                        format!("`allowVanish` entry `{entry}` does not name an application"),
                    )
                    .help("write `Kind/namespace/name` (`Deployment/shop/web`), or `Kind/name` for a cluster-scoped one, as the G0604 error names it"),
            );
        }
    }
}

/// The checks `relax` names exist and its paths are globs.
fn check_relax(rules: &[Relax], node: &Node, faults: &Faults, diagnostics: &mut Diagnostics) {
    for (i, rule) in rules.iter().enumerate() {
        let index = i.to_string();
        if relaxable(&rule.check).is_none() {
            diagnostics.push(
                faults
                    .fault(
                        Some(node.locate(&["relax", &index, "check"])),
                        format!(
                            "`{}` is not a check `relax` can turn into a warning",
                            rule.check
                        ),
                    )
                    .help(format!(
                        "name one of {}",
                        TEMPLATE_CHECKS
                            .iter()
                            .chain(WARNING_CHECKS)
                            .map(|c| format!("`{}`", c.name()))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
            );
        }
        for (j, pattern) in rule.paths.iter().enumerate() {
            if let Err(e) = globset::Glob::new(pattern) {
                let at = node.locate(&["relax", &index, "paths", &j.to_string()]);
                diagnostics.push(
                    faults
                        .fault(Some(at), format!("`{pattern}` is not a valid glob: {e}"))
                        .help(
                            "paths are globs relative to the repository root, such as `legacy/**`",
                        ),
                );
            }
        }
    }
}

/// G0005 diagnostics in garrison.yaml.
struct Faults {
    file: FileId,
}

impl Faults {
    fn fault(&self, pos: Option<Pos>, message: String) -> Diagnostic {
        Diagnostic::error(
            Code::InvalidConfig,
            format!("`{CONFIG_FILE}` is not valid: {message}"),
        )
        .at_opt(pos.map(|pos| Origin {
            file: self.file,
            pos,
        }))
    }

    /// The one document of the file; `None` (reported, if wrong) otherwise.
    fn document(&self, text: &str, diagnostics: &mut Diagnostics) -> Option<Node> {
        match parse_stream(text, &Limits::default()) {
            Ok(mut nodes) if nodes.len() <= 1 => nodes.pop(),
            Ok(nodes) => {
                diagnostics.push(
                    self.fault(
                        nodes.get(1).map(|n| n.pos),
                        "it holds more than one YAML document".into(),
                    )
                    .help("keep one document"),
                );
                None
            }
            Err(error) => {
                diagnostics.push(self.fault(error.pos, error.message).help(error.help));
                None
            }
        }
    }

    /// A key or value the settings do not take.
    fn typed(&self, fault: typed::Fault) -> Diagnostic {
        let (pos, message) = match fault {
            typed::Fault::UnknownField {
                path,
                field,
                pos,
                known,
            } => {
                let near = crate::diag::closest(&field, known.iter().copied())
                    .map(|n| format!("; did you mean `{n}`?"))
                    .unwrap_or_default();
                let place = if path.is_empty() {
                    String::new()
                } else {
                    format!(" in `{}`", crate::node::display_path(&path))
                };
                (pos, format!("unknown key `{field}`{place}{near}"))
            }
            typed::Fault::Invalid { path, message, pos } => (
                pos,
                format!("`{}`: {message}", crate::node::display_path(&path)),
            ),
        };
        self.fault(Some(pos), message).help(SUPPORTED_KEYS)
    }
}

/// What a settings fault's help says.
const SUPPORTED_KEYS: &str = "supported keys are `include`, `exclude`, `limits` (`maxFileBytes`, `maxDocuments`, `maxDepth`, `maxNodes`, `maxAliases`), `defaultNamespace`, `kubernetesVersion`, `massPrune` (`maxShare`, `minObjects`), `allowVanish`, `relax` (`check`, `paths`), `sources` (`kustomize`, or `helm`: `chart`, `releaseName`, `namespace`, `values`, `set`, `includeCRDs`) and `tools` (`kustomize`, `helm`)";

#[cfg(test)]
mod tests {
    use super::*;

    fn faults(text: &str) -> Vec<String> {
        let mut diagnostics = Diagnostics::default();
        read(text, FileId(0), &mut diagnostics);
        diagnostics.0.iter().map(|d| d.message.clone()).collect()
    }

    #[test]
    fn a_dry_source_path_must_stay_inside_the_repository_and_not_be_its_root() {
        assert_eq!(repository_path_fault("charts/web"), None);
        assert_eq!(repository_path_fault("apps/../charts/web/"), None);
        for (path, why) in [
            ("", "is empty"),
            (
                "/etc/charts",
                "is not a path relative to the repository root",
            ),
            ("C:/charts", "is not a path relative to the repository root"),
            ("../elsewhere", "leads out of the repository"),
            ("apps/../../x", "leads out of the repository"),
            (".", "names the repository root"),
            ("apps/..", "names the repository root"),
        ] {
            let fault = repository_path_fault(path).unwrap_or("accepted");
            assert!(fault.starts_with(why), "{path:?}: {fault}");
        }
    }

    #[test]
    fn allow_vanish_names_applications_as_the_vanish_guard_does() {
        assert_eq!(
            faults("allowVanish: [Deployment/shop/web, ClusterRole/fleet:reader]\n"),
            Vec::<String>::new()
        );
        let found = faults(
            "allowVanish: [deploy/shop/web, Deployment, Deployment//web, Deployment/a/b/c]\n",
        );
        assert_eq!(found.len(), 4, "{found:#?}");
        assert_eq!(
            found[0],
            "`garrison.yaml` is not valid: `allowVanish` entry `deploy/shop/web` does not name an application"
        );
    }

    #[test]
    fn a_sources_entry_names_one_tool_and_valid_release_names_and_namespaces() {
        assert_eq!(
            faults("sources:\n- kustomize: apps/prod\n- helm: {chart: charts/web, releaseName: web, namespace: shop}\n"),
            Vec::<String>::new()
        );
        let found = faults(
            "sources:\n- {}\n- helm: {chart: charts/web, releaseName: web.v2-Blue, namespace: a.b}\n",
        );
        assert_eq!(found.len(), 3, "{found:#?}");
        assert!(found[0].contains("names exactly one of `kustomize` and `helm`"));
        assert!(found[1].contains("the release name `web.v2-Blue`"));
        assert!(found[2].contains("the namespace `a.b`"));
        let found = faults(
            "sources:\n- helm:\n    chart: charts/web\n    releaseName: web\n    set: {image.tag: 1.10, replicas: 3, cpu: 0.5, big: 1e3, quoted: \"1.10\"}\n",
        );
        assert_eq!(
            found,
            [
                "`garrison.yaml` is not valid: `set` `image.tag: 1.10` is read as the number 1.1, and Helm would get 1.1",
                "`garrison.yaml` is not valid: `set` `big: 1e3` is read as the number 1000.0, and Helm would get 1000.0",
            ]
        );
        let found =
            faults("sources:\n- helm: {chart: charts/web, releaseName: web, includeCrds: true}\n");
        assert_eq!(
            found,
            ["`garrison.yaml` is not valid: unknown key `includeCrds` in `sources[0].helm`; did you mean `includeCRDs`?"]
        );
    }
}

//! A Helm release rendered with `helm template`, from a chart in the
//! repository: the chart's dependencies must be vendored under `charts/`
//! (Helm would otherwise need `helm dependency build`, which fetches), and
//! Helm's own configuration, cache and plugins are never read, so the same
//! chart and values render the same anywhere.

use super::Problem;
use crate::load::yaml::{parse_stream, Limits};
use crate::model::config::HelmSource;
use crate::node::NodeKind;
use std::path::Path;

/// Where Helm's configuration, cache and data homes point: a directory of
/// the system's temporary directory that is never made, unique to this
/// process, so no repository list, registry login or plugin of the machine
/// changes a render.
pub fn no_home() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("garrison-helm-home-{}-unmade", std::process::id()))
}

/// What is wrong with the chart before Helm runs: no `Chart.yaml`, a values
/// file that is missing, a dependency not vendored.
pub fn check(root: &Path, helm: &HelmSource) -> Result<(), Problem> {
    let chart = root.join(&helm.chart);
    let chart_file = format!("{}/Chart.yaml", helm.chart.trim_end_matches('/'));
    let Ok(text) = std::fs::read_to_string(root.join(&chart_file)) else {
        return Err(Problem::at_entry(
            &["helm", "chart"],
            format!("`{}` holds no `Chart.yaml`", helm.chart),
            "name the directory of a chart in the repository (charts from a repository or registry are vendored first: `helm pull --untar`)",
        ));
    };
    for (i, values) in helm.values.iter().enumerate() {
        if !root.join(values).is_file() {
            return Err(Problem::at_entry(
                &["helm", "values", &i.to_string()],
                format!("the values file `{values}` is not in the repository"),
                "fix the path (relative to the repository root), or remove the entry",
            ));
        }
    }
    let Ok(nodes) = parse_stream(&text, &Limits::default()) else {
        // Helm says what is wrong with it, in its own words.
        return Ok(());
    };
    let Some(dependencies) = nodes.first().and_then(|n| n.get_path(&["dependencies"])) else {
        return Ok(());
    };
    let NodeKind::Seq(items) = &dependencies.kind else {
        return Ok(());
    };
    for item in items {
        let Some(NodeKind::String(name)) = item.get_path(&["name"]).map(|n| &n.kind) else {
            continue;
        };
        if !vendored(&chart.join("charts"), name) {
            let repository = match item.get_path(&["repository"]).map(|n| &n.kind) {
                Some(NodeKind::String(r)) if !r.is_empty() => format!(" (from `{r}`)"),
                _ => String::new(),
            };
            return Err(Problem::in_file(
                &chart_file,
                text.clone(),
                item.pos,
                format!("the chart dependency `{name}`{repository} is not vendored under `{}/charts/`; garrison renders from the repository only and never fetches", helm.chart.trim_end_matches('/')),
                format!("run `helm dependency build {}` and commit its `charts/` directory", helm.chart),
            ));
        }
    }
    Ok(())
}

/// Whether `charts/` holds the dependency `name`, unpacked or packed.
fn vendored(charts: &Path, name: &str) -> bool {
    if charts.join(name).join("Chart.yaml").is_file() {
        return true;
    }
    std::fs::read_dir(charts)
        .into_iter()
        .flatten()
        .flatten()
        .any(|entry| {
            let file = entry.file_name().to_string_lossy().into_owned();
            file.strip_prefix(name)
                .and_then(|rest| rest.strip_prefix('-'))
                .is_some_and(|rest| rest.ends_with(".tgz"))
        })
}

/// The arguments of `helm template` for the release; `kube_version` is
/// the Kubernetes version templates are checked against (`garrison.yaml`'s
/// `kubernetesVersion`, or garrison's default), given to Helm as
/// `.Capabilities.KubeVersion` so the render does not depend on the
/// version Helm was built with.
pub fn arguments(helm: &HelmSource, kube_version: &str) -> Vec<String> {
    let mut args = vec![
        "template".to_string(),
        helm.release_name.clone(),
        format!("./{}", helm.chart.trim_end_matches('/')),
        "--namespace".to_string(),
        helm.namespace().to_string(),
        "--skip-tests".to_string(),
    ];
    if helm.include_crds() {
        args.push("--include-crds".to_string());
    }
    args.push("--kube-version".to_string());
    args.push(format!("v{kube_version}.0"));
    for values in &helm.values {
        args.push("--values".to_string());
        args.push(values.clone());
    }
    for (path, value) in &helm.set {
        args.push("--set-json".to_string());
        args.push(format!("{path}={value}"));
    }
    args
}

/// Helm's output cut at its `# Source:` comments into one text per chart
/// file, named by its path in the repository: `(path, text)` in the order
/// the files first appear.
pub fn split(chart_dir: &str, output: &str) -> Vec<(String, String)> {
    let chart_dir = chart_dir.trim_end_matches('/');
    let mut files: Vec<(String, String)> = Vec::new();
    let mut current: Option<usize> = None;
    for chunk in documents(output) {
        let source = chunk
            .lines()
            .find_map(|line| line.strip_prefix("# Source: "))
            .map(|s| s.trim().to_string());
        if let Some(source) = source {
            // `web/templates/x.yaml`: the chart's name, then its path in the chart.
            let inside = source
                .split_once('/')
                .map_or(source.as_str(), |(_, rest)| rest);
            let path = format!("{chart_dir}/{inside}");
            current = Some(match files.iter().position(|(p, _)| *p == path) {
                Some(index) => index,
                None => {
                    files.push((path, String::new()));
                    files.len() - 1
                }
            });
        }
        let index = match current {
            Some(index) => index,
            None => {
                files.push((format!("{chart_dir}/templates"), String::new()));
                files.len() - 1
            }
        };
        current = Some(index);
        if let Some((_, text)) = files.get_mut(index) {
            text.push_str("---\n");
            text.push_str(chunk);
            if !chunk.ends_with('\n') {
                text.push('\n');
            }
        }
    }
    files
}

/// The YAML documents of Helm's output, each without its `---` line.
fn documents(output: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut start = 0;
    let mut at = 0;
    for line in output.split_inclusive('\n') {
        if line.trim_end() == "---" {
            if !output[start..at].trim().is_empty() {
                found.push(&output[start..at]);
            }
            start = at + line.len();
        }
        at += line.len();
    }
    if !output[start..].trim().is_empty() {
        found.push(&output[start..]);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helms_output_is_cut_into_one_text_per_chart_file_named_by_its_repository_path() {
        let output = "---\n# Source: web/templates/service.yaml\nkind: Service\n---\n# Source: web/charts/db/templates/db.yaml\nkind: StatefulSet\n---\n# Source: web/templates/service.yaml\nkind: Service\nmetadata: {name: b}\n";
        let files = split("charts/web/", output);
        let names: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            names,
            [
                "charts/web/templates/service.yaml",
                "charts/web/charts/db/templates/db.yaml"
            ]
        );
        assert_eq!(
            files[0].1,
            "---\n# Source: web/templates/service.yaml\nkind: Service\n---\n# Source: web/templates/service.yaml\nkind: Service\nmetadata: {name: b}\n"
        );
    }

    #[test]
    fn the_arguments_pin_the_namespace_crds_kubernetes_version_values_and_typed_sets() {
        let mut set = serde_json::Map::new();
        set.insert("image.tag".into(), serde_json::json!("1.4"));
        set.insert("replicaCount".into(), serde_json::json!(3));
        let helm = HelmSource {
            chart: "charts/web".into(),
            release_name: "web".into(),
            namespace: Some("shop".into()),
            values: vec!["values/prod.yaml".into()],
            set,
            include_crds: None,
        };
        assert_eq!(
            arguments(&helm, "1.33").join(" "),
            "template web ./charts/web --namespace shop --skip-tests --include-crds --kube-version v1.33.0 --values values/prod.yaml --set-json image.tag=\"1.4\" --set-json replicaCount=3"
        );
        let without_crds = HelmSource {
            include_crds: Some(false),
            namespace: None,
            ..helm
        };
        assert_eq!(
            arguments(&without_crds, "1.36").join(" "),
            "template web ./charts/web --namespace default --skip-tests --kube-version v1.36.0 --values values/prod.yaml --set-json image.tag=\"1.4\" --set-json replicaCount=3",
            "no CRDs when asked, and the default namespace"
        );
    }
}

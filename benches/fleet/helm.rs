//! The benchmark fleet with its applications as Helm releases: one local
//! chart (`charts/app`: Deployment, Service, ConfigMap, and a kruise
//! `Rollout` when a release asks for one) and one release per application,
//! each a `sources` entry of `garrison.yaml` with its own values file
//! (`values/<release>.yaml`: replicas, image, resources, settings, the
//! placement label) and its namespace. The Namespaces, Clusters and
//! policies are the generator's own ([`Fleet::write_fleet`]), so the
//! releases are placed as its applications are (Duplicated and Divided).
//!
//! The same fleet as plain YAML is what `helm template` prints for each
//! release, with the release namespace written in: it is made by running
//! Helm ([`Fleet::write_rendered`]), and each release is checked to render
//! exactly the generator's objects for its application.

use super::{compare_objects, parse_objects, write, yaml_stream, App, Fleet, SIDECAR_IMAGE};
use garrison::model::config::HelmSource;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The chart's directory in the repository.
pub const CHART: &str = "charts/app";

const CHART_YAML: &str = "\
apiVersion: v2
name: app
description: One application of the benchmark fleet.
type: application
version: 1.0.0
appVersion: \"1.0.0\"
";

const HELPERS: &str = r#"{{- define "app.labels" -}}
app: {{ .Release.Name }}
team: {{ .Release.Namespace }}
{{- end }}

{{/* The metadata of every object but the Deployment, which is placed by its values. */}}
{{- define "app.metadata" -}}
name: {{ .Release.Name }}
labels:
  {{- include "app.labels" . | nindent 2 }}
  placement: dup
{{- end }}
"#;

const DEPLOYMENT: &str = r#"apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
  labels:
    {{- include "app.labels" . | nindent 4 }}
    placement: {{ .Values.placement }}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels:
      app: {{ .Release.Name }}
  template:
    metadata:
      labels:
        {{- include "app.labels" . | nindent 8 }}
    spec:
      containers:
      - name: app
        image: {{ .Values.image | quote }}
        ports:
        - name: http
          containerPort: 8080
        env: []
        envFrom:
        - configMapRef:
            name: {{ .Release.Name }}
        resources:
          {{- toYaml .Values.resources | nindent 10 }}
        readinessProbe:
          httpGet:
            path: /ready
            port: http
          periodSeconds: 5
        livenessProbe:
          httpGet:
            path: /healthz
            port: http
          initialDelaySeconds: 10
          periodSeconds: 10
      - name: proxy
        image: {{ .Values.proxy.image | quote }}
        args: ["--config", "/etc/envoy/envoy.yaml", "--log-level", "warn"]
        ports:
        - name: admin
          containerPort: 9901
        resources:
          {{- toYaml .Values.proxy.resources | nindent 10 }}
        readinessProbe:
          tcpSocket:
            port: 9901
          periodSeconds: 10
"#;

const SERVICE: &str = r#"apiVersion: v1
kind: Service
metadata:
  {{- include "app.metadata" . | nindent 2 }}
spec:
  selector:
    app: {{ .Release.Name }}
  ports:
  - name: http
    port: 80
    targetPort: http
    protocol: TCP
"#;

const CONFIGMAP: &str = r#"apiVersion: v1
kind: ConfigMap
metadata:
  {{- include "app.metadata" . | nindent 2 }}
data:
  {{- toYaml .Values.config | nindent 2 }}
"#;

// The namespace is written: without kruise's CustomResourceDefinition
// garrison cannot tell that a Rollout is namespaced, so it would not give
// it the release's namespace (the fleet's plain Rollouts name theirs too).
const ROLLOUT: &str = r#"{{- if .Values.rollout }}
apiVersion: rollouts.kruise.io/v1alpha1
kind: Rollout
metadata:
  {{- include "app.metadata" . | nindent 2 }}
  namespace: {{ .Release.Namespace }}
spec:
  workloadRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ .Release.Name }}
  strategy:
    canary:
      steps:
      - replicas: 1
        pause:
          duration: 60
      - replicas: 50%
        pause: {}
      - replicas: 100%
{{- end }}
"#;

/// The chart's defaults; every release's values file sets all but `proxy`.
fn default_values() -> Value {
    json!({
        "placement": "dup",
        "replicas": 1,
        "image": "registry.example.com/app:1.0.0",
        "resources": {
            "requests": {"cpu": "50m", "memory": "64Mi"},
            "limits": {"cpu": "1", "memory": "128Mi"}
        },
        "config": {},
        "rollout": false,
        "proxy": {
            "image": SIDECAR_IMAGE,
            "resources": {
                "requests": {"cpu": "50m", "memory": "64Mi"},
                "limits": {"cpu": "200m", "memory": "128Mi"}
            }
        }
    })
}

/// The values of `app`'s release: what makes its objects the generator's.
pub fn values(app: &App) -> Value {
    let resources =
        app.objects[0]["spec"]["template"]["spec"]["containers"][0]["resources"].clone();
    json!({
        "placement": if app.divided { "div" } else { "dup" },
        "replicas": app.replicas,
        "image": app.image,
        "resources": resources,
        "config": app.objects[2]["data"].clone(),
        "rollout": app.objects.len() > 3,
    })
}

/// `values/<release>.yaml`.
pub fn values_file(app: &App) -> String {
    format!("values/{}.yaml", app.name)
}

/// `app`'s release, as `garrison.yaml` names it.
pub fn source(app: &App) -> HelmSource {
    HelmSource {
        chart: CHART.to_string(),
        release_name: app.name.clone(),
        namespace: Some(app.namespace.to_string()),
        values: vec![values_file(app)],
        ..HelmSource::default()
    }
}

/// The Helm to run: `--helm PATH`, else `target/tools/helm` (the pinned
/// build of conformance/helm) when it is there, else `helm` on the PATH.
pub fn find_helm(given: Option<&str>) -> Result<PathBuf, String> {
    let found = match given {
        Some(path) => Some(PathBuf::from(path)).filter(|p| p.is_file()),
        None => Some(PathBuf::from("target/tools/helm"))
            .filter(|p| p.is_file())
            .or_else(|| {
                std::env::split_paths(&std::env::var_os("PATH")?)
                    .map(|dir| dir.join("helm"))
                    .find(|p| p.is_file())
            }),
    };
    let Some(found) = found else {
        return Err(match given {
            Some(path) => format!("--helm {path}: no such file"),
            None => "no Helm: build the pinned one into target/tools/helm (conformance/helm/README.md), put `helm` on the PATH, or pass --helm PATH".to_string(),
        });
    };
    std::path::absolute(&found).map_err(|e| format!("{}: {e}", found.display()))
}

/// `helm template` of `app`'s release in the repository `root`, with the
/// arguments and the empty Helm homes garrison runs it with: what it printed.
pub fn template(helm: &Path, root: &Path, app: &App) -> Result<String, String> {
    let home = garrison::load::dry::helm::no_home();
    let output = Command::new(helm)
        .args(garrison::load::dry::helm::arguments(
            &source(app),
            garrison::schema::builtin::DEFAULT_VERSION,
        ))
        .current_dir(root)
        .env("HELM_CACHE_HOME", &home)
        .env("HELM_CONFIG_HOME", &home)
        .env("HELM_DATA_HOME", &home)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", helm.display()))?;
    if !output.status.success() {
        return Err(format!(
            "helm template {}: {}",
            app.name,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    String::from_utf8(output.stdout).map_err(|_| format!("helm template {}: not UTF-8", app.name))
}

impl Fleet {
    /// The fleet with Helm releases under `root` (emptied first): the chart,
    /// a values file per release, `garrison.yaml` naming every release (and
    /// `tools.helm: HELM` when given), and [`Fleet::write_fleet`].
    pub fn write_helm(&self, root: &Path, helm: Option<&Path>) -> std::io::Result<()> {
        if root.exists() {
            std::fs::remove_dir_all(root)?;
        }
        let chart = root.join(CHART);
        write(&chart.join("Chart.yaml"), CHART_YAML)?;
        write(
            &chart.join("values.yaml"),
            &yaml_stream(&[default_values()]),
        )?;
        for (file, text) in [
            ("_helpers.tpl", HELPERS),
            ("deployment.yaml", DEPLOYMENT),
            ("service.yaml", SERVICE),
            ("configmap.yaml", CONFIGMAP),
            ("rollout.yaml", ROLLOUT),
        ] {
            write(&chart.join("templates").join(file), text)?;
        }
        for app in &self.apps {
            write(&root.join(values_file(app)), &yaml_stream(&[values(app)]))?;
        }
        let sources: Vec<Value> = self
            .apps
            .iter()
            .map(|app| {
                json!({"helm": {
                    "chart": CHART,
                    "releaseName": app.name,
                    "namespace": app.namespace,
                    "values": [values_file(app)]
                }})
            })
            .collect();
        let mut settings = json!({ "sources": sources });
        if let Some(helm) = helm {
            settings["tools"] = json!({"helm": helm.display().to_string()});
        }
        write(&root.join("garrison.yaml"), &yaml_stream(&[settings]))?;
        self.write_fleet(root)
    }

    /// Both fleets under `dir`: `helm/` ([`Fleet::write_helm`], with
    /// `tools.helm: TOOLS_HELM` when given) and `plain/`, what `helm`
    /// renders for each release ([`Fleet::write_rendered`]) beside
    /// [`Fleet::write_fleet`].
    pub fn write_helm_and_plain(
        &self,
        dir: &Path,
        helm: &Path,
        tools_helm: Option<&Path>,
    ) -> Result<(), String> {
        let (helm_repo, plain_repo) = (dir.join("helm"), dir.join("plain"));
        let failed = |path: &Path, e: std::io::Error| format!("writing {}: {e}", path.display());
        self.write_helm(&helm_repo, tools_helm)
            .map_err(|e| failed(&helm_repo, e))?;
        if plain_repo.exists() {
            std::fs::remove_dir_all(&plain_repo).map_err(|e| failed(&plain_repo, e))?;
        }
        for app in &self.apps {
            self.write_rendered(&plain_repo, app, &template(helm, &helm_repo, app)?)?;
        }
        self.write_fleet(&plain_repo)
            .map_err(|e| failed(&plain_repo, e))
    }

    /// `app`'s release as a plain file of the repository `root`
    /// (`apps/<namespace>/<release>.yaml`): `output`, what `helm template`
    /// printed, with the release namespace written into every object.
    /// Fails unless those are exactly the generator's objects for `app`.
    pub fn write_rendered(&self, root: &Path, app: &App, output: &str) -> Result<(), String> {
        let limits = garrison::load::yaml::Limits::default();
        let nodes = garrison::load::yaml::parse_stream(output, &limits)
            .map_err(|e| format!("helm template {}: {}", app.name, e.message))?;
        let objects: Vec<Value> = nodes
            .iter()
            .map(|node| {
                let mut object = node.to_value();
                object["metadata"]["namespace"] = Value::String(app.namespace.to_string());
                object
            })
            .collect();
        let text = yaml_stream(&objects);
        compare_objects(
            &parse_objects(&yaml_stream(&app.objects))?,
            &parse_objects(&text)?,
        )
        .map_err(|e| format!("release {} renders other objects: {e}", app.name))?;
        write(&root.join(app.file()), &text).map_err(|e| e.to_string())
    }

    /// Change the first release's values (its image tag, to one that
    /// `generation` makes new) in the Helm fleet under `root`; returns the
    /// file written.
    pub fn touch_values(&self, root: &Path, generation: u64) -> std::io::Result<PathBuf> {
        let mut app = self.apps[0].clone();
        app.image = format!("{}:2.0.{generation}", app.image_name());
        let path = root.join(values_file(&app));
        write(&path, &yaml_stream(&[values(&app)]))?;
        Ok(path)
    }
}

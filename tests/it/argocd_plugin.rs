//! The Argo CD config management plugin (`.ci/container/plugin.yaml`), run
//! as Argo CD's cmp-server runs it: its `init` and `generate` commands
//! exec'd as written (`sh -c SCRIPT`), in the Application's source path,
//! with the environment the cmp-server gives them and nothing else. Its
//! stdout must be the cluster's manifests alone, as `render` writes them.

use crate::support::{copy_dir, read, read_tree, render_to, root, stderr, temp, testdata, yaml};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The plugin definition the image ships.
fn plugin() -> Value {
    let path = root().join(".ci/container/plugin.yaml");
    let docs = yaml(&read(&path), ".ci/container/plugin.yaml");
    let Some(plugin) = docs.into_iter().next() else {
        panic!("{} holds no document", path.display());
    };
    plugin
}

/// The argv of the plugin's `stage` (`init`, `generate`): its command,
/// then its args, as the cmp-server execs them.
fn argv(plugin: &Value, stage: &str) -> Vec<String> {
    let words = |key: &str| -> Vec<String> {
        plugin["spec"][stage][key]
            .as_array()
            .into_iter()
            .flatten()
            .map(|w| w.as_str().unwrap_or_default().to_string())
            .collect()
    };
    let argv: Vec<String> = words("command").into_iter().chain(words("args")).collect();
    assert!(!argv.is_empty(), "the plugin has no {stage} command");
    argv
}

/// The Application the plugin renders for: its name, and the parameters
/// and `env` its `spec.source.plugin` sets.
struct Application<'a> {
    parameters: &'a [(&'a str, &'a str)],
    env: &'a [(&'a str, &'a str)],
}

/// The plugin's `stage`, run in `checkout`'s `source_path` as the cmp-server
/// runs it for `app`: the build environment of Argo CD, the parameters as
/// `PARAM_<NAME>` and `ARGOCD_APP_PARAMETERS`, the plugin env as
/// `ARGOCD_ENV_<NAME>`, and the tested garrison on the PATH.
fn run_stage(stage: &str, checkout: &Path, source_path: &str, app: &Application<'_>) -> Output {
    let argv = argv(&plugin(), stage);
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_garrison"));
    let bin_dir = bin.parent().map(Path::to_path_buf).unwrap_or_default();
    let home = checkout.with_extension("home");
    let _ = std::fs::create_dir_all(&home);
    let mut command = Command::new(&argv[0]);
    command
        .args(&argv[1..])
        .current_dir(checkout.join(source_path))
        .env_clear()
        .env(
            "PATH",
            format!("{}:/usr/local/bin:/usr/bin:/bin", bin_dir.display()),
        )
        .env("HOME", &home)
        .env("ARGOCD_APP_NAME", "fleet-eu-central-1")
        .env("ARGOCD_APP_NAMESPACE", "argocd")
        .env("ARGOCD_APP_PROJECT_NAME", "default")
        .env(
            "ARGOCD_APP_REVISION",
            "4c1f3c9a8e0d8b6a7f5e4d3c2b1a09f8e7d6c5b4",
        )
        .env("ARGOCD_APP_REVISION_SHORT", "4c1f3c9")
        .env("ARGOCD_APP_SOURCE_PATH", source_path)
        .env(
            "ARGOCD_APP_SOURCE_REPO_URL",
            "https://git.example.com/platform/fleet.git",
        )
        .env("ARGOCD_APP_SOURCE_TARGET_REVISION", "main")
        .env("KUBE_VERSION", "1.33.1")
        .env(
            "KUBE_API_VERSIONS",
            "v1,apps/v1,batch/v1,policy/v1,networking.k8s.io/v1,rbac.authorization.k8s.io/v1",
        )
        .stdin(Stdio::null());
    let mut parameters = Vec::new();
    for (name, value) in app.parameters {
        let variable = format!(
            "PARAM_{}",
            name.to_uppercase()
                .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        );
        command.env(variable, value);
        parameters.push(serde_json::json!({ "name": name, "string": value }));
    }
    command.env(
        "ARGOCD_APP_PARAMETERS",
        serde_json::to_string(&parameters).unwrap_or_default(),
    );
    for (name, value) in app.env {
        command.env(format!("ARGOCD_ENV_{name}"), value);
    }
    command
        .output()
        .unwrap_or_else(|e| panic!("cannot run the plugin's {stage} command {argv:?}: {e}"))
}

/// The repository as the cmp-server receives it: `fleet` (a directory of
/// `testdata/` holding `repo/`) at `fleet/` of a checkout.
fn checkout(dir: &Path, fleet: &str) -> PathBuf {
    let checkout = dir.join("checkout");
    copy_dir(
        &testdata().join(fleet).join("repo"),
        &checkout.join("fleet"),
    );
    checkout
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn generate_prints_one_clusters_manifests_and_nothing_else() {
    let dir = temp();
    let checkout = checkout(dir.path(), "fleet");
    let app = Application {
        parameters: &[("cluster", "eu-central-1")],
        env: &[],
    };
    let init = run_stage("init", &checkout, "fleet", &app);
    assert_eq!(init.status.code(), Some(0), "{}", stderr(&init));
    assert!(
        init.stdout.is_empty(),
        "init printed {:?}",
        text(&init.stdout)
    );

    let generated = run_stage("generate", &checkout, "fleet", &app);
    assert_eq!(generated.status.code(), Some(0), "{}", stderr(&generated));
    let shown_stderr = stderr(&generated);
    assert!(
        !shown_stderr.contains("loading the repository") && !shown_stderr.contains('\u{1b}'),
        "progress on stderr: {shown_stderr:?}"
    );
    assert!(
        !checkout.join("fleet/.garrison-cache").exists(),
        "the plugin left a parse cache in the source"
    );

    // What `render` writes for the cluster, file by file, in file order.
    let out = dir.path().join("out");
    let rendered = render_to(&checkout.join("fleet"), &out, &["-q", "--no-cache"]);
    assert!(rendered.status.success(), "{}", stderr(&rendered));
    let expected: Vec<Value> = read_tree(&out.join("clusters/eu-central-1"))
        .into_iter()
        .filter(|(path, _)| path != "kustomization.yaml")
        .flat_map(|(path, bytes)| yaml(&text(&bytes), &path))
        .collect();
    assert!(expected.len() > 3, "{} objects", expected.len());
    let stream = text(&generated.stdout);
    let documents = yaml(&stream, "the plugin's stdout");
    assert_eq!(documents.len(), expected.len(), "{stream}");
    assert_eq!(documents, expected);
    for document in &documents {
        assert!(
            document["apiVersion"].is_string() && document["kind"].is_string(),
            "not a Kubernetes object: {document}"
        );
    }
}

#[test]
fn the_cluster_may_come_from_the_plugin_env() {
    let dir = temp();
    let checkout = checkout(dir.path(), "fleet");
    let by_parameter = run_stage(
        "generate",
        &checkout,
        "fleet",
        &Application {
            parameters: &[("cluster", "edge-lab")],
            env: &[],
        },
    );
    let by_env = run_stage(
        "generate",
        &checkout,
        "fleet",
        &Application {
            parameters: &[],
            env: &[("CLUSTER", "edge-lab")],
        },
    );
    assert_eq!(by_env.status.code(), Some(0), "{}", stderr(&by_env));
    assert!(!by_env.stdout.is_empty());
    assert_eq!(by_env.stdout, by_parameter.stdout);
}

#[test]
fn a_bad_repository_or_cluster_fails_generate_with_the_error_on_stderr() {
    let dir = temp();
    let bad = dir.path().join("bad");
    copy_dir(
        &testdata().join("bad-input/G0101-bad-indentation/repo"),
        &bad.join("fleet"),
    );
    let app = Application {
        parameters: &[("cluster", "eu-central-1")],
        env: &[],
    };
    let failed = run_stage("generate", &bad, "fleet", &app);
    assert_eq!(failed.status.code(), Some(2), "{}", stderr(&failed));
    assert!(failed.stdout.is_empty(), "{:?}", text(&failed.stdout));
    assert!(
        stderr(&failed).contains("error[G0101]"),
        "{}",
        stderr(&failed)
    );

    let checkout = checkout(dir.path(), "fleet");
    let unknown = run_stage(
        "generate",
        &checkout,
        "fleet",
        &Application {
            parameters: &[("cluster", "eu-centrl-1")],
            env: &[],
        },
    );
    assert_eq!(unknown.status.code(), Some(2));
    assert!(unknown.stdout.is_empty());
    assert_eq!(
        stderr(&unknown),
        "garrison: error: the fleet has no cluster `eu-centrl-1`; did you mean `eu-central-1`?\n"
    );

    let unnamed = run_stage(
        "generate",
        &checkout,
        "fleet",
        &Application {
            parameters: &[],
            env: &[],
        },
    );
    assert_eq!(unnamed.status.code(), Some(2));
    assert!(unnamed.stdout.is_empty());
    assert_eq!(
        stderr(&unnamed),
        "garrison: name the cluster to render: the plugin parameter cluster, or the plugin env CLUSTER\n"
    );
}

/// A paused cluster keeps what the stored render gave it; the plugin has
/// none, so it refuses rather than print nothing, which Argo CD would
/// prune the cluster to.
#[test]
fn generate_refuses_a_paused_cluster() {
    let dir = temp();
    let checkout = checkout(dir.path(), "fleet");
    let paused = run_stage(
        "generate",
        &checkout,
        "fleet",
        &Application {
            parameters: &[("cluster", "us-west-2")],
            env: &[],
        },
    );
    assert_eq!(paused.status.code(), Some(2), "{}", stderr(&paused));
    assert!(paused.stdout.is_empty());
    assert!(
        stderr(&paused).contains("cluster `us-west-2` is paused"),
        "{}",
        stderr(&paused)
    );
}

/// `docs/delivery.md` shows the plugin as the image ships it, and installs
/// and uses it as it is: the sidecar runs the image of this version with
/// Argo CD's cmp-server as user 999, and the Applications name the plugin
/// and its parameter.
#[test]
fn the_delivery_docs_show_install_and_use_the_plugin_the_image_ships() {
    let docs = read(&root().join("docs/delivery.md"));
    let shipped = read(&root().join(".ci/container/plugin.yaml"));
    assert!(
        docs.contains(&format!("```yaml\n{shipped}```\n")),
        "docs/delivery.md does not show .ci/container/plugin.yaml as it is"
    );
    let plugin = plugin();
    let name = plugin["metadata"]["name"].as_str().unwrap_or_default();
    let parameters: Vec<&str> = plugin["spec"]["parameters"]["static"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(parameters, ["cluster"]);
    assert!(
        plugin["spec"].get("discover").is_none(),
        "the plugin must not claim Applications that do not name it"
    );

    let mut sidecars = Vec::new();
    let mut sources = Vec::new();
    for block in docs.split("```yaml\n").skip(1) {
        let block = block.split("```").next().unwrap_or_default();
        for doc in yaml(block, "docs/delivery.md") {
            if let Some(containers) = doc.pointer("/spec/template/spec/containers") {
                sidecars.extend(containers.as_array().cloned().unwrap_or_default());
            }
            if let Some(source) = doc.pointer("/spec/template/spec/source/plugin") {
                sources.push(source.clone());
            }
        }
    }
    let [sidecar] = sidecars.as_slice() else {
        panic!("one sidecar expected: {sidecars:?}");
    };
    assert_eq!(
        sidecar["image"],
        format!("ghcr.io/your-org/garrison:{}", env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(sidecar["command"][0], "/var/run/argocd/argocd-cmp-server");
    assert_eq!(sidecar["securityContext"]["runAsUser"], 999);
    let mounts: Vec<&str> = sidecar["volumeMounts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["mountPath"].as_str())
        .collect();
    assert_eq!(
        mounts,
        ["/var/run/argocd", "/home/argocd/cmp-server/plugins", "/tmp"]
    );
    let [source] = sources.as_slice() else {
        panic!("one Application template naming the plugin expected: {sources:?}");
    };
    assert_eq!(source["name"], name);
    assert_eq!(source["parameters"][0]["name"], "cluster");
    let dockerfile = read(&root().join(".ci/container/Dockerfile"));
    assert!(
        dockerfile.contains("COPY plugin.yaml /home/argocd/cmp-server/config/plugin.yaml")
            && dockerfile.contains("USER 999:999"),
        "the image does not carry the plugin where the cmp-server reads it, or runs as another user"
    );
}

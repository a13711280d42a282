//! ResourceInterpreterCustomizations through the real binary: the
//! revise-object hook on every cluster (zero replicas included), a
//! runaway script failing the render with nothing written (SPEC §4, §8),
//! and the customizations Karmada publishes rendering without a warning.

use crate::fleet::{clusters, deployment, policy, weighted, Fleet};
use crate::support::stderr;

const FORT: &[(&str, &str)] = &[("garrison.dev/fort", "enabled")];

fn customization(hook: &str) -> String {
    let body: String = hook.lines().map(|l| format!("        {l}\n")).collect();
    format!("apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata:\n  name: deployment-hook\nspec:\n  target:\n    apiVersion: apps/v1\n    kind: Deployment\n  customizations:\n    garrisonReviseObject:\n      luaScript: |\n{body}")
}

#[test]
fn the_hook_runs_for_every_cluster_including_zero_replicas() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &clusters(&["x", "v", "z"]));
    fleet.write("app.yaml", &deployment("web", 1, "v1"));
    fleet.write(
        "policy.yaml",
        &policy("web", &weighted(&[("x", 1), ("v", 3), ("z", 1)]), FORT, ""),
    );
    fleet.write(
        "hook.yaml",
        &customization(
            "function ReviseObject(obj, cluster, replicas, fort)\n  obj.metadata.labels = {seen = cluster.name .. \"-\" .. replicas .. \"-\" .. tostring(fort.isFort) .. \"-\" .. cluster.labels[\"garrison.dev/fort\"]}\n  return obj\nend",
        ),
    );
    let render = fleet.render();
    for (cluster, seen) in [
        ("x", "x-0-false-false"),
        ("v", "v-1-true-true"),
        ("z", "z-0-false-false"),
    ] {
        let file = render.file(&format!("clusters/{cluster}/apps/deployment.apps_web.yaml"));
        assert!(
            file.contains(&format!("seen: {seen}")),
            "{cluster}:\n{file}"
        );
    }
}

#[test]
fn a_runaway_hook_fails_the_render_naming_application_and_cluster() {
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &clusters(&["x"]));
    fleet.write("app.yaml", &deployment("web", 2, "v1"));
    fleet.write(
        "policy.yaml",
        &policy("web", &weighted(&[("x", 1)]), &[], ""),
    );
    fleet.write(
        "hook.yaml",
        &customization("function ReviseObject(obj)\n  while true do pcall(function() while true do end end) end\nend"),
    );
    let output = fleet.try_render(&[]);
    assert!(!output.status.success());
    // Whichever limit fires first (the time limit can, on a loaded machine).
    let limit = |what: &str| {
        format!("hook.yaml:12:9: error[G0703]: ResourceInterpreterCustomization/deployment-hook `ReviseObject` (garrisonReviseObject) failed on `Deployment/apps/web` for cluster `x`: the script {what} (help: scripts are limited to 64 MiB of memory and, per call, 50 million instructions and 1 s; look for a loop that never ends)\ngarrison: 1 error(s), 0 warning(s); nothing was written\n")
    };
    let said = stderr(&output);
    assert!(
        said == limit("ran more than 50000000 instructions (runaway loop?)")
            || said.starts_with("hook.yaml:12:9: error[G0703]: ResourceInterpreterCustomization/deployment-hook `ReviseObject` (garrisonReviseObject) failed on `Deployment/apps/web` for cluster `x`: the script ran longer than"),
        "{said}"
    );
    assert!(!fleet.out().join("clusters").exists(), "nothing is written");
}

/// The customizations Karmada v1.18.2 embeds (its `default/thirdparty`
/// interpreter: Kruise, Argo, Flux, Kubeflow, Ray, ...), which G0704's help
/// tells users to copy into their repository, copied from the module cache
/// at test time: every one renders under `--strict`. Their status, health,
/// retention and component rules change no Work, so none is warned about.
#[test]
fn every_customization_karmada_embeds_renders_under_strict() {
    let karmada = crate::go_program::module_dir(
        "karmada",
        "github.com/karmada-io/karmada",
        "the test reads Karmada's module and needs Go",
    );
    let root = karmada.join("pkg/resourceinterpreter/default/thirdparty/resourcecustomizations");
    let fleet = Fleet::new();
    fleet.write("clusters.yaml", &clusters(&["member1", "member2"]));
    let mut copied = Vec::new();
    for group in read_dir(&root) {
        for version in read_dir(&group) {
            for kind in read_dir(&version) {
                let file = kind.join("customizations.yaml");
                let Ok(text) = std::fs::read_to_string(&file) else {
                    panic!("cannot read {}", file.display());
                };
                let name = [&group, &version, &kind]
                    .map(|p| {
                        p.file_name()
                            .unwrap_or_default()
                            .to_string_lossy()
                            .into_owned()
                    })
                    .join("_");
                fleet.write(&format!("customizations/{name}.yaml"), &text);
                copied.push(name);
            }
        }
    }
    assert!(copied.len() >= 27, "only {copied:?} in {}", root.display());
    let output = fleet.try_render(&["--strict"]);
    assert!(
        output.status.success() && !stderr(&output).contains("warning"),
        "{}",
        stderr(&output)
    );
}

/// The directories in `dir`, sorted.
fn read_dir(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found: Vec<std::path::PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect(),
        Err(e) => panic!("cannot read {}: {e}", dir.display()),
    };
    found.sort();
    found
}

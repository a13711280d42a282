//! Fleet generator CLI:
//! `cargo bench --bench fleetgen -- --templates T --clusters C --out DIR [--seed S]`.
//! Writes `DIR/garrison/` and `DIR/kustomize/` (see `benches/fleet/mod.rs`).
//! With `--releases R [--helm PATH]` instead of `--templates`: `DIR/helm/`,
//! R Helm releases of one local chart, and `DIR/plain/`, what `helm
//! template` prints for each (see `benches/fleet/helm.rs`).

// A command-line tool: what it made is reported on stdout.
#![allow(clippy::print_stdout)]

mod fleet;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn main() {
    let args = fleet::args();
    let clusters = fleet::arg(&args, "clusters", 10usize);
    let out = PathBuf::from(fleet::arg(&args, "out", String::from("target/fleet")));
    if args.contains_key("releases") {
        releases(&args, clusters, &out);
        return;
    }
    let templates = fleet::arg(&args, "templates", 200usize);
    let mut spec = fleet::Spec::new(templates, clusters);
    spec.seed = fleet::arg(&args, "seed", spec.seed);
    let summary = fleet::fleet(spec)
        .write(&out)
        .unwrap_or_else(|e| panic!("writing {}: {e}", out.display()));
    println!(
        "{}: {} templates in {} apps, {} clusters, {} objects to render",
        out.display(),
        summary.templates,
        summary.apps,
        clusters,
        summary.rendered_objects
    );
}

/// The Helm fleet and, rendered by Helm, the plain one.
fn releases(args: &BTreeMap<String, String>, clusters: usize, out: &Path) {
    let mut spec = fleet::Spec::apps(fleet::arg(args, "releases", 200usize), clusters);
    spec.seed = fleet::arg(args, "seed", spec.seed);
    let helm = fleet::helm::find_helm(args.get("helm").map(String::as_str))
        .unwrap_or_else(|e| panic!("{e}"));
    let fleet = fleet::fleet(spec);
    fleet
        .write_helm_and_plain(out, &helm, None)
        .unwrap_or_else(|e| panic!("{e}"));
    let summary = fleet.summary();
    println!(
        "{}: {} Helm releases ({} templates), {} clusters, {} objects to render; {}: the same as plain YAML",
        out.join("helm").display(),
        summary.apps,
        summary.templates,
        clusters,
        summary.rendered_objects,
        out.join("plain").display()
    );
}

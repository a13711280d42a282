//! Fleet generator CLI:
//! `cargo bench --bench fleetgen -- --templates T --clusters C --out DIR [--seed S]`.
//! Writes `DIR/garrison/` and `DIR/kustomize/` (see `benches/fleet/mod.rs`).

// A command-line tool: what it made is reported on stdout.
#![allow(clippy::print_stdout)]

mod fleet;

use std::path::PathBuf;

fn main() {
    let args = fleet::args();
    let templates = fleet::arg(&args, "templates", 200usize);
    let clusters = fleet::arg(&args, "clusters", 10usize);
    let out = PathBuf::from(fleet::arg(&args, "out", String::from("target/fleet")));
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

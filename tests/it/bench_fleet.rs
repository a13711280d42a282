//! The benchmark fleet (`benches/fleet/mod.rs`) is really equivalent on both
//! sides: `kubectl kustomize` of every overlay and garrison's cluster
//! directories hold the same objects (garrison's own annotations aside).

#[path = "../../benches/fleet/mod.rs"]
pub(crate) mod fleetgen;

use crate::support::garrison;

#[test]
fn the_benchmark_fleet_renders_like_its_kustomize_overlays() {
    let dir = tempfile::tempdir().unwrap();
    let fleet = fleetgen::fleet(fleetgen::Spec::new(20, 3));
    let summary = fleet.write(dir.path()).unwrap();
    assert_eq!(summary.templates, 20);
    let out = dir.path().join("out");
    let output = garrison()
        .arg("render")
        .arg("--repo")
        .arg(dir.path().join("garrison"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let compared = fleetgen::check_all(&fleet, dir.path(), &out).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(compared, summary.rendered_objects);
}

#[test]
fn the_benchmark_fleet_is_deterministic() {
    let a = fleetgen::fleet(fleetgen::Spec::new(50, 4));
    let b = fleetgen::fleet(fleetgen::Spec::new(50, 4));
    let docs = |f: &fleetgen::Fleet| -> Vec<String> {
        f.apps
            .iter()
            .map(|a| fleetgen::yaml_stream(&a.objects))
            .collect()
    };
    assert_eq!(docs(&a), docs(&b));
    assert_eq!(a.apps.iter().map(|a| a.objects.len()).sum::<usize>(), 50);
    // Webster with equal weights: the remainder goes to the smallest names.
    let division = a.division(10);
    assert_eq!(division.values().copied().collect::<Vec<_>>(), [3, 3, 2, 2]);
}

//! Whole-process benchmark of dry sources: a fleet whose applications are
//! Helm releases, against the same fleet as plain YAML and against running
//! `helm template` for every release.
//!
//! ```sh
//! cargo bench --bench helm -- [--releases 200] [--clusters 10] [--runs 3]
//!     [--rerenders 9] [--jobs 2] [--helm PATH] [--dir target/bench-helm]
//! ```
//!
//! Writes the generator's fleet (`benches/fleet/`) twice: `helm/`, each
//! application a release of one local chart with its own values file
//! (`benches/fleet/helm.rs`), and `plain/`, what `helm template` prints for
//! each release written as plain templates (made here by running Helm once
//! per release, untimed). The Helm fleet's `tools.helm` is a shim that logs
//! every run of Helm before running it, so the bench can say how many times
//! each render ran Helm: a re-render where nothing changed must run it not
//! at all, one after a values file changed only that release (twice: a
//! source's output must be the same on two runs).
//!
//! Then it times, with the release binary, side by side: the first render
//! of each fleet (no parse cache), re-renders of both with nothing changed
//! (alternating, so that both see the same machine), and re-renders of the
//! Helm fleet after one release's values file changed (a new image tag each
//! time); then `helm template` of every release, one after the other as a
//! pre-render script would run it (and `--jobs` at a time), with the
//! arguments and environment garrison gives it, each writing its output to
//! a file. The no-change ratio is given of the medians and as the median
//! of each back-to-back pair's ratio, in wall time and in user CPU time
//! (garrison's own work: on a virtual machine the kernel's share, mostly
//! zeroing fresh pages, varies several-fold from run to run). Before the re-renders it checks that
//! both fleets render the same objects. Times are medians of `--runs`, or
//! of `--rerenders` for the re-renders (a tenth of a second each, on a
//! machine whose speed drifts: more of them steady their medians), each
//! run preceded by `sync` and a second's wait (`benches/timing`).

// A command-line tool: its timings are its output, on stdout (and why it
// cannot run, on stderr).
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod fleet;
mod timing;

use fleet::helm;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use timing::{first_renders, median, render, row, secs, Run};

/// The log of the Helm shim: one line per run of Helm, its arguments.
struct HelmLog(PathBuf);

impl HelmLog {
    fn lines(&self) -> Vec<String> {
        std::fs::read_to_string(&self.0)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// `step`, and the runs of Helm it caused.
    fn during<T>(&self, step: impl FnOnce() -> T) -> (T, Vec<String>) {
        let before = self.lines().len();
        let result = step();
        let mut after = self.lines();
        (result, after.split_off(before.min(after.len())))
    }
}

/// A program that logs its arguments to `log`, then runs `real`.
fn write_shim(path: &Path, real: &Path, log: &Path) {
    use std::os::unix::fs::PermissionsExt as _;
    let text = format!(
        "#!/bin/sh\n# Logs each run of Helm for the benchmark, then runs it.\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
        log.display(),
        real.display()
    );
    std::fs::create_dir_all(path.parent().expect("the shim has a directory")).expect("bin/");
    std::fs::write(path, text).expect("write the Helm shim");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .expect("make the shim executable");
}

/// `helm template` of every release, `jobs` at a time, each printing into
/// `into/<release>.yaml`: its wall time and the CPU time of the Helm runs.
fn helm_template_all(
    helm: &Path,
    fleet: &fleet::Fleet,
    repo: &Path,
    into: &Path,
    jobs: usize,
) -> Run {
    let _ = std::fs::remove_dir_all(into);
    std::fs::create_dir_all(into).expect("the pre-render directory");
    timing::settle();
    let cpu = timing::children_cpu();
    let wall = timing::in_parallel(&fleet.apps, jobs, |app| {
        let output = helm::template(helm, repo, app).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(into.join(format!("{}.yaml", app.name)), output)
            .expect("write the release's output");
    });
    Run {
        wall,
        rss_kib: 0,
        cpu: timing::children_cpu().saturating_sub(cpu),
        user: Duration::ZERO,
    }
}

/// The no-change re-renders of the Helm fleet against the plain fleet's,
/// by one measure: the medians, and each back-to-back pair's ratio (the
/// least disturbed by a busy spell of the machine), sorted, and their median.
struct Ratio {
    measure: &'static str,
    helm: f64,
    plain: f64,
    pairs: Vec<f64>,
    pair: f64,
}

impl Ratio {
    fn of(measure: &'static str, helm: &[Run], plain: &[Run], by: fn(&Run) -> Duration) -> Ratio {
        let median = |runs: &[Run]| {
            let mut values: Vec<f64> = runs.iter().map(|r| secs(by(r))).collect();
            values.sort_by(f64::total_cmp);
            values[values.len() / 2]
        };
        let mut pairs: Vec<f64> = helm
            .iter()
            .zip(plain)
            .map(|(h, p)| secs(by(h)) / secs(by(p)))
            .collect();
        pairs.sort_by(f64::total_cmp);
        Ratio {
            measure,
            helm: median(helm),
            plain: median(plain),
            pair: pairs[pairs.len() / 2],
            pairs,
        }
    }

    fn print(&self) {
        let pairs: Vec<String> = self.pairs.iter().map(|r| format!("{r:.2}")).collect();
        println!(
            "no change, Helm fleet / plain fleet, {}: {:.3}s / {:.3}s = {:.2}x; the median pair {:.2}x ({}) (target <= 2x)",
            self.measure,
            self.helm,
            self.plain,
            self.helm / self.plain,
            self.pair,
            pairs.join(", ")
        );
    }
}

/// Both fleets' cluster directories hold the same objects (garrison's
/// annotations aside); the number of objects compared.
fn same_objects(fleet: &fleet::Fleet, a: &Path, b: &Path) -> Result<usize, String> {
    let mut total = 0;
    for cluster in &fleet.clusters {
        let read =
            |out: &Path| fleet::read_garrison_cluster(&out.join("clusters").join(&cluster.name));
        total += fleet::compare_objects(&read(a)?, &read(b)?)
            .map_err(|e| format!("{}: {e}", cluster.name))?;
    }
    Ok(total)
}

fn main() {
    let args = fleet::args();
    let releases = fleet::arg(&args, "releases", 200usize);
    let clusters = fleet::arg(&args, "clusters", 10usize);
    let runs = fleet::arg(&args, "runs", 3usize).max(1);
    let rerenders = fleet::arg(&args, "rerenders", 9usize).max(1);
    let jobs = fleet::arg(&args, "jobs", 2usize);
    let real_helm = helm::find_helm(args.get("helm").map(String::as_str)).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2);
    });
    let dir = PathBuf::from(fleet::arg(
        &args,
        "dir",
        format!("target/bench-helm/{releases}x{clusters}"),
    ));
    let dir = std::path::absolute(&dir).expect("absolute path");
    let version = std::process::Command::new(&real_helm)
        .args(["version", "--template", "{{.Version}}"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();

    let fleet = fleet::fleet(fleet::Spec::apps(releases, clusters));
    let start = Instant::now();
    let _ = std::fs::remove_dir_all(&dir);
    let (helm_repo, plain_repo) = (dir.join("helm"), dir.join("plain"));
    let log = HelmLog(dir.join("helm-runs.log"));
    let shim = dir.join("bin/helm");
    write_shim(&shim, &real_helm, &log.0);
    fleet
        .write_helm_and_plain(&dir, &real_helm, Some(&shim))
        .unwrap_or_else(|e| panic!("{e}"));
    let summary = fleet.summary();
    println!(
        "fleet: {} Helm releases of one chart ({} templates) x {clusters} clusters, {} objects rendered; helm {version} ({}); plain fleet written from helm template, every release checked against the generator; {:.1}s, under {}",
        fleet.apps.len(),
        summary.templates,
        summary.rendered_objects,
        real_helm.display(),
        secs(start.elapsed()),
        dir.display()
    );

    let (helm_out, plain_out) = (dir.join("out-helm"), dir.join("out-plain"));
    let (first, ran) = log.during(|| first_renders(&helm_repo, &helm_out, runs));
    let templates = ran.iter().filter(|l| l.starts_with("template ")).count();
    println!(
        "check: {runs} first render(s) of the Helm fleet ran helm template {templates} times ({} per render) and helm version {} times",
        templates / runs,
        ran.len() - templates
    );
    assert_eq!(
        templates,
        runs * fleet.apps.len() * 2,
        "every release rendered, twice"
    );
    let plain_first = first_renders(&plain_repo, &plain_out, runs);

    let compared = same_objects(&fleet, &helm_out, &plain_out).unwrap_or_else(|e| panic!("{e}"));
    println!("check: the Helm fleet and the plain fleet render the same {compared} objects");

    // Alternating, so that both fleets' re-renders see the same machine.
    let mut helm_again = Vec::new();
    let mut plain_again = Vec::new();
    for _ in 0..rerenders {
        let (run, ran) = log.during(|| render(&helm_repo, &helm_out));
        assert!(ran.is_empty(), "a no-change re-render ran Helm: {ran:?}");
        helm_again.push(run);
        plain_again.push(render(&plain_repo, &plain_out));
    }
    println!("check: {rerenders} no-change re-render(s) of the Helm fleet ran helm 0 times");
    let no_change = [
        Ratio::of("wall", &helm_again, &plain_again, |r| r.wall),
        Ratio::of("user CPU", &helm_again, &plain_again, |r| r.user),
    ];
    let (helm_again, plain_again) = (median(helm_again), median(plain_again));

    let expected = format!("template {} ", fleet.apps[0].name);
    let one = median(
        (0..rerenders)
            .map(|generation| {
                fleet
                    .touch_values(&helm_repo, generation as u64 + 1)
                    .expect("change one values file");
                let (run, ran) = log.during(|| render(&helm_repo, &helm_out));
                assert!(
                    ran.len() == 2 && ran.iter().all(|line| line.starts_with(&expected)),
                    "one values file changed, one release rendered (twice): {ran:?}"
                );
                run
            })
            .collect(),
    );
    println!(
        "check: {rerenders} re-render(s) after one values file changed ran helm for that release only, twice each (`{}...`)",
        expected.trim_end()
    );

    let prerender = dir.join("prerendered");
    let sequential = median(
        (0..runs)
            .map(|_| helm_template_all(&real_helm, &fleet, &helm_repo, &prerender, 1))
            .collect(),
    );
    let parallel = (jobs > 1).then(|| {
        median(
            (0..runs)
                .map(|_| helm_template_all(&real_helm, &fleet, &helm_repo, &prerender, jobs))
                .collect(),
        )
    });

    let n = fleet.apps.len();
    println!();
    timing::header();
    row("Helm fleet: first render (no cache)", &first);
    row("Helm fleet: re-render, no change", &helm_again);
    row("Helm fleet: one values file changed", &one);
    row("plain fleet: first render (no cache)", &plain_first);
    row("plain fleet: re-render, no change", &plain_again);
    row(&format!("helm template x{n}, sequential"), &sequential);
    if let Some(parallel) = &parallel {
        row(&format!("helm template x{n}, {jobs} jobs"), parallel);
    }
    let ratio = |a: &Run, b: &Run| secs(a.wall) / secs(b.wall);
    for ratio in &no_change {
        ratio.print();
    }
    println!(
        "helm template x{n} sequential / garrison re-render: {:.0}x no change, {:.0}x one values file changed",
        ratio(&sequential, &helm_again),
        ratio(&sequential, &one)
    );
    let mut result = format!(
        "RESULT releases={n} clusters={clusters} objects={} helm_first={:.3} helm_again={:.3} helm_one={:.3} plain_first={:.3} plain_again={:.3} pair_ratio={:.2} user_pair_ratio={:.2} helm_template_seq={:.3}",
        summary.rendered_objects,
        secs(first.wall),
        secs(helm_again.wall),
        secs(one.wall),
        secs(plain_first.wall),
        secs(plain_again.wall),
        no_change[0].pair,
        no_change[1].pair,
        secs(sequential.wall)
    );
    if let Some(parallel) = &parallel {
        result += &format!(" helm_template_par{jobs}={:.3}", secs(parallel.wall));
    }
    println!("{result}");
}

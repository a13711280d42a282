//! Whole-process benchmark: garrison against `kubectl kustomize`.
//!
//! ```sh
//! cargo bench --bench compare -- [--templates 200] [--clusters 10] [--runs 3]
//!     [--jobs 2] [--dir target/bench-fleet] [--no-kustomize] [--no-check]
//!     [--no-branch]
//! ```
//!
//! Generates a fleet (`benches/fleet/mod.rs`), then times, with the release
//! binary: a first render into a directory that never existed (with no parse
//! cache), a re-render into the same directory with nothing changed, an
//! incremental render after one template changed, a re-render with
//! `--rebuild` (every object rendered again) and one with `--no-cache`, and
//! `kubectl kustomize` of every overlay, one after the
//! other as a CI job would (and with `--jobs` in parallel). Then the same
//! three renders in branch mode (`render --branch`, committing into a git
//! repository holding the fleet's source). Before timing
//! the incremental render it checks that both sides give the same objects.
//! Before each timed run the bench calls `sync` and waits a second, so the
//! writeback of one step (or of deleting the previous output) is not billed
//! to the next. Times are medians of `--runs`; the peak RSS of garrison comes from
//! `/usr/bin/time -f %M` when present, else `getrusage(RUSAGE_CHILDREN)`.

// A command-line tool: its timings are its output, on stdout.
#![allow(clippy::print_stdout)]

mod fleet;
mod timing;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;
use timing::{first_renders, forget_parse_cache, median, render, render_with, row, secs, Run};

/// `garrison render --repo REPO --branch rendered`, committing into REPO.
fn render_branch(repo: &Path) -> Run {
    let args = [
        "render".as_ref(),
        "--repo".as_ref(),
        repo.as_os_str(),
        "--branch".as_ref(),
        "rendered".as_ref(),
    ];
    timing::time_garrison(&args, &repo.with_extension("rss"))
}

/// `kubectl kustomize` of every overlay, `jobs` at a time.
fn kustomize_all(overlays: &[PathBuf], jobs: usize) -> std::time::Duration {
    timing::in_parallel(overlays, jobs, |overlay| {
        let status = Command::new("kubectl")
            .arg("kustomize")
            .arg(overlay)
            .stdout(Stdio::null())
            .status()
            .expect("run kubectl");
        assert!(status.success(), "kubectl kustomize {}", overlay.display());
    })
}

/// `runs` renders into `out`, each after one more template changed.
fn one_change_renders(fleet: &fleet::Fleet, dir: &Path, out: &Path, runs: usize) -> Run {
    median(
        (0..runs)
            .map(|generation| {
                fleet
                    .touch_one(dir, generation as u64 + 1)
                    .expect("change one template");
                render(&dir.join("garrison"), out)
            })
            .collect(),
    )
}

fn git(repo: &Path, args: &[&str]) {
    let status = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["-c", "user.name=bench", "-c", "user.email=bench@localhost"])
        .args(args)
        .stdout(Stdio::null())
        .status()
        .expect("the git CLI runs");
    assert!(status.success(), "git {args:?}");
}

/// The branch mode: the fleet's source committed to git, rendered into
/// branch `rendered` of the same repository (first commit, no change, one
/// template changed and committed; the source commit is not timed).
fn branch_steps(fleet: &fleet::Fleet, dir: &Path, repo: &Path, runs: usize) -> [Run; 3] {
    if !repo.join(".git").exists() {
        git(repo, &["init", "-q", "-b", "main"]);
    }
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "--allow-empty", "-m", "fleet"]);
    let first = median(
        (0..runs)
            .map(|_| {
                let _ = Command::new("git")
                    .arg("-C")
                    .arg(repo)
                    .args(["branch", "-q", "-D", "rendered"])
                    .stderr(Stdio::null())
                    .status();
                forget_parse_cache(repo);
                render_branch(repo)
            })
            .collect(),
    );
    let again = median((0..runs).map(|_| render_branch(repo)).collect());
    let incremental = median(
        (0..runs)
            .map(|generation| {
                fleet
                    .touch_one(dir, 100 + generation as u64)
                    .expect("change one template");
                git(repo, &["commit", "-q", "-am", "one template"]);
                render_branch(repo)
            })
            .collect(),
    );
    [first, again, incremental]
}

fn main() {
    let args = fleet::args();
    if let Some(sizes) = args.get("curve") {
        curve(&args, sizes);
        return;
    }
    let templates = fleet::arg(&args, "templates", 200usize);
    let clusters = fleet::arg(&args, "clusters", 10usize);
    let runs = fleet::arg(&args, "runs", 3usize).max(1);
    let jobs = fleet::arg(&args, "jobs", 2usize);
    let kustomize = !args.contains_key("no-kustomize");
    let check = kustomize && !args.contains_key("no-check");
    let dir = PathBuf::from(fleet::arg(
        &args,
        "dir",
        format!("target/bench-fleet/{templates}x{clusters}"),
    ));
    let dir = std::path::absolute(&dir).expect("absolute path");

    let fleet = fleet::fleet(fleet::Spec::new(templates, clusters));
    let start = Instant::now();
    let summary = fleet.write(&dir).expect("write the fleet");
    println!(
        "fleet {templates}x{clusters}: {} apps, {} objects rendered, generated in {:.2}s under {}",
        summary.apps,
        summary.rendered_objects,
        secs(start.elapsed()),
        dir.display()
    );
    let repo = dir.join("garrison");
    let out = dir.join("out");

    let first = first_renders(&repo, &out, runs);
    let again = median((0..runs).map(|_| render(&repo, &out)).collect());

    if check {
        let start = Instant::now();
        let compared = fleet::check_all(&fleet, &dir, &out).unwrap_or_else(|e| panic!("{e}"));
        println!(
            "check: kubectl kustomize and garrison agree on {compared} objects ({:.1}s)",
            secs(start.elapsed())
        );
    }

    let incremental = one_change_renders(&fleet, &dir, &out, runs);
    let rebuild = median(
        (0..runs)
            .map(|_| render_with(&repo, &out, &["--rebuild"]))
            .collect(),
    );
    let uncached = median(
        (0..runs)
            .map(|_| render_with(&repo, &out, &["--no-cache"]))
            .collect(),
    );

    println!();
    timing::header();
    row("garrison render, first (new dir)", &first);
    row("garrison render, again (no change)", &again);
    row("garrison render, one template changed", &incremental);
    row("garrison render --rebuild (no change)", &rebuild);
    row("garrison render --no-cache (no change)", &uncached);
    println!(
        "incremental / first render: {:.1} %; incremental / --rebuild: {:.1} %",
        100.0 * secs(incremental.wall) / secs(first.wall),
        100.0 * secs(incremental.wall) / secs(rebuild.wall)
    );
    let branch = (!args.contains_key("no-branch")).then(|| branch_steps(&fleet, &dir, &repo, runs));
    if let Some([first, again, one]) = &branch {
        row("render --branch, first commit", first);
        row("render --branch, again (no commit)", again);
        row("render --branch, one template changed", one);
        println!(
            "branch incremental / first commit: {:.1} %",
            100.0 * secs(one.wall) / secs(first.wall)
        );
    }
    let mut result = format!(
        "RESULT templates={templates} clusters={clusters} objects={} first={:.3} again={:.3} incremental={:.3} rebuild={:.3} uncached={:.3} rss_mib={}",
        summary.rendered_objects,
        secs(first.wall),
        secs(again.wall),
        secs(incremental.wall),
        secs(rebuild.wall),
        secs(uncached.wall),
        first.rss_kib.max(again.rss_kib).max(incremental.rss_kib) / 1024
    );
    if let Some([first, again, one]) = &branch {
        result += &format!(
            " branch_first={:.3} branch_again={:.3} branch_incremental={:.3}",
            secs(first.wall),
            secs(again.wall),
            secs(one.wall)
        );
    }

    if kustomize {
        let overlays: Vec<PathBuf> = fleet
            .clusters
            .iter()
            .map(|c| dir.join("kustomize/overlays").join(&c.name))
            .collect();
        let sequential = kustomize_all(&overlays, 1);
        println!(
            "{:<40} {:>10.3}   ratio kustomize/garrison first: {:.1}x",
            format!("kubectl kustomize x{}, sequential", overlays.len()),
            secs(sequential),
            secs(sequential) / secs(first.wall)
        );
        result += &format!(" kustomize_seq={:.3}", secs(sequential));
        if jobs > 1 {
            let parallel = kustomize_all(&overlays, jobs);
            println!(
                "{:<40} {:>10.3}   ratio kustomize/garrison first: {:.1}x",
                format!("kubectl kustomize x{}, {jobs} jobs", overlays.len()),
                secs(parallel),
                secs(parallel) / secs(first.wall)
            );
            result += &format!(" kustomize_par{jobs}={:.3}", secs(parallel));
        }
    }
    println!("{result}");
}

/// `--curve 250,500,1000,2000 [--clusters 20] [--svg docs/performance.svg]`:
/// first render and re-render time against objects rendered, garrison only.
fn curve(args: &std::collections::BTreeMap<String, String>, sizes: &str) {
    let clusters = fleet::arg(args, "clusters", 20usize);
    let runs = fleet::arg(args, "runs", 3usize).max(1);
    let svg = args.get("svg").cloned();
    let mut points = Vec::new();
    println!(
        "{:>9} {:>8} {:>9} {:>10} {:>10} {:>10} {:>12} {:>9}",
        "templates",
        "clusters",
        "objects",
        "first (s)",
        "first cpu",
        "again (s)",
        "one change",
        "RSS MiB"
    );
    for size in sizes
        .split(',')
        .map(|s| s.trim().parse::<usize>().expect("--curve: sizes"))
    {
        let dir =
            std::path::absolute(format!("target/bench-fleet/{size}x{clusters}")).expect("absolute");
        let fleet = fleet::fleet(fleet::Spec::new(size, clusters));
        let summary = fleet.write(&dir).expect("write the fleet");
        let repo = dir.join("garrison");
        let out = dir.join("out");
        let first = first_renders(&repo, &out, runs);
        let again = median((0..runs).map(|_| render(&repo, &out)).collect());
        let one = one_change_renders(&fleet, &dir, &out, runs);
        let rss = first.rss_kib.max(again.rss_kib).max(one.rss_kib) / 1024;
        println!(
            "{:>9} {:>8} {:>9} {:>10.3} {:>10.3} {:>10.3} {:>12.3} {:>9}",
            size,
            clusters,
            summary.rendered_objects,
            secs(first.wall),
            secs(first.cpu),
            secs(again.wall),
            secs(one.wall),
            rss
        );
        points.push((
            summary.rendered_objects,
            secs(first.wall),
            secs(again.wall),
            secs(one.wall),
            secs(first.cpu),
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
    if let Some(path) = svg {
        std::fs::write(&path, plot(&points, clusters)).expect("write the SVG");
        println!("wrote {path}");
    }
}

/// A small line chart: objects on x, seconds on y, one polyline per series.
/// One size of the curve: objects, first-render wall, re-render wall,
/// one-change wall, first-render CPU.
type Point = (usize, f64, f64, f64, f64);

fn plot(points: &[Point], clusters: usize) -> String {
    let (w, h, left, right, top, bottom) = (640.0, 400.0, 70.0, 20.0, 40.0, 50.0);
    let max_x = points.iter().map(|p| p.0).max().unwrap_or(1) as f64;
    let max_y = points
        .iter()
        .map(|p| p.1.max(p.2).max(p.3).max(p.4))
        .fold(0.0f64, f64::max)
        .max(1e-3);
    // A round upper bound for the y axis.
    let step = {
        let raw = max_y / 5.0;
        let mag = 10f64.powf(raw.log10().floor());
        [1.0, 2.0, 5.0, 10.0]
            .iter()
            .map(|m| m * mag)
            .find(|s| *s >= raw)
            .unwrap_or(raw)
    };
    let top_y = step * (max_y / step).ceil();
    let x = |v: f64| left + (w - left - right) * v / max_x;
    let y = |v: f64| h - bottom - (h - top - bottom) * v / top_y;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">garrison render time vs objects rendered ({clusters} clusters, 2 cores)</text>\n",
        w / 2.0
    );
    svg += &format!(
        "<line x1=\"{left}\" y1=\"{0}\" x2=\"{1}\" y2=\"{0}\" stroke=\"black\"/>\n<line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{0}\" stroke=\"black\"/>\n",
        h - bottom,
        w - right
    );
    let mut tick = 0.0;
    while tick <= top_y + 1e-9 {
        svg += &format!(
            "<line x1=\"{left}\" y1=\"{0:.1}\" x2=\"{1}\" y2=\"{0:.1}\" stroke=\"#ddd\"/><text x=\"{2}\" y=\"{3:.1}\" text-anchor=\"end\">{tick:.2}</text>\n",
            y(tick),
            w - right,
            left - 6.0,
            y(tick) + 4.0
        );
        tick += step;
    }
    for p in points {
        svg += &format!(
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
            x(p.0 as f64),
            h - bottom + 16.0,
            p.0
        );
    }
    svg += &format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">objects rendered (templates x clusters)</text>\n\
         <text x=\"16\" y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {})\">seconds (wall or CPU)</text>\n",
        (left + w - right) / 2.0,
        h - 12.0,
        h / 2.0,
        h / 2.0
    );
    type Series = (&'static str, &'static str, fn(&Point) -> f64);
    let series: [Series; 4] = [
        ("first render (wall)", "#1f77b4", |p| p.1),
        ("first render (CPU)", "#9467bd", |p| p.4),
        ("re-render, no change", "#ff7f0e", |p| p.2),
        ("one template changed", "#2ca02c", |p| p.3),
    ];
    for (i, (name, color, get)) in series.iter().enumerate() {
        let coords: Vec<String> = points
            .iter()
            .map(|p| format!("{:.1},{:.1}", x(p.0 as f64), y(get(p))))
            .collect();
        svg += &format!(
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" points=\"{}\"/>\n",
            coords.join(" ")
        );
        for c in &coords {
            let (cx, cy) = c.split_once(',').unwrap_or(("0", "0"));
            svg += &format!("<circle cx=\"{cx}\" cy=\"{cy}\" r=\"3\" fill=\"{color}\"/>\n");
        }
        let ly = top + 10.0 + 18.0 * i as f64;
        svg += &format!(
            "<line x1=\"{0}\" y1=\"{ly}\" x2=\"{1}\" y2=\"{ly}\" stroke=\"{color}\" stroke-width=\"2\"/><text x=\"{2}\" y=\"{3}\">{name}</text>\n",
            left + 12.0,
            left + 36.0,
            left + 42.0,
            ly + 4.0
        );
    }
    svg += "</svg>\n";
    svg
}

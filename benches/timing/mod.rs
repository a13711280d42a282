//! Timing whole runs of the release binary, shared by the whole-process
//! benches (`compare`, `helm`) so that every table of docs/performance.md is
//! measured the same way: each run a separate process, `sync` and a second's
//! wait before it, medians of several runs, peak RSS and CPU time from
//! `/usr/bin/time` when present.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

pub const GARRISON: &str = env!("CARGO_BIN_EXE_garrison");
const TIME: &str = "/usr/bin/time";

/// One timed run (or the median of several).
pub struct Run {
    pub wall: Duration,
    /// Peak resident set size in KiB.
    pub rss_kib: u64,
    /// User plus system CPU time; a first render's wall time on a slow disk
    /// is mostly waiting, its CPU time is garrison's own work.
    pub cpu: Duration,
    /// User CPU time alone (to the microsecond): garrison's own work without
    /// the kernel's, such as zeroing the pages it is given, whose cost on a
    /// virtual machine varies from run to run.
    pub user: Duration,
}

/// `garrison render --repo REPO --out OUT`.
pub fn render(repo: &Path, out: &Path) -> Run {
    render_with(repo, out, &[])
}

/// [`render`] with more flags (`--rebuild`, `--no-cache`).
pub fn render_with(repo: &Path, out: &Path, extra: &[&str]) -> Run {
    let mut args = vec![
        "render".as_ref(),
        "--repo".as_ref(),
        repo.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ];
    args.extend(extra.iter().map(|a| std::ffi::OsStr::new(*a)));
    time_garrison(&args, &out.with_extension("rss"))
}

/// A first render is cold: no parse cache from an earlier run.
pub fn forget_parse_cache(repo: &Path) {
    let _ = std::fs::remove_dir_all(repo.join(".garrison-cache"));
}

/// Run garrison with `args` (after [`settle`]) and time it; `/usr/bin/time`
/// writes its measures to `rss_file`.
pub fn time_garrison(args: &[&std::ffi::OsStr], rss_file: &Path) -> Run {
    let use_time = Path::new(TIME).exists();
    let mut command = if use_time {
        let mut c = Command::new(TIME);
        c.arg("-f")
            .arg("%M %U %S")
            .arg("-o")
            .arg(rss_file)
            .arg(GARRISON);
        c
    } else {
        Command::new(GARRISON)
    };
    command.args(args).stdout(Stdio::null());
    settle();
    let user = children_user();
    let start = Instant::now();
    let status = command.status().expect("run garrison");
    let wall = start.elapsed();
    let user = children_user().saturating_sub(user);
    assert!(status.success(), "garrison render failed: {status}");
    let (rss_kib, cpu) = if use_time {
        let text = std::fs::read_to_string(rss_file).unwrap_or_default();
        let fields: Vec<&str> = text
            .trim()
            .lines()
            .last()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        let number = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok());
        (
            number(0).map_or(0, |k| k as u64),
            Duration::from_secs_f64(number(1).unwrap_or(0.0) + number(2).unwrap_or(0.0)),
        )
    } else {
        (children_max_rss_kib(), Duration::ZERO)
    };
    Run {
        wall,
        rss_kib,
        cpu,
        user,
    }
}

/// Flush dirty pages and let the disk go quiet, so that the writeback of
/// one step (or of deleting the previous output) is not billed to the next.
pub fn settle() {
    // SAFETY: sync takes no arguments and cannot fail.
    unsafe { libc::sync() };
    std::thread::sleep(Duration::from_secs(1));
}

fn children_usage() -> libc::rusage {
    // SAFETY: getrusage only writes into the struct we pass.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    }
}

fn children_max_rss_kib() -> u64 {
    u64::try_from(children_usage().ru_maxrss).unwrap_or(0)
}

fn duration(t: libc::timeval) -> Duration {
    Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
        + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
}

/// User plus system CPU time of every child process waited for so far.
pub fn children_cpu() -> Duration {
    let usage = children_usage();
    duration(usage.ru_utime) + duration(usage.ru_stime)
}

/// User CPU time of every child process waited for so far.
fn children_user() -> Duration {
    duration(children_usage().ru_utime)
}

/// `run` for every item, `jobs` at a time (one after the other with 1), as
/// a CI job running another tool would: the wall time of all of them.
pub fn in_parallel<T: Sync>(items: &[T], jobs: usize, run: impl Fn(&T) + Sync) -> Duration {
    let next = AtomicUsize::new(0);
    let start = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else {
                    break;
                };
                run(item);
            });
        }
    });
    start.elapsed()
}

/// `runs` first renders, each into a directory that never existed (this
/// disk creates files slowly for a while after a large delete, which would
/// time the disk, not the render). The last one becomes `out`; the others
/// and any old `out` are deleted only after the timing.
pub fn first_renders(repo: &Path, out: &Path, runs: usize) -> Run {
    let fresh: Vec<PathBuf> = (0..runs)
        .map(|i| out.with_file_name(format!("out-first-{}-{i}", std::process::id())))
        .collect();
    let first = median(
        fresh
            .iter()
            .map(|dir| {
                forget_parse_cache(repo);
                render(repo, dir)
            })
            .collect(),
    );
    let _ = std::fs::remove_dir_all(out);
    if let Some(last) = fresh.last() {
        std::fs::rename(last, out).expect("keep the last first render as the output");
    }
    for dir in &fresh {
        let _ = std::fs::remove_dir_all(dir);
    }
    first
}

/// The run of median wall time, with the largest peak RSS of all.
pub fn median(mut runs: Vec<Run>) -> Run {
    runs.sort_by_key(|r| r.wall);
    let rss_kib = runs.iter().map(|r| r.rss_kib).max().unwrap_or(0);
    let mid = runs.swap_remove(runs.len() / 2);
    Run {
        wall: mid.wall,
        rss_kib,
        cpu: mid.cpu,
        user: mid.user,
    }
}

pub fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// The header of a table of [`row`]s.
pub fn header() {
    println!(
        "{:<40} {:>10} {:>9} {:>12}",
        "step", "wall (s)", "cpu (s)", "peak RSS"
    );
}

/// One step of the table: its wall and CPU time and peak RSS.
/// (No peak RSS when `run` measured none: several processes.)
pub fn row(name: &str, run: &Run) {
    let rss = match run.rss_kib {
        0 => String::new(),
        kib => format!("{} MiB", kib / 1024),
    };
    println!(
        "{:<40} {:>10.3} {:>9.3} {:>12}",
        name,
        secs(run.wall),
        secs(run.cpu),
        rss
    );
}

//! The Karmada oracle (`conformance/karmada/`), built with the machine's Go
//! and run as one process for many cases (`--jsonl`: a case per line in, a
//! result per line out). It is built with Go's coverage instrumentation of
//! Karmada's deciding packages (those `coverage/classes.txt` names), so a
//! run can say which of Karmada's code it walked (`super::coverage`).

use super::generate::Case;
use crate::go_program::{self, JsonLines};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A running oracle, and the directory its coverage counters go to when
/// nobody reads them (without one, the instrumented binary warns at exit).
pub struct Oracle {
    run: JsonLines,
    /// Removed with the oracle; held only so it outlives the process.
    _counters: Option<tempfile::TempDir>,
}

/// The oracle, built once per test process: the tests that use it run in
/// parallel, and a second `go build` writing the binary another test is
/// running could fail with "text file busy".
fn built() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let coverpkg = format!("-coverpkg={}", covered_packages().join(","));
            go_program::build_package(
                "karmada",
                ".",
                &["-cover", &coverpkg],
                "karmada-oracle",
                "the Karmada oracle",
                "the differential test needs Go 1.25.10 or newer (the karmada module's minimum)",
            )
        })
        .clone()
}

/// The oracle's own package (without it Go writes no coverage data) and
/// the deciding packages of `conformance/karmada/coverage/classes.txt`.
fn covered_packages() -> Vec<String> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/karmada/coverage/classes.txt");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => panic!("cannot read {}: {e}", path.display()),
    };
    let deciding = text.lines().filter_map(|line| {
        let dir = line.trim().strip_prefix("package ")?;
        Some(format!("github.com/karmada-io/karmada/{}", dir.trim()))
    });
    std::iter::once(".".to_string()).chain(deciding).collect()
}

/// The flags every run of the oracle takes.
const ARGS: [&str; 2] = ["--jsonl", "--enable-empty-workload-propagation"];

impl Oracle {
    pub fn start() -> Oracle {
        // garrison delivers a workload to a selected cluster whose share is
        // zero replicas, with 0 (SPEC §2: in GitOps, dropping it would delete
        // the application there). That is what karmada-scheduler does with
        // its own --enable-empty-workload-propagation, so the oracle runs
        // with it rather than the comparison papering over the difference:
        // the zero-replica clusters, and their manifests, are compared too.
        let counters = crate::support::temp();
        let run = JsonLines::start_with(&built(), &ARGS, &[("GOCOVERDIR", counters.path())]);
        Oracle {
            run,
            _counters: Some(counters),
        }
    }

    /// An oracle that writes the statements it walks into `dir` when it
    /// [finishes](Oracle::finish).
    pub fn start_covered(dir: &Path) -> Oracle {
        let run = JsonLines::start_with(&built(), &ARGS, &[("GOCOVERDIR", dir)]);
        Oracle {
            run,
            _counters: None,
        }
    }

    /// Karmada's answer to `case`.
    pub fn answer(&mut self, case: &Case) -> Value {
        self.run.answer(case)
    }

    /// Karmada's answer to `case`, with its control plane as kubectl would
    /// export it after every controller ran (`controlPlane`: `export`,
    /// `works`; `conformance/karmada/export.go`).
    pub fn answer_exported(&mut self, case: &Case) -> Value {
        let mut case = serde_json::to_value(case).unwrap_or_default();
        case["export"] = Value::Bool(true);
        self.run.answer(&case)
    }

    /// Let the oracle exit, writing its coverage counters.
    pub fn finish(self) {
        self.run.finish()
    }
}

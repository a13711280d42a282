//! The Karmada oracle (`conformance/karmada/`), built with the machine's Go
//! and run as one process for many cases (`--jsonl`: a case per line in, a
//! result per line out).

use super::generate::Case;
use crate::go_program::{self, JsonLines};
use serde_json::Value;
use std::path::PathBuf;

/// A running oracle.
pub struct Oracle(JsonLines);

/// The oracle, built once per test process: the tests that use it run in
/// parallel, and a second `go build` writing the binary another test is
/// running could fail with "text file busy".
fn built() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            go_program::build(
                "karmada",
                "karmada-oracle",
                "the Karmada oracle",
                "the differential test needs Go 1.25.10 or newer (the karmada module's minimum)",
            )
        })
        .clone()
}

impl Oracle {
    pub fn start() -> Oracle {
        // garrison delivers a workload to a selected cluster whose share is
        // zero replicas, with 0 (SPEC §2: in GitOps, dropping it would delete
        // the application there). That is what karmada-scheduler does with
        // its own --enable-empty-workload-propagation, so the oracle runs
        // with it rather than the comparison papering over the difference:
        // the zero-replica clusters, and their manifests, are compared too.
        Oracle(JsonLines::start(
            &built(),
            &["--jsonl", "--enable-empty-workload-propagation"],
        ))
    }

    /// Karmada's answer to `case`.
    pub fn answer(&mut self, case: &Case) -> Value {
        self.0.answer(case)
    }
}

//! The Clusternet oracle (`conformance/clusternet/`), built with the
//! machine's Go and run as one process for many cases (`--jsonl`: a case
//! per line in, an answer per line out).

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
                "clusternet",
                "clusternet-oracle",
                "the Clusternet oracle",
                "the Clusternet differential test needs Go 1.25.10 or newer (k8s.io/kubernetes' minimum, for the API server stage)",
            )
        })
        .clone()
}

impl Oracle {
    pub fn start() -> Oracle {
        // garrison follows Clusternet's localizer after v0.18.1 in its
        // field patches (FieldJSONPatch, FieldMergePatch), which v0.18.0,
        // the oracle's version, refuses: the oracle is asked for the later
        // localizer's (`conformance/clusternet/DIVERGENCES.md`).
        Oracle(JsonLines::start(&built(), &["--jsonl", "--field-patches"]))
    }

    /// Clusternet's answer to `case`.
    pub fn answer(&mut self, case: &Case) -> Value {
        self.0.answer(case)
    }
}

//! The Clusternet oracle (`conformance/clusternet/`), built with the
//! machine's Go and run as one process for many cases (`--jsonl`: a case
//! per line in, an answer per line out).

use super::generate::Case;
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// A running oracle.
pub struct Oracle {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

/// The oracle, built once per test process: the tests that use it run in
/// parallel, and a second `go build` writing the binary another test is
/// running could fail with "text file busy".
fn built() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT.get_or_init(build).clone()
}

/// Build the oracle into `target/`; a missing Go is a failure that says
/// what to install, never a skipped test.
fn build() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let binary = root.join("target").join("clusternet-oracle");
    let built = Command::new("go")
        // No VCS stamping: a checkout owned by another user (CI containers)
        // makes `go build` fail on `git status` otherwise.
        .args(["build", "-buildvcs=false", "-o"])
        .arg(&binary)
        .arg(".")
        .current_dir(root.join("conformance/clusternet"))
        .status();
    match built {
        Ok(status) if status.success() => binary,
        Ok(status) => panic!(
            "building the Clusternet oracle (`go build` in conformance/clusternet) failed: {status}"
        ),
        Err(e) => panic!(
            "the Clusternet differential test needs Go 1.22 or newer on PATH to build conformance/clusternet ({e}); install it (https://go.dev/dl) and run again"
        ),
    }
}

impl Oracle {
    pub fn start() -> Oracle {
        let binary = built();
        let spawned = Command::new(&binary)
            .arg("--jsonl")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(e) => panic!("cannot start {}: {e}", binary.display()),
        };
        let (Some(input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
            panic!("the oracle's pipes were not opened");
        };
        Oracle {
            child,
            input,
            output: BufReader::new(output),
        }
    }

    /// Clusternet's answer to `case`.
    pub fn answer(&mut self, case: &Case) -> Value {
        let line = match serde_json::to_string(case) {
            Ok(line) => line,
            Err(e) => panic!("a case does not serialise: {e}"),
        };
        if let Err(e) = writeln!(self.input, "{line}").and_then(|()| self.input.flush()) {
            panic!("cannot send a case to the oracle: {e}");
        }
        let mut answer = String::new();
        match self.output.read_line(&mut answer) {
            Ok(0) => panic!("the oracle stopped (see its stderr above)"),
            Ok(_) => {}
            Err(e) => panic!("cannot read the oracle's answer: {e}"),
        }
        match serde_json::from_str(&answer) {
            Ok(value) => value,
            Err(e) => panic!("the oracle's answer is not JSON ({e}): {answer}"),
        }
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

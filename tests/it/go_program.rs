//! The Go programs the tests build from `conformance/` (the Karmada and
//! Clusternet oracles, the YAML readers) with the machine's Go, and the
//! one-JSON-line-in, one-JSON-line-out protocol the oracles speak.

use serde::Serialize;
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// Build `conformance/<dir>` into `target/<binary>`, naming it `what` in a
/// failure; a missing Go is a failure that says what to install (`needs`),
/// never a skipped test.
pub fn build(dir: &str, binary: &str, what: &str, needs: &str) -> PathBuf {
    build_package(dir, ".", &[], binary, what, needs)
}

/// Build the Go package `package` of the module in `conformance/<dir>`
/// (its own package, or one of its `tool` lines) with `flags` into
/// `target/<binary>`.
pub fn build_package(
    dir: &str,
    package: &str,
    flags: &[&str],
    binary: &str,
    what: &str,
    needs: &str,
) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = root.join("target").join(binary);
    let built = Command::new("go")
        // No VCS stamping: a checkout owned by another user (CI containers)
        // makes `go build` fail on `git status` otherwise.
        .args(["build", "-buildvcs=false"])
        .args(flags)
        .arg("-o")
        .arg(&out)
        .arg(package)
        .current_dir(root.join("conformance").join(dir))
        .status();
    match built {
        Ok(status) if status.success() => out,
        Ok(status) => {
            panic!("building {what} (`go build` in conformance/{dir}) failed: {status}")
        }
        Err(e) => panic!(
            "{needs} on PATH to build conformance/{dir} ({e}); install it (https://go.dev/dl) and run again"
        ),
    }
}

/// Run the Go tests of the module in `conformance/<dir>` (`go test ./...`),
/// failing with their output.
pub fn test_module(dir: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ran = Command::new("go")
        .args(["test", "-buildvcs=false", "./..."])
        .current_dir(root.join("conformance").join(dir))
        .output();
    match ran {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!(
            "`go test ./...` in conformance/{dir} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => panic!("Go 1.26 on PATH to test conformance/{dir} ({e}); install it (https://go.dev/dl) and run again"),
    }
}

/// Where Go's module cache holds `module` at the version the module in
/// `conformance/<dir>` pins (`go mod download` fetches it when it is not
/// there yet); a missing Go fails with what to install (`needs`).
pub fn module_dir(dir: &str, module: &str, needs: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let downloaded = Command::new("go")
        .args(["mod", "download", "-json", module])
        .current_dir(root.join("conformance").join(dir))
        .output();
    let output = match downloaded {
        Ok(output) if output.status.success() => output,
        Ok(output) => panic!(
            "`go mod download {module}` in conformance/{dir} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ),
        Err(e) => panic!("{needs} on PATH ({e}); install it (https://go.dev/dl) and run again"),
    };
    let found: Value = match serde_json::from_slice(&output.stdout) {
        Ok(found) => found,
        Err(e) => panic!("`go mod download -json {module}` printed no JSON: {e}"),
    };
    match found["Dir"].as_str() {
        Some(dir) => PathBuf::from(dir),
        None => panic!("`go mod download -json {module}` names no directory: {found}"),
    }
}

/// A running program that answers each JSON line with one.
pub struct JsonLines {
    child: Child,
    /// `None` once [`JsonLines::finish`] closed it.
    input: Option<ChildStdin>,
    output: BufReader<ChildStdout>,
}

impl JsonLines {
    pub fn start(binary: &Path, args: &[&str]) -> JsonLines {
        JsonLines::start_with(binary, args, &[])
    }

    /// [`JsonLines::start`] with `env` added to the program's environment.
    pub fn start_with(binary: &Path, args: &[&str], env: &[(&str, &Path)]) -> JsonLines {
        let spawned = Command::new(binary)
            .args(args)
            .envs(env.iter().copied())
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
        JsonLines {
            child,
            input: Some(input),
            output: BufReader::new(output),
        }
    }

    /// The answer to `case`.
    pub fn answer(&mut self, case: &impl Serialize) -> Value {
        let line = match serde_json::to_string(case) {
            Ok(line) => line,
            Err(e) => panic!("a case does not serialise: {e}"),
        };
        let Some(input) = self.input.as_mut() else {
            panic!("the oracle's input is closed");
        };
        if let Err(e) = writeln!(input, "{line}").and_then(|()| input.flush()) {
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

impl JsonLines {
    /// Close the program's input and wait for it to exit on its own (what
    /// a coverage-instrumented Go program needs to write its counters).
    pub fn finish(mut self) {
        drop(self.input.take());
        match self.child.wait() {
            Ok(status) if status.success() => {}
            Ok(status) => panic!("the oracle exited with {status} (see its stderr above)"),
            Err(e) => panic!("cannot wait for the oracle: {e}"),
        }
    }
}

impl Drop for JsonLines {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The oracles' and the API server stage's own Go tests: each pins one
/// behaviour of Karmada's, Clusternet's or Kubernetes' code the
/// differential runs rely on (a previous schedule, a continued control
/// plane, the defaulters, the coverage classes).
#[test]
fn the_conformance_programs_pass_their_own_tests() {
    for dir in ["karmada", "clusternet", "kubernetes-apiserver"] {
        test_module(dir);
    }
}

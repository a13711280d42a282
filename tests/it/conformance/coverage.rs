//! Which of Karmada's deciding code the differential run walks. The
//! oracle is built with Go's coverage instrumentation (`super::oracle`);
//! here it answers the suite's own cases again (the case files, the
//! generated cases and the two-phase ones, the seeds the comparing tests
//! use) with `GOCOVERDIR` set, and `conformance/karmada/coverage`
//! classifies every function of the deciding packages by
//! `coverage/classes.txt` and fails when the functions an offline render
//! can reach are covered below [`REQUIRED_PERCENT`] of their statements.
//!
//! `GARRISON_COVERAGE_TABLE=1` also writes the table into
//! `docs/conformance.md` (between its `coverage` markers) and every
//! function's line into `conformance/karmada/coverage/functions.tsv`:
//! the command that regenerates them is
//! `GARRISON_COVERAGE_TABLE=1 cargo test --test it conformance::coverage`.
//! The merged counters stay in `target/karmada-coverage.txt`.

use super::{case_file_paths, case_files, generate, oracle::Oracle};
use super::{CaseFile, Run};
use std::path::Path;
use std::process::Command;

/// The share of the reachable functions' statements the run must walk
/// (the case files and the generated cases walk 90.1 % today).
const REQUIRED_PERCENT: &str = "90";

#[test]
fn the_differential_run_walks_karmadas_reachable_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = crate::support::temp();
    let counters = work.path().join("counters");
    if let Err(e) = std::fs::create_dir_all(&counters) {
        panic!("cannot create {}: {e}", counters.display());
    }
    let mut oracle = Oracle::start_covered(&counters);
    for path in case_file_paths(&case_files()) {
        match super::read_case_file(&path) {
            CaseFile::One(case) => {
                oracle.answer(&case);
            }
            CaseFile::InTurn(first, then) => {
                oracle.answer(&first);
                oracle.answer(&then.continuing());
            }
        }
    }
    for seed in Run::from_env(super::GENERATED).seeds {
        oracle.answer(&generate::case(seed));
    }
    for seed in 0..super::TWO_PHASE {
        let first = generate::case(seed);
        let (then, _) = generate::changed(seed, &first);
        oracle.answer(&first);
        oracle.answer(&then.continuing());
    }
    oracle.finish();

    // Kept in target/, so the classification can be rerun on its own:
    // `go run ./coverage -profile ../../target/karmada-coverage.txt` in
    // conformance/karmada.
    let profile = root.join("target/karmada-coverage.txt");
    go(
        root,
        &[
            "tool",
            "covdata",
            "textfmt",
            &format!("-i={}", counters.display()),
            &format!("-o={}", profile.display()),
        ],
    );
    let table = work.path().join("table.md");
    let functions = root.join("conformance/karmada/coverage/functions.tsv");
    let regenerate = std::env::var_os("GARRISON_COVERAGE_TABLE").is_some();
    let mut args = vec![
        "run".to_string(),
        "./coverage".to_string(),
        format!("-profile={}", profile.display()),
        format!("-table={}", table.display()),
        format!("-min={REQUIRED_PERCENT}"),
    ];
    if regenerate {
        args.push(format!("-functions={}", functions.display()));
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let printed = go(root, &args);
    eprint!("{printed}");
    if regenerate {
        let table = match std::fs::read_to_string(&table) {
            Ok(table) => table,
            Err(e) => panic!("karmada-coverage wrote no table: {e}"),
        };
        write_table(&root.join("docs/conformance.md"), &table);
    }
}

/// Run `go` in `conformance/karmada`; its stdout, or a failure with what it
/// printed.
fn go(root: &Path, args: &[&str]) -> String {
    let output = Command::new("go")
        .args(args)
        .current_dir(root.join("conformance/karmada"))
        .output();
    match output {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).into_owned(),
        Ok(out) => panic!(
            "`go {}` failed:\n{}{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => panic!("Go is needed to measure the oracle's coverage ({e}): install Go 1.26"),
    }
}

const START: &str = "<!-- coverage table: GARRISON_COVERAGE_TABLE=1 cargo test --test it conformance::coverage -->\n";
const END: &str = "<!-- end of the coverage table -->\n";

/// Put `table` between the markers of `doc`.
fn write_table(doc: &Path, table: &str) {
    let text = match std::fs::read_to_string(doc) {
        Ok(text) => text,
        Err(e) => panic!("cannot read {}: {e}", doc.display()),
    };
    let (Some(start), Some(end)) = (text.find(START), text.find(END)) else {
        panic!(
            "{} has no coverage markers ({START:?} … {END:?})",
            doc.display()
        );
    };
    let updated = format!("{}{START}\n{table}\n{}", &text[..start], &text[end..]);
    if let Err(e) = std::fs::write(doc, updated) {
        panic!("cannot write {}: {e}", doc.display());
    }
}

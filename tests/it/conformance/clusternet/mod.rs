//! The differential test against Clusternet's logic: random cases from a
//! fixed seed, rendered by garrison in-process and answered by the oracle
//! in `conformance/clusternet/` (Clusternet v0.18.0's scheduler, static
//! assigner, deployer and localizer re-expressed over the libraries
//! Clusternet pins, in one Go process), compared field by field: what each
//! ManagedCluster receives (as the cluster's API server stores it, both
//! sides alike: `super::stored`), the replicas of each divided feed, and
//! errors.
//! The deliberate differences are listed in `compare.rs`; what the
//! generator leaves out, and why, in `generate.rs`.

mod compare;
mod garrison;
mod generate;
mod oracle;

use generate::Case;
use serde_json::Value;

/// Every generated case is input garrison accepts: a refusal here is a
/// generator bug (or garrison refusing what Clusternet takes), never noise.
#[test]
fn clusternet_generated_cases_are_valid_input() {
    let mut refused = Vec::new();
    let (mut bound, mut delivered, mut clusters) = (0, 0, 0);
    for seed in 0..200 {
        let case = generate::case(seed);
        let dir = crate::support::temp();
        match garrison::answer(&case, dir.path()) {
            Ok(answer) => {
                let objects = |c: &Value| c["objects"].as_array().map_or(0, Vec::len);
                for cluster in answer["clusters"].as_object().into_iter().flatten() {
                    clusters += 1;
                    delivered += objects(cluster.1);
                    bound += usize::from(objects(cluster.1) > 0);
                }
            }
            Err(why) => refused.push(format!("seed {seed}: {why}")),
        }
    }
    assert!(refused.is_empty(), "{}", refused.join("\n"));
    // Cases where nothing is delivered test little: most clusters must
    // receive something.
    assert!(
        bound * 2 > clusters,
        "only {bound} of {clusters} clusters receive anything ({delivered} objects)"
    );
}

#[test]
fn clusternet_a_seed_is_its_case() {
    let a = serde_json::to_string(&generate::case(7)).unwrap_or_default();
    let b = serde_json::to_string(&generate::case(7)).unwrap_or_default();
    assert_eq!(a, b);
    assert_ne!(
        a,
        serde_json::to_string(&generate::case(8)).unwrap_or_default()
    );
}

/// garrison and Clusternet's logic agree on every generated case, modulo
/// the deliberate differences of `compare.rs`. The seed range is fixed;
/// `GARRISON_CONFORMANCE_CASES` and `GARRISON_CONFORMANCE_SEED` set a
/// longer run, `GARRISON_CONFORMANCE_DUMP` keeps every diverging case with
/// both answers (`<dir>/<seed>.{case,garrison,clusternet}.json`),
/// `GARRISON_CONFORMANCE_CASES_OUT` writes every case as one JSON line (the
/// oracle's `--jsonl` input), and `GARRISON_CONFORMANCE_STRICT` stops
/// steering clear of the open divergences of
/// `conformance/clusternet/DIVERGENCES.md` ([`generate::Known`]).
#[test]
fn clusternet_agrees_on_generated_cases() {
    let mut run = super::Run::from_env(2500);
    let count = run.count();
    let mut oracle = oracle::Oracle::start();
    let mut member = super::stored::Member::start();
    let mut found = Vec::new();
    let started = std::time::Instant::now();
    let mut oracle_time = std::time::Duration::ZERO;
    for seed in run.seeds.clone() {
        let case = generate::case(seed);
        run.record(&case);
        let dir = crate::support::temp();
        let answer = garrison::answer(&case, dir.path());
        let timer = std::time::Instant::now();
        let theirs = oracle.answer(&case);
        oracle_time += timer.elapsed();
        let ours = match answer {
            Ok(answer) => answer,
            Err(why) if compare::oracle_fails_too(&why, &theirs, true) => continue,
            Err(why) => {
                if let Some(dir) = &run.dump {
                    dump_case(
                        dir,
                        &seed.to_string(),
                        &case,
                        &Value::String(why.clone()),
                        &theirs,
                    );
                }
                found.push(format!("seed {seed}: garrison refused the case: {why}"));
                continue;
            }
        };
        let (ours, theirs) = (
            member.clusternet_answer(&ours),
            member.clusternet_answer(&theirs),
        );
        let differences = compare::divergences(&case, &ours, &theirs);
        if let (false, Some(dir)) = (differences.is_empty(), &run.dump) {
            dump_case(dir, &seed.to_string(), &case, &ours, &theirs);
        }
        found.extend(differences.into_iter().map(|d| format!("seed {seed}: {d}")));
    }
    run.finish();
    let elapsed = started.elapsed().as_secs_f64();
    eprintln!(
        "clusternet oracle: {count} cases in {elapsed:.1} s ({:.0} cases/s; the oracle {:.1} s of it, round trips included)",
        count as f64 / elapsed.max(1e-9),
        oracle_time.as_secs_f64()
    );
    assert!(
        found.is_empty(),
        "{} divergences in {count} cases (see conformance/clusternet/DIVERGENCES.md):\n{}",
        found.len(),
        found.join("\n")
    );
}

/// Hand-written cases, one JSON file each (the oracle's input format), for
/// what the generator does not write: `conformance/clusternet/testdata/cases`
/// (their `*.expected.json` answers are the oracle's own test data, not
/// cases), or the directory `GARRISON_CONFORMANCE_FILES` names (for instance
/// `conformance/clusternet/testdata/divergences`, the known divergences, or
/// a diverging case being edited down).
#[test]
fn clusternet_agrees_on_case_files() {
    let dir = std::env::var_os("GARRISON_CONFORMANCE_FILES")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("conformance/clusternet/testdata/cases")
        });
    let mut paths: Vec<std::path::PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.extension().is_some_and(|x| x == "json")
                    && !p.to_string_lossy().ends_with(".expected.json")
            })
            .collect(),
        Err(e) => panic!("cannot read {}: {e}", dir.display()),
    };
    paths.sort();
    assert!(!paths.is_empty(), "no case files in {}", dir.display());
    let mut oracle = oracle::Oracle::start();
    let mut member = super::stored::Member::start();
    let mut found = Vec::new();
    for path in &paths {
        let name = path.display();
        let case: Case = match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| serde_json::from_str(&text).map_err(|e| e.to_string()))
        {
            Ok(case) => case,
            Err(e) => panic!("{name}: {e}"),
        };
        let work = crate::support::temp();
        let theirs = oracle.answer(&case);
        let stem = path.file_stem().unwrap_or_default().to_string_lossy();
        let dump = std::env::var_os("GARRISON_CONFORMANCE_DUMP").map(std::path::PathBuf::from);
        let ours = match garrison::answer(&case, work.path()) {
            Ok(answer) => answer,
            // Both refuse: what garrison refuses need not be what the
            // oracle names (garrison stops at the first fault of a
            // repository, Clusternet fails each object on its own), the
            // refusal is what matters.
            Err(_) if compare::oracle_fails_too("", &theirs, false) => continue,
            Err(why) => {
                if let Some(dir) = &dump {
                    dump_case(dir, &stem, &case, &Value::String(why.clone()), &theirs);
                }
                found.push(format!("{name}: garrison refused the case: {why}"));
                continue;
            }
        };
        let (ours, theirs) = (
            member.clusternet_answer(&ours),
            member.clusternet_answer(&theirs),
        );
        let differences = compare::divergences(&case, &ours, &theirs);
        if let Some(dir) = &dump {
            dump_case(dir, &stem, &case, &ours, &theirs);
        }
        found.extend(differences.into_iter().map(|d| format!("{name}: {d}")));
    }
    assert!(
        found.is_empty(),
        "{} divergences in {} files (see conformance/clusternet/DIVERGENCES.md):\n{}",
        found.len(),
        paths.len(),
        found.join("\n")
    );
}

/// Keep a case and both answers (`<stem>.{case,garrison,clusternet}.json`).
fn dump_case(dir: &std::path::Path, stem: &str, case: &Case, ours: &Value, theirs: &Value) {
    super::dump_case(dir, stem, "clusternet", case, ours, theirs);
}

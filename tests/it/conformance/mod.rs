//! The differential test against Karmada's own code: random cases from a
//! fixed seed, run through garrison in-process and through the oracle in
//! `conformance/karmada/` (Karmada's scheduler, policy matching, override
//! manager and interpreters, in one Go process), compared field by field.

mod compare;
mod garrison;
mod generate;
mod oracle;

/// Every generated case is input garrison accepts: a refusal here is a
/// generator bug (or garrison refusing what Karmada takes), never noise.
#[test]
fn generated_cases_are_valid_input() {
    let mut refused = Vec::new();
    let (mut templates, mut delivered) = (0, 0);
    for seed in 0..200 {
        let case = generate::case(seed);
        let dir = crate::support::temp();
        match garrison::answer(&case, dir.path()) {
            Ok(answer) => {
                let results = answer["results"].as_array().cloned().unwrap_or_default();
                templates += results.len();
                delivered += results
                    .iter()
                    .filter(|r| r["works"].as_array().is_some_and(|w| !w.is_empty()))
                    .count();
            }
            Err(why) => refused.push(format!("seed {seed}: {why}")),
        }
    }
    assert!(refused.is_empty(), "{}", refused.join("\n"));
    // Cases where nothing is delivered test little: most templates must be.
    assert!(
        delivered * 2 > templates,
        "only {delivered} of {templates} templates were delivered anywhere"
    );
}

#[test]
fn a_seed_is_its_case() {
    let a = serde_json::to_string(&generate::case(7)).unwrap_or_default();
    let b = serde_json::to_string(&generate::case(7)).unwrap_or_default();
    assert_eq!(a, b);
    assert_ne!(
        a,
        serde_json::to_string(&generate::case(8)).unwrap_or_default()
    );
}

/// garrison and Karmada's own code agree on every generated case, modulo
/// the deliberate differences of `conformance/karmada/README.md`. The seed range is
/// fixed; `GARRISON_CONFORMANCE_CASES` and `GARRISON_CONFORMANCE_SEED` set a
/// longer run.
#[test]
fn karmada_agrees_on_generated_cases() {
    let count: u64 = std::env::var("GARRISON_CONFORMANCE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let first: u64 = std::env::var("GARRISON_CONFORMANCE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    // For triage: the case and both answers of every diverging seed, as
    // `<dir>/<seed>.{case,garrison,karmada}.json`.
    let dump = std::env::var_os("GARRISON_CONFORMANCE_DUMP").map(std::path::PathBuf::from);
    let mut oracle = oracle::Oracle::start();
    let mut found = Vec::new();
    for seed in first..first + count {
        let case = generate::case(seed);
        let dir = crate::support::temp();
        let ours = match garrison::answer(&case, dir.path()) {
            Ok(answer) => answer,
            Err(why) => {
                found.push(format!("seed {seed}: garrison refused the case: {why}"));
                continue;
            }
        };
        let theirs = oracle.answer(&case);
        let differences = compare::divergences(&ours, &theirs);
        if let (false, Some(dir)) = (differences.is_empty(), &dump) {
            dump_case(dir, seed, &case, &ours, &theirs);
        }
        found.extend(differences.into_iter().map(|d| format!("seed {seed}: {d}")));
    }
    assert!(
        found.is_empty(),
        "{} divergences in {count} cases:\n{}",
        found.len(),
        found.join("\n")
    );
}

fn dump_case(
    dir: &std::path::Path,
    seed: u64,
    case: &generate::Case,
    ours: &serde_json::Value,
    theirs: &serde_json::Value,
) {
    let write = |what: &str, text: String| {
        let path = dir.join(format!("{seed}.{what}.json"));
        if let Err(e) = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, text)) {
            panic!("cannot write {}: {e}", path.display());
        }
    };
    write("case", serde_json::to_string(case).unwrap_or_default());
    write(
        "garrison",
        serde_json::to_string_pretty(ours).unwrap_or_default(),
    );
    write(
        "karmada",
        serde_json::to_string_pretty(theirs).unwrap_or_default(),
    );
}
